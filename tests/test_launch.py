"""The front door (``memharness_tui/launch.py``): a plain launch of the app skips the full
parser, and says and does exactly what the full parser would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memharness_tui import cli, launch
from memharness_tui.store import Store

PLAIN = [
    [],
    ["--db", "a.db"],
    ["--db=a.db"],
    ["--readonly"],
    ["--readonly", "--db", "a.db"],
    ["--db", "a.db", "--readonly", "--db=b.db"],  # the last --db wins, as in argparse
    ["--db", "with space.db", "--readonly", "--readonly"],
    ["--db="],
]
NOT_PLAIN = [
    ["recall"],
    ["--db", "a.db", "recall", "x"],
    ["--help"],
    ["-h"],
    ["--version"],
    ["--demo"],
    ["--demo", "--reset"],
    ["--db"],  # argparse: "expected one argument"
    ["--db", "-x.db"],  # argparse reads -x.db as an option
    ["--read"],  # argparse's abbreviation of --readonly
    ["--readonly", "serve"],
    ["--db", "a.db", "--bogus"],
    ["stray"],
]


@pytest.mark.parametrize("argv", PLAIN, ids=repr)
def test_a_plain_launch_is_read_as_the_full_parser_reads_it(argv: list[str]) -> None:
    args = cli.build_parser().parse_args(argv)
    assert args.command is None and not args.demo and not args.reset
    assert launch.plain_launch(argv) == (args.db, args.readonly)


@pytest.mark.parametrize("argv", NOT_PLAIN, ids=repr)
def test_anything_else_goes_to_the_full_parser(argv: list[str]) -> None:
    assert launch.plain_launch(argv) is None


def _bad_dbs(tmp_path: Path) -> dict[str, str]:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    fifo = tmp_path / "a-fifo"
    os.mkfifo(fifo)
    return {
        "a folder": str(folder),
        "a FIFO": str(fifo),
        "a missing folder": str(tmp_path / "no-such-folder" / "memory.db"),
        "empty": "  ",
        "undecodable": str(tmp_path / "bad\udcff.db"),
    }


@pytest.mark.parametrize("case", ["a folder", "a FIFO", "a missing folder", "empty",
                                  "undecodable"])
@pytest.mark.parametrize("readonly", [False, True])
def test_a_bad_db_gets_the_full_parsers_sentence_and_nothing_is_created(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        case: str, readonly: bool) -> None:
    opened: list[object] = []
    monkeypatch.setattr(launch, "open_app", lambda *args, **kwargs: opened.append(args) or 0)
    db = _bad_dbs(tmp_path)[case]
    argv = ["--db", db] + (["--readonly"] if readonly else [])
    before = sorted(p.name for p in tmp_path.rglob("*"))
    assert cli.main(argv) == 2
    full = capsys.readouterr()
    assert launch.main(argv) == 2
    fast = capsys.readouterr()
    assert fast.err == full.err and fast.err.startswith("memharness-tui: error: ")
    assert fast.out == "" and "Traceback" not in fast.err
    assert opened == []  # the app was never started
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_the_default_db_is_checked_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "memory.db"
    folder.mkdir()
    monkeypatch.setenv("MEMHARNESS_DB", str(folder))
    assert launch.main([]) == 2
    assert "memharness-tui: error: " in capsys.readouterr().err


def test_an_error_inside_the_app_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    def broken(*args: object, **kwargs: object) -> int:
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(launch, "open_app", broken)
    assert launch.main(["--db", str(tmp_path / "m.db")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("memharness-tui: internal error: RuntimeError: boom")
    assert err.count("\n") == 1 and "Traceback" not in err


PROBE = """
import sys
import memharness_tui.tui.app as app_mod
from memharness_tui.tui import app_early

def probe(db_path, *, readonly=False, demo=False):
    app_early._pending.recall.result(timeout=60)  # the opening search has run meanwhile
    loaded = ("memharness_tui.cli", "memharness_tui.staleness.git", "pygit2", "numpy",
              "memharness_tui.hygiene")
    print(db_path, readonly, sorted(m for m in loaded if m in sys.modules))
    return 0

app_mod.run_app = probe
sys.argv = ["memharness-tui", *sys.argv[1:]]
import runpy
runpy.run_module("memharness_tui", run_name="__main__")
"""


def test_python_m_launches_without_the_subcommands_modules(tmp_path: Path) -> None:
    """`python -m memharness_tui --db X` starts the early open and the app, and neither the
    full parser, the staleness engine (pygit2), hygiene nor numpy (sqlite-vec's package) is
    imported by the time the app starts and the opening search has run."""
    db = tmp_path / "memory.db"
    store = Store.open(str(db))
    store.remember("launch", "The app opens on this store")
    store.close()
    out = subprocess.run([sys.executable, "-c", PROBE, "--db", str(db), "--readonly"],
                         capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == f"{db} True []", out.stderr


def test_the_console_script_is_the_front_door() -> None:
    text = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert 'memharness-tui = "memharness_tui.launch:main"' in text
