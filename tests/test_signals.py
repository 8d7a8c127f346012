"""SIGTERM and SIGHUP end the app the way ``q`` does (issue #20, item 8), seen through a pty:
the terminal is restored (echo on, alternate screen left, mouse reporting off) and the pass
process is stopped."""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from memharness_tui.store import Store

LEAVE_ALT_SCREEN = b"\x1b[?1049l"
ENTER_ALT_SCREEN = b"\x1b[?1049h"
MOUSE_OFF = (b"\x1b[?1000l", b"\x1b[?1003l", b"\x1b[?1006l")


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


class PtyApp:
    """The app (``python -m memharness_tui --db DB``) on a pty of 120×36."""

    def __init__(self, tmp_path: Path, db: Path) -> None:
        self.master, self.slave = os.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor",
               "MEMHARNESS_TUI_CONFIG_DIR": str(tmp_path / "config"),
               "MEMHARNESS_TUI_CACHE_DIR": str(tmp_path / "cache")}
        env.pop("TEXTUAL", None)
        self.proc = subprocess.Popen([sys.executable, "-m", "memharness_tui", "--db", str(db)],
                                     stdin=self.slave, stdout=self.slave, stderr=self.slave,
                                     env=env, start_new_session=True, close_fds=True)
        self.output = b""

    def read_until(self, want: bytes, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while want not in self.output and time.monotonic() < deadline:
            self._read(0.2)
        return want in self.output

    def settle(self, quiet: float = 1.5, seconds: float = 60) -> None:
        """Read until the app has drawn nothing for ``quiet`` seconds (its panes mounted)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            size = len(self.output)
            end = time.monotonic() + quiet
            while time.monotonic() < end:
                self._read(0.1)
            if len(self.output) == size:
                return

    def _read(self, wait: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], wait)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: nobody holds the pty's other side any more
            return False
        self.output += chunk
        return bool(chunk)

    def wait_exit(self, seconds: float) -> int | None:
        deadline = time.monotonic() + seconds
        while self.proc.poll() is None and time.monotonic() < deadline:
            self._read(0.1)
        while self._read(0.05) and select.select([self.master], [], [], 0)[0]:
            pass  # what the app wrote last
        return self.proc.poll()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        os.close(self.master)
        os.close(self.slave)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_termination_signal_ends_the_app_as_q_does(tmp_path: Path, signum: int) -> None:
    db = tmp_path / "memory.db"
    with Store.open(str(db)) as store:
        store.remember("signals", "Terminal restored after SIGTERM")
    app = PtyApp(tmp_path, db)
    try:
        assert app.read_until(b"Terminal restored after SIGTERM", 90), app.output[-2000:]
        assert not termios.tcgetattr(app.slave)[3] & termios.ECHO  # the app made it raw
        os.write(app.master, b"4")  # the staleness tab: its pass process starts
        deadline = time.monotonic() + 60
        while not children_of(app.proc.pid) and time.monotonic() < deadline:
            app._read(0.2)
        workers = children_of(app.proc.pid)
        assert workers, "the staleness tab started no pass process"
        app.settle()
        drawn = len(app.output)

        sent = time.monotonic()
        os.kill(app.proc.pid, signum)
        code = app.wait_exit(30)
        took = time.monotonic() - sent
        assert code == 0, (code, app.output[-1500:])
        assert took < 30
        tail = app.output[drawn:]
        assert tail.rfind(LEAVE_ALT_SCREEN) > tail.rfind(ENTER_ALT_SCREEN)
        for off in MOUSE_OFF:
            assert off in tail
        assert app.output.rstrip(b"\r\n").endswith(tail[tail.rfind(LEAVE_ALT_SCREEN):]
                                                    .rstrip(b"\r\n"))
        attrs = termios.tcgetattr(app.slave)
        assert attrs[3] & termios.ECHO and attrs[3] & termios.ICANON  # cooked again
        deadline = time.monotonic() + 10
        while any(running(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(running(pid) for pid in workers)  # the pass process was stopped
    finally:
        app.close()


def test_outside_the_app_the_signals_keep_their_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """The handlers live only while the app runs (a signal before it starts or after it
    ended, or in another program using this module, is not swallowed)."""
    from memharness_tui.tui.signals import QUIT_SIGNALS, quit_on_signals

    before = {sig: signal.getsignal(sig) for sig in QUIT_SIGNALS}
    with quit_on_signals(object()):  # type: ignore[arg-type]
        assert all(signal.getsignal(sig) not in (before[sig], signal.SIG_DFL)
                   for sig in QUIT_SIGNALS)
    assert {sig: signal.getsignal(sig) for sig in QUIT_SIGNALS} == before


def test_a_hangup_after_the_terminal_is_gone_still_ends_the_app_promptly(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    with Store.open(str(db)) as store:
        store.remember("signals", "The terminal closes under the app")
    app = PtyApp(tmp_path, db)
    try:
        assert app.read_until(b"The terminal closes under the app", 90)
    finally:
        os.close(app.master)  # the terminal window closes: nobody reads the app any more
        os.close(app.slave)
    os.kill(app.proc.pid, signal.SIGHUP)
    try:
        assert app.proc.wait(30) == 0
    finally:
        if app.proc.poll() is None:
            app.proc.kill()
            app.proc.wait(10)


async def test_the_quit_waits_for_a_widget_that_is_still_mounting() -> None:
    """A key press waits behind the focused widget; the signal's quit waits (bounded) for the
    screen to settle, instead of closing a pane mid-mount (whose on_mount then finds its
    children gone: an internal error on the way out)."""
    import asyncio

    from textual.app import App
    from textual.widget import Widget
    from textual.widgets import Static

    from memharness_tui.tui import signals

    class SlowPane(Widget):
        built = False

        async def on_mount(self) -> None:
            await asyncio.sleep(0.3)
            await self.mount(Static("inside"))
            self.built = True

    class Small(App[None]):
        def compose(self):  # noqa: ANN202
            yield Static("app")

    app = Small()
    async with app.run_test() as pilot:
        pane = SlowPane()
        app.screen.mount(pane)  # not awaited: still mounting when the signal comes
        signals._quit(app)
        [task] = signals._quitting
        await task
        assert pane.built  # the quit came after the pane was whole
        await pilot.pause()
        assert app.return_code == 0  # and then it quit


async def test_the_wait_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from textual.app import App
    from textual.widget import Widget
    from textual.widgets import Static

    from memharness_tui.tui import signals

    monkeypatch.setattr(signals, "SETTLE_SECONDS", 0.2)

    release = asyncio.Event()

    class StuckPane(Widget):
        async def on_mount(self) -> None:
            await release.wait()

    class Small(App[None]):
        def compose(self):  # noqa: ANN202
            yield Static("app")

    app = Small()
    async with app.run_test():
        app.screen.mount(StuckPane())
        started = asyncio.get_running_loop().time()
        await signals._settle(app)
        assert asyncio.get_running_loop().time() - started < 5
        release.set()
