"""Fact text on a terminal is shown, not obeyed; in a pipe it is the agent's exact text."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from memharness_tui.cli_text import json_visible, one_line, visible
from memharness_tui.store import Store

# Clear screen, OSC 52 clipboard write, bidi override, a C1 CSI, DEL, and a newline that
# would forge a line of output.
HOSTILE = "ok\x1b[2J\x1b]52;c;aGk=\x07 \u202egnp.exe \x9b31m\x7f\nforged [#99] line"
SHOWN = "ok\\x1b[2J\\x1b]52;c;aGk=\\x07 \\u202egnp.exe \\x9b31m\\x7f\\nforged [#99] line"
RAW_CONTROLS = ("\x1b", "\x07", "\u202e", "\x9b", "\x7f")


@pytest.fixture
def hostile_db(tmp_path: Path) -> Path:
    db = tmp_path / "m.db"
    with Store.open(str(db)) as store:
        store.remember("user", HOSTILE, source_ref="ref\x1b[31m")
    return db


def _cli(*argv: str) -> list[str]:
    return [sys.executable, "-m", "memharness_tui", *argv]


def _run_on_a_terminal(argv: list[str]) -> tuple[int, str]:
    """Run with stdout on a pseudo-terminal; return the exit code and what reached the terminal."""
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(argv, stdout=slave, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    finally:
        os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed its side of the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    with proc.stderr:
        proc.stderr.read()
    code = proc.wait()
    return code, b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


@pytest.mark.parametrize(
    "argv",
    [["recall", "forged"], ["why", "1"], ["diff", "2000-01-01"], ["stats"]],
)
def test_a_terminal_sees_escapes_not_control_characters(hostile_db: Path, argv: list[str]) -> None:
    code, shown = _run_on_a_terminal(_cli(*argv, "--db", str(hostile_db)))
    assert code == 0, shown
    for ch in RAW_CONTROLS:
        assert ch not in shown
    if argv[0] != "stats":
        assert SHOWN in shown
        assert "ref=ref\\x1b[31m" in shown
        # the fact's own newline is shown as \n: no line of output starts with the forged text
        assert not any(line.startswith("forged") for line in shown.splitlines())


def test_a_terminal_sees_json_with_every_control_escaped(hostile_db: Path) -> None:
    code, shown = _run_on_a_terminal(_cli("why", "1", "--json", "--db", str(hostile_db)))
    assert code == 0
    for ch in RAW_CONTROLS:
        assert ch not in shown
    assert json.loads(shown)["fact"]["fact"] == HOSTILE  # the same value, safely written


@pytest.mark.parametrize("argv", [["recall", "forged"], ["why", "1"], ["diff", "2000-01-01"]])
def test_a_pipe_gets_the_exact_text(hostile_db: Path, argv: list[str]) -> None:
    done = subprocess.run(
        _cli(*argv, "--db", str(hostile_db)), capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode("utf-8")
    assert HOSTILE in out
    assert "ref=ref\x1b[31m" in out


def test_error_lines_quote_hostile_text_on_one_line(hostile_db: Path) -> None:
    with Store.open(str(hostile_db)) as store:
        store.revise(1, "second\nline \x1b[2J")
    # revising the superseded #1 names the head and quotes its text
    done = subprocess.run(
        _cli("revise", "1", "x", "--db", str(hostile_db)), capture_output=True, check=False
    )
    assert done.returncode == 2
    err = done.stderr.decode("utf-8")
    assert err.count("\n") == 1 and "\x1b" not in err
    assert "second\\nline \\x1b[2J" in err


def test_visible_keeps_ordinary_text() -> None:
    text = "naïve café — 東京 \\x1b stays a backslash"
    assert visible(text) == text
    assert visible("a\tb\rc") == "a\\tb\\rc"
    assert one_line("") == "(no message)"
    assert json_visible('"\x9b\u2066"') == '"\\u009b\\u2066"'
