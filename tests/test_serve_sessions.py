"""``serve`` under several browser sessions: at most ``--max-sessions`` at once (the rest told
why), every session's app ended with the server, sessions closing together leave no crash
log; and the Origin check admits this server's page exactly, not a name that starts like it.

The server runs as a real process on a free port; the sessions are aiohttp WebSocket clients
opened as the page opens them (see test_serve_auth.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from memharness_tui.store import Store
from memharness_tui.tui.serve import Gate, sessions_full_message

from .test_serve_auth import TOKEN, free_port

MARK = b"A fact the sessions draw"
BOUND_S = 120  # generous: every wait below is for a state, bounded by this


# ----- the Origin and Host checks are exact -----------------------------------------------------


@pytest.mark.parametrize("origin", ["http://localhost:8123.evil.example",
                                    "http://localhost:81234", "http://127.0.0.1:8123@evil.example",
                                    "http://localhost:8123/", "http://localhost:8123 "])
def test_an_origin_that_only_starts_like_this_servers_page_is_refused(origin: str) -> None:
    gate = Gate(TOKEN, 8123)
    assert gate.refusal(f"/ws/{TOKEN}", None, "localhost:8123", "http://localhost:8123") is None
    verdict = gate.refusal(f"/ws/{TOKEN}", None, "localhost:8123", origin)
    assert verdict is not None and verdict[0] == 403 and verdict[1].startswith("Origin ")


@pytest.mark.parametrize("host", ["localhost:8123.evil.example", "localhost:81234",
                                  "127.0.0.1:8123.nip.io"])
def test_a_host_that_only_starts_like_this_server_is_refused(host: str) -> None:
    verdict = Gate(TOKEN, 8123).refusal("/", TOKEN, host, None)
    assert verdict is not None and verdict[0] == 403 and verdict[1].startswith("Host ")


# ----- the real server ---------------------------------------------------------------------------


def _descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (Linux /proc)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            parents[int(entry)] = int(fields[1])
    found: set[int] = set()
    todo = [pid]
    while todo:
        here = todo.pop()
        for child, parent in parents.items():
            if parent == here and child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


class Server:
    """``memharness-tui --db DB serve --port PORT [args]``; stopped by signalling its pid only."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.db = tmp_path / "memory.db"
        with Store.open(str(self.db)) as store:
            store.remember("serve", MARK.decode())
        self.cache = tmp_path / "cache"
        self.port = free_port()
        env = {**os.environ, "MEMHARNESS_TUI_CONFIG_DIR": str(tmp_path / "config"),
               "MEMHARNESS_TUI_CACHE_DIR": str(self.cache)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memharness_tui", "--db", str(self.db), "serve", "--port",
             str(self.port), *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.seen: set[int] = set()
        url = self._read_url()
        self.token = url.rsplit("token=", 1)[1]
        self.origin = f"http://localhost:{self.port}"
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}/ws/{self.token}?width=100&height=30"

    def _read_url(self) -> str:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + BOUND_S
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], 1)
            if ready:
                found = re.search(rb"http://localhost:\d+/\?token=[A-Za-z0-9_-]+",
                                  self.proc.stdout.readline())
                if found:
                    return found.group().decode()
            if self.proc.poll() is not None:
                break
        raise AssertionError("serve printed no URL")

    def sessions(self) -> set[int]:
        """The processes the server runs for its sessions now (noted for the clean-up)."""
        found = _descendants(self.proc.pid)
        self.seen |= found
        return found

    def stop(self) -> str:
        """SIGTERM to the server, then (whatever a test left) SIGKILL to each process it had
        started; its stderr."""
        if self.proc.poll() is None:
            self.sessions()
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(BOUND_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(BOUND_S)
        for pid in _alive(self.seen):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        with self.proc.stdout, self.proc.stderr:
            return self.proc.stderr.read().decode()


@contextlib.asynccontextmanager
async def session(server: Server) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
    """One browser session, once its app has drawn the store."""
    async with aiohttp.ClientSession() as client, \
            client.ws_connect(server.ws, headers={"Origin": server.origin}) as ws:
        seen = b""
        deadline = time.monotonic() + BOUND_S
        while MARK not in seen:
            msg = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
            assert msg.type == aiohttp.WSMsgType.BINARY, (msg.type, seen[-300:])
            seen += msg.data
        yield ws


async def _refused(server: Server) -> tuple[bytes, int | None]:
    """What a session beyond the limit is sent, and the code it is closed with."""
    seen = b""
    async with aiohttp.ClientSession() as client, \
            client.ws_connect(server.ws, headers={"Origin": server.origin}) as ws:
        while True:
            msg = await ws.receive(timeout=BOUND_S)
            if msg.type != aiohttp.WSMsgType.BINARY:
                return seen, ws.close_code
            seen += msg.data


async def _page(server: Server) -> tuple[int, str]:
    async with aiohttp.ClientSession() as client, \
            client.get(f"{server.base}/?token={server.token}") as resp:
        return resp.status, await resp.text()


def _wait_for(condition: object, what: str) -> None:
    deadline = time.monotonic() + BOUND_S
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"never: {what}")
        time.sleep(0.05)


def test_sessions_beyond_the_limit_are_told_why_and_a_freed_one_is_taken(tmp_path: Path) -> None:
    server = Server(tmp_path, "--max-sessions", "2")
    try:
        async def run() -> None:
            async with session(server), session(server) as second:
                said, code = await _refused(server)
                assert sessions_full_message(2).encode() in said
                assert code == aiohttp.WSCloseCode.TRY_AGAIN_LATER
                status, page = await _page(server)
                assert status == 503
                assert ("2 sessions already open, the most this server runs at once "
                        "(--max-sessions 2); close one (its tab) and reload this page") in page
                await second.close()
                for _ in range(BOUND_S * 20):  # the slot is freed once its app has ended
                    status, page = await _page(server)
                    if status == 200:
                        break
                    await asyncio.sleep(0.05)
                assert status == 200 and "data-session-websocket-url" in page
                async with session(server):  # and a new session opens in it
                    pass

        asyncio.run(run())
    finally:
        err = server.stop()
    refusals = [line for line in err.splitlines() if "sessions open" in line]
    assert refusals[0] == ("memharness-tui serve: refused GET /ws from 127.0.0.1: 2 sessions "
                           "open (--max-sessions 2)")
    assert refusals[1] == ("memharness-tui serve: refused GET / from 127.0.0.1: 2 sessions "
                           "open (--max-sessions 2)")  # (and one per page asked for since)
    assert server.token not in err


def test_a_max_sessions_below_one_is_one_clear_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memharness_tui", "--db", str(tmp_path / "m.db"), "serve",
         "--port", str(free_port()), "--max-sessions", "0"],
        capture_output=True, text=True, timeout=BOUND_S, check=False)
    assert done.returncode == 2
    assert "--max-sessions must be at least 1, got 0" in done.stderr
    assert "Traceback" not in done.stderr


def test_sigterm_to_the_server_ends_every_session_with_it(tmp_path: Path) -> None:
    server = Server(tmp_path)
    try:
        async def run() -> set[int]:
            async with session(server), session(server):
                _wait_for(lambda: len(server.sessions()) >= 2, "two session processes")
                started = server.sessions()
                # one session's app does not quit when asked (stopped: as a hung one)
                os.kill(max(started), signal.SIGSTOP)
                server.proc.send_signal(signal.SIGTERM)  # the server's pid alone
                await asyncio.to_thread(server.proc.wait, BOUND_S)
                return started

        started = asyncio.run(run())
        _wait_for(lambda: not _alive(started), "every session process gone")
    finally:
        server.stop()
    assert server.proc.returncode == 0


def test_sessions_closing_together_leave_no_crash_log(tmp_path: Path) -> None:
    server = Server(tmp_path)  # the default limit: 4
    try:
        async def run() -> None:
            async with contextlib.AsyncExitStack() as stack:
                for _ in range(4):
                    await stack.enter_async_context(session(server))
                server.sessions()
            # all four closed at once (the stack's exit)

        asyncio.run(run())
        _wait_for(lambda: not server.sessions(), "every session's app ended")
    finally:
        server.stop()
    log = server.cache / "crash.log"
    assert not log.exists(), log.read_text()[-2000:]
