"""``serve`` admits only its own page (issue #20, item 1) and is as read-only as asked (item 2).

The end-to-end test runs the real command on 127.0.0.1 with a free port and talks to it with
a raw WebSocket client, as a page in the same browser would.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from memharness_tui.cli import main
from memharness_tui.store import Store
from memharness_tui.tui import serve as serve_mod
from memharness_tui.tui.serve import Gate

FIXTURES = Path(__file__).parent / "fixtures"
TOKEN = "t0ken-For-The-Tests_only0123456789abcdefghi"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# ----- the gate's decisions --------------------------------------------------------------------


@pytest.mark.parametrize("host", ["localhost:8123", "127.0.0.1:8123", "[::1]:8123",
                                  "LOCALHOST:8123"])
def test_the_gate_admits_the_token_at_this_address(host: str) -> None:
    gate = Gate(TOKEN, 8123)
    assert gate.refusal("/", TOKEN, host, None) is None
    assert gate.refusal(f"/ws/{TOKEN}", None, host, "http://localhost:8123") is None
    assert gate.refusal(f"/static/{TOKEN}/js/textual.js", None, host, None) is None


@pytest.mark.parametrize(("path", "token", "host", "origin", "why"), [
    ("/", None, "localhost:8123", None, "no token"),
    ("/", "", "localhost:8123", None, "no token"),
    ("/", TOKEN[:-1], "localhost:8123", None, "wrong token"),
    ("/ws", None, "localhost:8123", "http://localhost:8123", "no token"),
    ("/ws/" + "x" * len(TOKEN), None, "localhost:8123", "http://localhost:8123", "wrong token"),
    ("/static/nope/js/textual.js", None, "localhost:8123", None, "wrong token"),
    (f"/ws/{TOKEN}", None, "localhost:8123", "http://evil.example", "Origin"),
    (f"/ws/{TOKEN}", None, "localhost:8123", "http://localhost:9999", "Origin"),
    (f"/ws/{TOKEN}", None, "localhost:8123", "null", "Origin"),
    ("/", TOKEN, "evil.example:8123", None, "Host"),  # DNS rebinding
    ("/", TOKEN, "localhost:9999", None, "Host"),
    ("/", TOKEN, None, None, "Host"),
])
def test_the_gate_refuses_everything_else_with_a_reason_that_hides_the_token(
        path: str, token: str | None, host: str | None, origin: str | None, why: str) -> None:
    verdict = Gate(TOKEN, 8123).refusal(path, token, host, origin)
    assert verdict is not None and verdict[0] == 403 and verdict[1].startswith(why)
    assert TOKEN not in verdict[1] and TOKEN not in Gate.shown_path(path)


def test_paths_it_does_not_serve_are_not_found_but_a_foreign_origin_is_still_refused() -> None:
    gate = Gate(TOKEN, 8123)
    assert gate.refusal("/favicon.ico", None, "localhost:8123", None) == (404, "not served")
    verdict = gate.refusal("/favicon.ico", None, "localhost:8123", "http://evil.example")
    assert verdict is not None and verdict[0] == 403


def test_a_hostile_header_is_logged_as_escaped_text() -> None:
    verdict = Gate(TOKEN, 8123).refusal("/", TOKEN, "evil\x1b[31m.example", None)
    assert verdict is not None and "\x1b" not in verdict[1] and "\\x1b" in verdict[1]


def test_each_server_has_its_own_long_random_token() -> None:
    a = serve_mod.GuardedServer("true", 8123)
    b = serve_mod.GuardedServer("true", 8123)
    assert a.token != b.token and len(a.token) >= 40
    assert a.url == f"http://localhost:8123/?token={a.token}"


# ----- the real server, driven by a raw client ---------------------------------------------------


class Served:
    """``memharness-tui --db DB serve --port PORT`` in its own process group."""

    def __init__(self, tmp_path: Path, db: Path) -> None:
        self.port = free_port()
        env = {**os.environ, "MEMHARNESS_TUI_CONFIG_DIR": str(tmp_path / "config"),
               "MEMHARNESS_TUI_CACHE_DIR": str(tmp_path / "cache")}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memharness_tui", "--db", str(db), "serve", "--port",
             str(self.port)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True)
        self.url = self._read_url()
        self.token = self.url.rsplit("token=", 1)[1]

    def _read_url(self) -> str:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 60
        seen = b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], 1)
            if ready:
                line = self.proc.stdout.readline()
                seen += line
                found = re.search(rb"http://localhost:\d+/\?token=[A-Za-z0-9_-]+", line)
                if found:
                    return found.group().decode()
            if self.proc.poll() is not None:
                break
        raise AssertionError(f"serve printed no URL: {seen!r}")

    def stop(self) -> str:
        """Stop the server (and the app sessions it started); its stderr."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        with self.proc.stdout, self.proc.stderr:  # closed here: warnings are errors in the suite
            return self.proc.stderr.read().decode()


async def ws_status(url: str, headers: dict[str, str]) -> int:
    """The handshake's status: 101 when the WebSocket opened (then closed at once)."""
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(url, headers=headers):
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


async def http_status(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as resp:
        return resp.status, await resp.text()


async def session_output(url: str, origin: str, want: bytes, seconds: float) -> bytes:
    """Open the app's WebSocket as its page does and read what the app draws until ``want``."""
    seen = b""
    async with aiohttp.ClientSession() as session, \
            session.ws_connect(url + "?width=100&height=30", headers={"Origin": origin}) as ws:
        deadline = time.monotonic() + seconds
        while want not in seen and time.monotonic() < deadline:
            try:
                msg = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                break
            if msg.type == aiohttp.WSMsgType.BINARY:
                seen += msg.data
            elif msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED,
                              aiohttp.WSMsgType.ERROR):
                break
    return seen


def test_serve_admits_only_its_own_page(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    with Store.open(str(db)) as store:
        store.remember("serve", "Only the served page may drive the app")
    before = digest(db)
    served = Served(tmp_path, db)
    try:
        port, token = served.port, served.token
        base, ws = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
        ours = f"http://localhost:{port}"
        wrong = token[:-4] + ("aaaa" if not token.endswith("aaaa") else "bbbb")

        async def attempts() -> dict[str, int]:
            return {
                "foreign origin": await ws_status(f"{ws}/ws/{token}",
                                                  {"Origin": "http://evil.example"}),
                "no token": await ws_status(f"{ws}/ws", {"Origin": ours}),
                "wrong token": await ws_status(f"{ws}/ws/{wrong}", {"Origin": ours}),
                "foreign host": await ws_status(f"{ws}/ws/{token}",
                                                {"Origin": ours, "Host": f"evil.example:{port}"}),
                "page, no token": (await http_status(f"{base}/"))[0],
                "page, wrong token": (await http_status(f"{base}/?token={wrong}"))[0],
                "asset, wrong token": (await http_status(f"{base}/static/{wrong}/js/textual.js"))[0],
            }

        refused = asyncio.run(attempts())
        assert refused == dict.fromkeys(refused, 403)
        # nothing reached the app: no session opened the store, let alone wrote to it
        assert digest(db) == before and not Path(f"{db}-wal").exists()

        async def the_page() -> tuple[int, str, int, bytes]:
            status, page = await http_status(f"{base}/?token={token}")
            asset = re.search(r'src="http://localhost:\d+(/static/[^"]+/js/textual\.js)"', page)
            assert asset is not None, page
            asset_status, _ = await http_status(base + asset.group(1))
            ws_url = re.search(r'data-session-websocket-url="(ws://[^"]+)"', page)
            assert ws_url is not None
            drawn = await session_output(ws_url.group(1).replace("localhost", "127.0.0.1"),
                                         ours, b"Only the served page", 90)
            return status, page, asset_status, drawn

        status, page, asset_status, drawn = asyncio.run(the_page())
        assert status == 200 and asset_status == 200
        assert f"/ws/{token}" in page and f"/static/{token}/" in page
        assert b"Only the served page" in drawn  # a working session: the app drew the store
    finally:
        err = served.stop()
    lines = [line for line in err.splitlines() if "refused" in line]
    assert len(lines) == len(refused)
    assert all(line.startswith("memharness-tui serve: refused GET ") for line in lines)
    assert token not in err and wrong not in err
    assert any("Origin 'http://evil.example'" in line for line in lines)


# ----- --readonly serve: exactly as read-only as asked, and a pre-flight never writes -----------


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """What ``serve`` would run per browser session, instead of serving."""
    calls: list[list[str]] = []
    monkeypatch.setattr(serve_mod, "serve",
                        lambda port, app_args, **_kw: calls.append(app_args))
    return calls


@pytest.mark.parametrize("where", ["before", "after"])
def test_readonly_serve_of_a_v4_file_refuses_and_leaves_it_byte_identical(
        tmp_path: Path, captured: list[list[str]], capsys: pytest.CaptureFixture[str],
        where: str) -> None:
    db = tmp_path / "v4.db"
    shutil.copy(FIXTURES / "v4.db", db)
    before = digest(db)
    argv = (["--db", str(db), "--readonly", "serve", "--port", str(free_port())] if where ==
            "before" else ["--db", str(db), "serve", "--readonly", "--port", str(free_port())])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "schema version 4" in err and "nothing was changed" in err and err.count("\n") == 1
    assert digest(db) == before and sorted(p.name for p in tmp_path.iterdir()) == ["v4.db"]
    assert captured == []


def test_readonly_serve_runs_the_app_read_only(tmp_path: Path,
                                               captured: list[list[str]]) -> None:
    db = tmp_path / "v5.db"
    shutil.copy(FIXTURES / "v5.db", db)
    before = digest(db)
    assert main(["--db", str(db), "--readonly", "serve", "--port", str(free_port())]) == 0
    assert main(["--db", str(db), "serve", "--readonly", "--port", str(free_port())]) == 0
    assert captured == [["--db", str(db), "--readonly"]] * 2
    assert "--readonly" in serve_mod.serve_command(captured[0]).split()
    assert digest(db) == before


def test_serve_pre_flight_never_migrates(tmp_path: Path, captured: list[list[str]]) -> None:
    """Without --readonly the served app may migrate the file when a session opens it; the
    check before serving only looks."""
    db = tmp_path / "v4.db"
    shutil.copy(FIXTURES / "v4.db", db)
    before = digest(db)
    assert main(["--db", str(db), "serve", "--port", str(free_port())]) == 0
    assert captured == [["--db", str(db)]]
    assert digest(db) == before and sorted(p.name for p in tmp_path.iterdir()) == ["v4.db"]


def test_serve_pre_flight_still_refuses_a_foreign_database(
        tmp_path: Path, captured: list[list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    import sqlite3

    db = tmp_path / "other.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    before = digest(db)
    assert main(["--db", str(db), "serve", "--port", str(free_port())]) == 2
    assert "not a memharness store" in capsys.readouterr().err
    assert digest(db) == before and captured == []
