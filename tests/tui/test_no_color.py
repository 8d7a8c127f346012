"""Issue #21: ``NO_COLOR=1`` (Textual's monochrome filter) must not crash any screen.

The filter reads every drawn segment's style; a segment drawn without one (a table header's
labels went out so) ended the app at start with ``'NoneType' object has no attribute 'color'``.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memharness_tui.store import FakeClock
from memharness_tui.tui.screens.detail import FactDetailScreen
from memharness_tui.tui.screens.help import HelpScreen

from .conftest import CLOCK_START, build_sample, make_app, settle


async def test_every_main_screen_draws_under_no_color(sample, config_dir, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")  # read (and removed) by App.__init__
    store, info = sample
    app = make_app(store, config_dir)
    assert app.no_color
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert "ID" in app.export_screenshot()
        for key in ("2", "3", "4", "1"):
            await pilot.press(key)
            await settle(pilot)
        await pilot.press("enter")  # the highlighted fact's detail
        await settle(pilot)
        assert isinstance(app.screen, FactDetailScreen)
        await pilot.press("escape", "question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape", "t")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        svg = app.export_screenshot()
    assert "Recall" in svg


def _read_until(fd: int, needles: tuple[bytes, ...], timeout: float) -> bytes:
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not any(n in out for n in needles):
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    return out


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_a_real_start_under_no_color(tmp_path: Path):
    """The installed command in a real terminal (a pty), as a user starts it."""
    store, _ = build_sample(tmp_path / "memory.db", FakeClock(CLOCK_START, 60_000))
    store.close()
    env = {**os.environ, "NO_COLOR": "1", "TERM": "xterm-256color", "COLUMNS": "120",
           "LINES": "36", "MEMHARNESS_TUI_CACHE_DIR": str(tmp_path / "cache"),
           "MEMHARNESS_TUI_CONFIG_DIR": str(tmp_path / "config")}
    master, slave = pty.openpty()
    import fcntl
    import struct
    import termios

    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "memharness_tui", "--db",
                             str(tmp_path / "memory.db")],
                            stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    try:
        # the recall table's header is drawn once the first results are in
        shown = _read_until(master, (b"Predicate", b"internal error"), timeout=60)
        assert b"internal error" not in shown
        assert b"Predicate" in shown
        time.sleep(0.5)
        os.write(master, b"q")
        rest = _read_until(master, (b"internal error",), timeout=5)
        assert proc.wait(timeout=30) == 0
        assert b"internal error" not in rest
        assert not (tmp_path / "cache" / "crash.log").exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
