"""Serve the same app to a browser on localhost through textual-serve, to its own page only.

textual-serve answers anyone who can reach the port: a web page open in the same browser
could open ``ws://localhost:PORT/ws`` and type keys into the app. So, as Jupyter does, the
URL we print carries a random token, and every request must bring it (the page in its query,
the page's WebSocket and assets in their paths), be addressed to this server (``Host``) and,
when it comes from a page, come from this server's page (``Origin``). Anything else is
refused with 403 and one line on stderr (never the token).

Each browser session runs its own app process (~50 MB): at most ``--max-sessions`` at once
(a page asked for beyond them says so, and is not started). Each session's app runs in a
process group of its own, and the server ends them all when it stops (Ctrl+C, SIGTERM).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import html
import logging
import os
import secrets
import shlex
import signal
import sys
from asyncio.subprocess import Process
from collections.abc import Awaitable, Callable

import aiohttp
import aiohttp_jinja2
import jinja2
from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from memharness_tui.tui.serve_page import PAGE, TEMPLATE

__all__ = ["DEFAULT_MAX_SESSIONS", "Gate", "GuardedServer", "serve", "serve_command"]

log = logging.getLogger("textual-serve")

DEFAULT_MAX_SESSIONS = 4
"""Browser sessions served at once by default: each is an app process of its own."""

QUIT_WAIT_S = 5.0
"""How long a session's app has to quit (as on ``q``) when the server stops, before its
process group is killed."""

LOCAL_NAMES = ("localhost", "127.0.0.1", "[::1]")
"""The names this server answers to: textual-serve listens on ``localhost`` (both families)."""

ASSET_FOLDERS = frozenset({"css", "fonts", "images", "js"})
"""textual-serve's asset folders: ``/static/js/…`` asks for an asset with no token in its path
(where its own server keeps them), not with a wrong one."""


def serve_command(app_args: list[str]) -> str:
    """The shell command textual-serve runs per browser session: this package's CLI, same
    args. ``exec``: the shell becomes the app, so a signal to the session reaches the app."""
    return "exec " + shlex.join([sys.executable, "-m", "memharness_tui", *app_args])


def sessions_full_message(limit: int) -> str:
    """What a page asked for beyond ``--max-sessions`` says (one sentence)."""
    return (f"memharness-tui serve: {limit} session{'s' if limit != 1 else ''} already open, "
            f"the most this server runs at once (--max-sessions {limit}); close one (its tab) "
            "and reload this page")


class SessionService(AppService):  # type: ignore[misc]
    """textual-serve's AppService with its app in a process group of its own, so the server
    can end the session whole (the app and any process it started)."""

    process: Process | None = None

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        environment = self._build_environment(width=width, height=height)
        self.process = self._process = process = await asyncio.create_subprocess_shell(
            self.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
            start_new_session=True,
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def end(self, wait: float) -> None:
        """Ask the app to quit (SIGTERM: as ``q``), and kill its process group if it has not
        within ``wait`` seconds."""
        process = self.process
        if process is None or process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), wait)
        killpg = getattr(os, "killpg", None)  # (POSIX; elsewhere the app alone)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if killpg is not None:
                killpg(process.pid, signal.SIGKILL)  # the app, or what it left running
            else:
                process.kill()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), wait)


def _shown(value: str) -> str:
    """A header from the request, safe on a terminal (escaped, short)."""
    return ascii(value[:80] + ("…" if len(value) > 80 else ""))


class Gate:
    """Which requests may reach the app: the decision alone, apart from aiohttp."""

    def __init__(self, token: str, port: int) -> None:
        self.token = token
        self.port = port
        suffix = "" if port == 80 else f":{port}"
        self.hosts = frozenset(name + suffix for name in LOCAL_NAMES)
        self.origins = frozenset(f"http://{host}" for host in self.hosts)

    def refusal(self, path: str, query_token: str | None, host: str | None,
                origin: str | None) -> tuple[int, str] | None:
        """(403, why) for a request that must not reach the app, (404, why) for a path we do
        not serve (nothing there to guard: favicon.ico …), None when it may pass. ``why`` is
        one phrase and never contains the token.

        ``path`` is the URL path, ``query_token`` the ``token`` query parameter."""
        if host is None or host.lower() not in self.hosts:
            return 403, f"Host {_shown(host or '')} is not this server"
        if origin is not None and origin.lower() not in self.origins:
            return 403, f"Origin {_shown(origin)} is not this server's page"
        if not self.guarded(path):
            return 404, "not served"
        if path == "/":
            given = query_token or ""
        else:
            parts = path.split("/")  # "/ws/TOKEN" or "/static/TOKEN/…"
            given = parts[2] if len(parts) > 2 else ""
            if parts[1] == "static" and given in ASSET_FOLDERS:
                given = ""
        if not given:
            return 403, "no token"
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            return 403, "wrong token"
        return None

    @staticmethod
    def guarded(path: str) -> bool:
        """Whether ``path`` names what we serve: the page, its WebSocket or its assets."""
        return path in ("/", "/ws", "/static") or path.startswith(("/ws/", "/static/"))

    @staticmethod
    def shown_path(path: str) -> str:
        """The path as logged: what was asked for, never a token."""
        if path == "/" or not Gate.guarded(path):
            return _shown(path) if path != "/" else "/"
        return "/" + path.split("/")[1]


class GuardedServer(Server):  # type: ignore[misc]
    """textual-serve's Server behind the :class:`Gate`, with token-bearing asset and
    WebSocket routes (its page template derives both from the router), no file
    downloads (the app delivers none) and no access log (it would print the token)."""

    def __init__(self, command: str, port: int, token: str | None = None, *,
                 max_sessions: int = DEFAULT_MAX_SESSIONS) -> None:
        super().__init__(command, host="localhost", port=port, title="memharness-tui")
        self.token = token or secrets.token_urlsafe(32)
        self.gate = Gate(self.token, port)
        self.max_sessions = max_sessions
        #: one entry per session from its first moment (before any await), to its end
        self._slots: set[object] = set()
        self._sessions: set[SessionService] = set()

    @property
    def url(self) -> str:
        """The address to open: the only one that works."""
        return f"{self.public_url}/?token={self.token}"

    def make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard])
        # our copy of its page: no web font from outside (serve_page)
        aiohttp_jinja2.setup(app, loader=jinja2.DictLoader({TEMPLATE: PAGE}))
        app.add_routes([
            web.get("/", self.handle_index, name="index"),
            web.get(f"/ws/{self.token}", self.handle_websocket, name="websocket"),
            web.static(f"/static/{self.token}", self.statics_path, name="static"),
        ])
        app.on_response_prepare.append(self._no_referrer)
        app.on_shutdown.append(self._end_sessions)
        return app

    @property
    def full(self) -> bool:
        return len(self._slots) >= self.max_sessions

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        """The page, or (every session taken) one that says so instead of starting another."""
        if self.full:
            self._say_full(request)
            message = html.escape(sessions_full_message(self.max_sessions))
            return web.Response(status=503, content_type="text/html", text=(
                "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>memharness-tui"
                f"</title></head><body><p>{message}</p></body></html>\n"))
        response: web.StreamResponse = await super().handle_index(request)
        return response

    def _say_full(self, request: web.Request) -> None:
        print(f"memharness-tui serve: refused {request.method} "
              f"{self.gate.shown_path(request.path)} from {request.remote}: "
              f"{len(self._slots)} sessions open (--max-sessions {self.max_sessions})",
              file=sys.stderr, flush=True)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """textual-serve's session, counted (at most ``max_sessions``) and its app started
        in a process group of its own (``SessionService``)."""
        websocket = web.WebSocketResponse(heartbeat=15)
        if self.full:  # the page was served while a slot was free: say it in its terminal
            self._say_full(request)
            await websocket.prepare(request)
            text = sessions_full_message(self.max_sessions)
            await websocket.send_bytes(f"\r\n {text}\r\n".encode())
            await websocket.close(code=aiohttp.WSCloseCode.TRY_AGAIN_LATER,
                                  message=b"too many sessions")
            return websocket
        slot = object()
        self._slots.add(slot)
        width = to_int(request.query.get("width", "80"), 80)
        height = to_int(request.query.get("height", "24"), 24)
        service: SessionService | None = None

        async def close() -> None:
            await websocket.close()

        try:
            await websocket.prepare(request)
            service = SessionService(self.command, write_bytes=websocket.send_bytes,
                                     write_str=websocket.send_str, close=close,
                                     download_manager=self.download_manager, debug=self.debug)
            self._sessions.add(service)
            await service.start(width, height)
            try:
                await self._process_messages(websocket, service)
            finally:
                await service.stop()
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:  # noqa: BLE001 - as textual-serve: the session ends
            log.exception(error)
        finally:
            self._slots.discard(slot)
            if service is not None:
                self._sessions.discard(service)
                await service.stop()
        return websocket

    async def _end_sessions(self, _app: web.Application) -> None:
        """The server stops: every session's app ends with it (politely, then killed)."""
        await asyncio.gather(*(s.end(QUIT_WAIT_S) for s in list(self._sessions)),
                             return_exceptions=True)

    @web.middleware
    async def _guard(self, request: web.Request,
                     handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
                     ) -> web.StreamResponse:
        path = request.path
        verdict = self.gate.refusal(path, request.query.get("token"),
                                    request.headers.get("Host"), request.headers.get("Origin"))
        if verdict is None:
            return await handler(request)
        status, why = verdict
        if status == 404:
            raise web.HTTPNotFound()
        print(f"memharness-tui serve: refused {request.method} {self.gate.shown_path(path)} "
              f"from {request.remote}: {why}", file=sys.stderr, flush=True)
        raise web.HTTPForbidden(text="403: Forbidden\n")

    @staticmethod
    async def _no_referrer(_request: web.Request, response: web.StreamResponse) -> None:
        # The page's address carries the token: no request it makes may say it elsewhere.
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-store"

    def announce(self, *_running_on: object) -> None:
        """Say where to go, once the server listens (aiohttp's own line would omit the
        token)."""
        print(f"memharness-tui: serving the app at {self.url}\n"
              "Open that address (only it works); Ctrl+C stops.", flush=True)

    def serve(self, debug: bool = False) -> None:
        """Block serving (Ctrl+C or SIGTERM stops): textual-serve's ``serve`` with our
        application and without its access log."""
        self.debug = debug
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):  # Windows: no such handlers
                loop.add_signal_handler(sig, self.request_exit)
        web.run_app(self.make_app(), host=self.host, port=self.port, handle_signals=False,
                    loop=loop, access_log=None, print=self.announce)


def serve(port: int, app_args: list[str], max_sessions: int = DEFAULT_MAX_SESSIONS) -> None:
    """Block serving the app at http://localhost:PORT/?token=… (Ctrl+C stops)."""
    GuardedServer(serve_command(app_args), port, max_sessions=max_sessions).serve()
