"""Serve the same app to a browser on localhost through textual-serve, to its own page only.

textual-serve answers anyone who can reach the port: a web page open in the same browser
could open ``ws://localhost:PORT/ws`` and type keys into the app. So, as Jupyter does, the
URL we print carries a random token, and every request must bring it (the page in its query,
the page's WebSocket and assets in their paths), be addressed to this server (``Host``) and,
when it comes from a page, come from this server's page (``Origin``). Anything else is
refused with 403 and one line on stderr (never the token).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import secrets
import shlex
import signal
import sys
from collections.abc import Awaitable, Callable

import aiohttp_jinja2
import jinja2
from aiohttp import web
from textual_serve.server import Server

from memharness_tui.tui.serve_page import PAGE, TEMPLATE

__all__ = ["Gate", "GuardedServer", "serve", "serve_command"]

LOCAL_NAMES = ("localhost", "127.0.0.1", "[::1]")
"""The names this server answers to: textual-serve listens on ``localhost`` (both families)."""

ASSET_FOLDERS = frozenset({"css", "fonts", "images", "js"})
"""textual-serve's asset folders: ``/static/js/…`` asks for an asset with no token in its path
(where its own server keeps them), not with a wrong one."""


def serve_command(app_args: list[str]) -> str:
    """The shell command textual-serve runs per browser session: this package's CLI, same args."""
    return shlex.join([sys.executable, "-m", "memharness_tui", *app_args])


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

    def __init__(self, command: str, port: int, token: str | None = None) -> None:
        super().__init__(command, host="localhost", port=port, title="memharness-tui")
        self.token = token or secrets.token_urlsafe(32)
        self.gate = Gate(self.token, port)

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
        return app

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


def serve(port: int, app_args: list[str]) -> None:
    """Block serving the app at http://localhost:PORT/?token=… (Ctrl+C stops)."""
    GuardedServer(serve_command(app_args), port).serve()
