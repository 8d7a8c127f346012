"""``memharness-tui serve --port P --db PATH``: the app in a browser's place, over its WebSocket.

The client does what the served page does: loads the page with the printed token, opens the
WebSocket the page names (from this server's origin), reads what the app draws into a VT
screen and types keys as ``["stdin", …]`` messages. Then the server stops on SIGTERM.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import aiohttp

from .stores import reference_store
from .terminal import COLS, ROWS, TIMEOUT, ScreenReader, console_script, session_env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def read_url(proc: subprocess.Popen[bytes]) -> str:
    """The address ``serve`` prints once it listens."""
    assert proc.stdout is not None
    deadline = time.monotonic() + TIMEOUT
    seen = b""
    while time.monotonic() < deadline and proc.poll() is None:
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if ready:
            line = proc.stdout.readline()
            seen += line
            found = re.search(rb"http://localhost:\d+/\?token=[A-Za-z0-9_-]+", line)
            if found:
                return found.group().decode()
    raise AssertionError(f"serve printed no address (exit {proc.poll()}): {seen!r}")


async def until(ws: aiohttp.ClientWebSocketResponse, screen: ScreenReader,
                seen: Callable[[str], bool], what: str) -> None:
    """Read what the app draws until the screen shows ``what``."""
    deadline = time.monotonic() + TIMEOUT
    while not seen(screen.text()):
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"never saw {what} within {TIMEOUT:.0f} s; the screen:\n"
                                 f"{screen.dump()}")
        try:
            msg = await ws.receive(timeout=left)
        except TimeoutError:
            continue
        if msg.type == aiohttp.WSMsgType.BINARY:
            screen.feed(msg.data)
        elif msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED,
                          aiohttp.WSMsgType.ERROR):
            raise AssertionError(f"the session closed while waiting for {what}; the screen:\n"
                                 f"{screen.dump()}")


async def test_serve_draws_the_store_and_answers_keys(tmp_path: Path) -> None:
    db = reference_store(tmp_path / "store" / "memory.db")
    env = session_env(tmp_path)
    port = free_port()
    proc = subprocess.Popen([str(console_script()), "serve", "--port", str(port), "--db",
                             str(db)], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        url = read_url(proc)
        token = url.rsplit("token=", 1)[1]
        base, origin = f"http://127.0.0.1:{port}", f"http://localhost:{port}"
        screen = ScreenReader(COLS, ROWS)
        async with aiohttp.ClientSession() as session:
            async with session.get(f"{base}/?token={token}") as resp:
                assert resp.status == 200
                page = await resp.text()
            found = re.search(r'data-session-websocket-url="(ws://[^"]+)"', page)
            assert found is not None, page
            ws_url = found.group(1).replace("localhost", "127.0.0.1")
            async with session.ws_connect(f"{ws_url}?width={COLS}&height={ROWS}",
                                          headers={"Origin": origin}) as ws:
                await until(ws, screen, lambda s: "43 total" in s and "30 live" in s,
                            "the header's counts")
                await until(ws, screen, lambda s: "Recall [1]" in s, "the tabs")
                await ws.send_str(json.dumps(["stdin", "/peanuts"]))
                await until(ws, screen, lambda s: "1 result  ·  for peanuts" in s
                            and "is allergic to peanuts" in s, "the search's one result")
                await ws.send_str(json.dumps(["stdin", "\x1b[B"]))  # Down: to the results
                await until(ws, screen, lambda s: "t Time travel" in s.splitlines()[-1],
                            "focus on the results")
                await ws.send_str(json.dumps(["stdin", "2"]))
                await until(ws, screen, lambda s: "person:alice  ·  current beliefs" in s,
                            "the Subjects tab")
                await ws.send_str(json.dumps(["stdin", "?"]))
                await until(ws, screen, lambda s: "Subjects tab" in s and "Keys" in s,
                            "the keys that work on the Subjects tab")
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)  # as Ctrl+C: the server stops its sessions
        try:
            status = proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(TIMEOUT)
            raise
        finally:
            assert proc.stdout is not None and proc.stderr is not None
            with proc.stdout, proc.stderr:
                err = proc.stderr.read().decode(errors="replace")
    assert status == 0, err
