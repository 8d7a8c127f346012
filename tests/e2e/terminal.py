"""The installed console script in a real pseudo-terminal, read through a VT parser.

A :class:`Terminal` starts ``.venv/bin/memharness-tui`` (the script pip installed beside
``sys.executable``, the door a user opens) on a pty of 120×36 with ``TERM=xterm-256color``,
feeds everything it writes to a ``pyte`` screen on a reader thread, and lets a test type raw
keys and wait for what a person would see. Nothing here sleeps for a duration: every wait
polls the screen (or the file) for the state it needs, up to a generous bound, and fails
with the screen as it was.
"""

from __future__ import annotations

import fcntl
import os
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import pyte

COLS, ROWS = 120, 36
TIMEOUT = 60.0
"""Seconds any one wait may take: far above what a step needs on a loaded machine, so a
failure means the state never came, not that it came late."""

# raw keys, as a terminal sends them
ENTER = "\r"
ESC = "\x1b"
TAB = "\t"
DOWN = "\x1b[B"
UP = "\x1b[A"
DELETE = "\x1b[3~"
F7 = "\x1b[18~"  # a TextArea's "select all"
CTRL_S = "\x13"
CTRL_T = "\x14"
CTRL_U = "\x15"

# what the app shows instead of doing the job: a failure at once, with the screen
ERROR_SIGNS = ("Something went wrong", "Traceback (most recent call last)")


def console_script() -> Path:
    """The installed ``memharness-tui``: beside the interpreter running the tests."""
    script = Path(sys.executable).parent / "memharness-tui"
    if not script.exists():
        raise AssertionError(f"the console script is not installed at {script} "
                             "(pip install -e '.[test]' puts it there)")
    return script


def session_env(root: Path, **extra: str | None) -> dict[str, str]:
    """A user's environment with every folder under ``root``: HOME, the XDG folders and the
    app's settings. ``extra`` adds variables; a value of None removes one."""
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(root / "xdg-config"),
        "XDG_DATA_HOME": str(root / "xdg-data"),
        "XDG_CACHE_HOME": str(root / "xdg-cache"),
        "MEMHARNESS_TUI_CONFIG_DIR": str(root / "config"),
        "TERM": "xterm-256color",
        "COLUMNS": str(COLS),
        "LINES": str(ROWS),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
    }
    if "TMPDIR" in os.environ:
        env["TMPDIR"] = os.environ["TMPDIR"]
    for key, value in extra.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def cli(env: Mapping[str, str], *args: str, cwd: Path | None = None) -> str:
    """Run the installed script headless (a read: ``why``, ``recall``, ``stats``); its stdout.
    Fails with its stderr when it exits non-zero."""
    done = subprocess.run([str(console_script()), *args], env=dict(env), cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise AssertionError(f"memharness-tui {' '.join(args)} exited {done.returncode}:\n"
                             f"{done.stderr}{done.stdout}")
    return done.stdout


Seen = str | re.Pattern[str] | Callable[[str], object]


def _matcher(want: Seen) -> Callable[[str], object]:
    if isinstance(want, str):
        return lambda text: want in text
    if isinstance(want, re.Pattern):
        return want.search
    return want


class ScreenReader:
    """A pyte screen fed from bytes, with waits on its text (shared by the pty and the
    WebSocket drivers)."""

    def __init__(self, cols: int = COLS, rows: int = ROWS) -> None:
        self.screen = pyte.Screen(cols, rows)
        self._stream = pyte.ByteStream(self.screen)
        self._changed = threading.Condition()
        self.fed = 0  # bytes fed so far

    def feed(self, data: bytes) -> None:
        with self._changed:
            self._stream.feed(data)
            self.fed += len(data)
            self._changed.notify_all()

    def text(self) -> str:
        """The screen as a person sees it: its lines, right-trimmed."""
        with self._changed:
            return "\n".join(line.rstrip() for line in self.screen.display)

    def dump(self) -> str:
        with self._changed:
            return self.dump_locked()

    def cursor_in(self, label: str) -> bool:
        """Whether the form row labelled ``label`` draws the text cursor: exactly one cell of
        the field after the label has a background of its own (the focused box's cursor
        cell; it blinks, so wait for it rather than look once)."""
        with self._changed:
            for y, line in enumerate(self.screen.display):
                found = re.search(rf"█ {re.escape(label)}\s{{2,}}", line)
                if found is None:
                    continue
                end = line.find("█", found.end())
                row = self.screen.buffer[y]
                bgs = [row[x].bg for x in range(found.end() - 1, end if end > 0 else len(line))]
                if not bgs:
                    return False
                common = max(set(bgs), key=bgs.count)
                return sum(bg != common for bg in bgs) == 1
            return False

    def _wait(self, seen: Callable[[str], object], what: str, timeout: float,
              gone: Callable[[], str | None]) -> object:
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                text = "\n".join(line.rstrip() for line in self.screen.display)
                found = seen(text)
                if found:
                    return found
                for sign in ERROR_SIGNS:
                    if sign in text:
                        raise AssertionError(f"the app shows {sign!r} while waiting for "
                                             f"{what}; the screen:\n{self.dump_locked()}")
                why = gone()
                if why is not None:
                    raise AssertionError(f"{why} while waiting for {what}; the screen:\n"
                                         f"{self.dump_locked()}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"never saw {what} within {timeout:.0f} s; the "
                                         f"screen:\n{self.dump_locked()}")
                self._changed.wait(min(left, 0.5))

    def dump_locked(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display if line.strip())


class Terminal(ScreenReader):
    """``memharness-tui ARGS`` on a pty of its own, in a session of its own."""

    def __init__(self, args: list[str], *, env: Mapping[str, str], cwd: Path,
                 cols: int = COLS, rows: int = ROWS) -> None:
        super().__init__(cols, rows)
        self.args = args
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        try:
            self.proc = subprocess.Popen([str(console_script()), *args], stdin=slave,
                                         stdout=slave, stderr=slave, cwd=cwd, env=dict(env),
                                         start_new_session=True, close_fds=True)
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        self.master = master
        self._eof = threading.Event()
        self._reader = threading.Thread(target=self._read, name="pty-reader", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            while True:
                try:
                    data = os.read(self.master, 1 << 16)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not data:
                    break
                self.feed(data)
        finally:
            self._eof.set()
            with self._changed:
                self._changed.notify_all()

    def _gone(self) -> str | None:
        if self._eof.is_set() or self.proc.poll() is not None:
            return f"the app exited (status {self.proc.poll()})"
        return None

    # ----- what a test does ----------------------------------------------------------------
    def send(self, keys: str) -> None:
        """Type ``keys`` (raw: ``ENTER``, ``ESC``, ``DOWN`` … or plain text)."""
        os.write(self.master, keys.encode())

    def wait_for(self, want: Seen, timeout: float = TIMEOUT, what: str | None = None) -> object:
        """Wait until the screen shows ``want`` (text, a regex, or a predicate on the screen's
        text); returns what matched. Fails at once when the app shows an error or exits."""
        return self._wait(_matcher(want), what or repr(want), timeout, self._gone)

    def wait_gone(self, text: str, timeout: float = TIMEOUT) -> None:
        self._wait(lambda screen: text not in screen, f"{text!r} to go", timeout, self._gone)

    def match(self, pattern: str, timeout: float = TIMEOUT) -> re.Match[str]:
        """Wait for ``pattern`` on the screen; its match."""
        found = self.wait_for(re.compile(pattern), timeout)
        assert isinstance(found, re.Match)
        return found

    def quit(self, timeout: float = TIMEOUT) -> int:
        """Press ``q`` and wait for the process to end; its exit status."""
        self.send("q")
        return self.wait_exit(timeout)

    def wait_exit(self, timeout: float = TIMEOUT) -> int:
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the app did not exit within {timeout:.0f} s; the screen:\n"
                                 f"{self.dump()}") from None
        self._reader.join(timeout)
        return status

    def close(self) -> None:
        """End the session (its whole process group) if it still runs, and free the pty."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(20)
            except ProcessLookupError:
                pass
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(20)
        self._reader.join(20)
        os.close(self.master)
