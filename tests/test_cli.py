"""The headless CLI: SPEC §9 text or JSON, exit 0 on success, 2 and one line on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memharness_tui.cli import main
from memharness_tui.paths import default_db_path
from tests.store.helpers import copy_fixture, dump_facts


@pytest.fixture
def v5(tmp_path: Path) -> Path:
    return copy_fixture("v5.db", tmp_path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_stats_prints_the_reference_text(v5: Path, capsys) -> None:
    code, out, err = run(capsys, "stats", "--db", str(v5), "--now", "2026-01-10T22:00:55Z")
    assert code == 0, err
    assert out == (
        f"DB: {v5}\nTotal facts ever: 43\nCurrent beliefs: 30\nTop subjects:\n"
        "  project:memharness: 8\n  user: 8\n  project:acme: 7\n  team:platform: 4\n"
        "  person:alice: 3\n"
    )


def test_recall_text_and_json(v5: Path, capsys) -> None:
    code, out, _ = run(capsys, "recall", "engineer", "--db", str(v5), "--now", "2026-01-10T22:00:52Z")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Current beliefs:"
    assert lines[1].startswith("[#41] user (works_at) : works at Outerport as a principal engineer")
    code, out, _ = run(
        capsys, "recall", "engineer", "--db", str(v5), "--json", "--now", "2026-01-10T22:00:52Z"
    )
    data = json.loads(out)
    assert data["ids"] == [41, 25, 28]
    assert data["facts"][0]["subject"] == "user"


def test_recall_never_writes_by_default(v5: Path, capsys) -> None:
    before = dump_facts(v5)
    assert run(capsys, "recall", "engineer", "--db", str(v5))[0] == 0
    assert dump_facts(v5) == before


def test_recall_reinforce_updates_last_accessed(v5: Path, capsys) -> None:
    before = next(r for r in dump_facts(v5) if r["id"] == 7)["last_accessed_at"]
    code, _, err = run(capsys, "recall", "peanuts", "--db", str(v5), "--reinforce")
    assert code == 0, err
    after = next(r for r in dump_facts(v5) if r["id"] == 7)["last_accessed_at"]
    assert after is not None and (before is None or after > before)


def test_as_of_recall_shows_times(v5: Path, capsys) -> None:
    code, out, _ = run(
        capsys, "recall", "--subject", "user", "--as-of", "2026-01-06", "--db", str(v5), "--limit", "2"
    )
    assert code == 0
    assert out.splitlines()[0] == "Beliefs as of 2026-01-06T00:00:00.000Z:"
    assert "learned 2026-01-05" in out


def test_why_and_diff(v5: Path, capsys) -> None:
    code, out, _ = run(capsys, "why", "40", "--db", str(v5))
    assert code == 0
    assert out.splitlines()[1].startswith("  superseded ← [#34] project:acme (language)")
    code, out, _ = run(capsys, "diff", "2026-01-10", "--db", str(v5))
    assert code == 0
    assert out.startswith("Memory changes since 2026-01-10T00:00:00.000Z:\n\nLEARNED (1):")


def test_write_commands_print_the_agent_tools_text(tmp_path: Path, capsys) -> None:
    # The reference's remember / revise / forget tools answer with exactly these lines.
    db = str(tmp_path / "m.db")
    code, out, err = run(capsys, "remember", "user", "likes tea", "--db", db, "--importance", "7")
    assert code == 0, err
    assert out == "Remembered as fact #1.\n"
    assert dump_facts(Path(db))[0]["importance"] == 7
    code, out, _ = run(capsys, "revise", "1", "likes green tea", "--db", db)
    assert code == 0 and out == "Fact #1 superseded by #2.\n"
    code, out, _ = run(capsys, "revise", "2", "likes matcha", "--db", db, "--json")
    assert code == 0 and json.loads(out)["new_id"] == 3
    code, out, _ = run(capsys, "forget", "--id", "3", "--db", db)
    assert code == 0 and out == "Retracted 1 fact(s).\n"
    code, out, _ = run(capsys, "forget", "--id", "3", "--db", db)
    assert code == 0 and out == "Retracted 0 fact(s).\n"
    code, out, _ = run(capsys, "forget", "--id", "3", "--db", db, "--json")
    assert json.loads(out) == {"retracted_count": 0, "retracted_ids": []}


def test_a_db_in_a_missing_folder_is_refused_and_nothing_is_created(
    tmp_path: Path, capsys
) -> None:
    db = tmp_path / "new" / "m.db"
    code, out, err = run(capsys, "remember", "user", "likes tea", "--db", str(db))
    assert code == 2 and out == ""
    assert err == (
        f"memharness-tui: error: no database at {db}: the folder {db.parent} does not exist; "
        "nothing was created (check the path, or create the folder first)\n"
    )
    assert not db.parent.exists()


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["remember", "", "x"], "subject must be a non-empty string"),
        (["remember", "s", "x", "--confidence", "1.5"], "confidence must be a number in [0, 1]"),
        (["remember", "s", "x", "--importance", "5.5"], "importance must be an integer in [1, 10]"),
        (["remember", "s", "x", "--valid-from", "2026-02-30"], "--valid-from is not a valid date"),
        (["revise", "99", "x"], "no fact #99"),
        (["why", "99"], "no fact #99"),
        (["forget", "--source-ref", "  "], "refusing to retract everything"),
        (["recall", "--limit", "0"], "limit must be a positive integer"),
        (["recall", "--as-of", "yesterday"], "--as-of is not a valid ISO 8601"),
        (["recall", "--kind", "weird"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    v5: Path, capsys, argv: list[str], needle: str
) -> None:
    before = dump_facts(v5)
    code, out, err = run(capsys, *argv, "--db", str(v5))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("memharness-tui: error: ")
    assert needle in err
    assert dump_facts(v5) == before


def test_corrupt_file_is_one_clear_line(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite at all" * 100)
    before = bad.read_bytes()
    code, _, err = run(capsys, "stats", "--db", str(bad))
    assert code == 2
    assert "not a usable SQLite database" in err and err.count("\n") == 1
    assert bad.read_bytes() == before


def test_missing_db_for_a_read_is_not_created(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "nope.db"
    code, _, err = run(capsys, "stats", "--db", str(missing))
    assert code == 2 and "no database at" in err
    assert not missing.exists()


def test_db_before_the_subcommand_is_honoured(tmp_path: Path, capsys) -> None:
    db = tmp_path / "a.db"
    default = Path(default_db_path())  # where the autouse fixture points SPEC §1's default
    assert not default.exists()
    code, _, err = run(capsys, "--db", str(db), "remember", "s", "hello")
    assert code == 0, err
    assert not default.exists(), "the write went to the default store"
    assert [r["fact"] for r in dump_facts(db)] == ["hello"]
    code, out, _ = run(capsys, "--db", str(db), "stats")
    assert code == 0 and f"DB: {db}" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--readonly", "remember", "s", "f"], "--readonly cannot be combined with remember"),
        (["recall", "x", "--reinforce", "--now", "2026-01-01"], "--now is for reads"),
        (["remember", "s", "f", "--now", "2099-01-01"], "--now is for reads; it cannot be combined"),
        (["why", "99999999999999999999"], "must be an integer fact id"),
        (["recall", "--limit", "99999999999999999999"], "limit must be a positive integer"),
        (["remember", "s\udcff", "f"], "lone surrogate"),
    ],
)
def test_more_bad_input_exits_2_without_writing(v5: Path, capsys, argv, needle) -> None:
    before = dump_facts(v5)
    code, _, err = run(capsys, *argv, "--db", str(v5))
    assert code == 2, err
    assert needle in err and err.count("\n") == 1
    assert dump_facts(v5) == before


def test_revise_or_forget_on_a_mistyped_db_creates_nothing(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "typo" / "memroy.db"
    for argv in (["revise", "1", "x"], ["forget", "--id", "1"]):
        code, _, err = run(capsys, *argv, "--db", str(missing))
        assert code == 2 and "no database at" in err
    assert not missing.parent.exists()


def test_now_pins_the_clock_for_reads(v5: Path, capsys) -> None:
    # The file's newer tx_at does not drag "now" forward: at 09:00:03.5 on day one only
    # #1, #4 and the backdated #9 (valid from 2024) are current (#2, #3 were superseded).
    code, out, _ = run(capsys, "stats", "--db", str(v5), "--now", "2026-01-05T09:00:03.500Z")
    assert code == 0
    assert "Current beliefs: 3\n" in out


def test_serve_on_a_busy_port_is_one_line_before_serving(v5: Path, capsys) -> None:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, out, err = run(capsys, "serve", "--port", str(port), "--db", str(v5))
    assert code == 2 and out == ""
    assert err == (
        f"memharness-tui: error: port {port} is already in use on localhost; "
        "stop what is using it or choose another with --port\n"
    )


@pytest.mark.parametrize("port", ["0", "65536", "８０００"])
def test_serve_refuses_a_port_out_of_range(v5: Path, capsys, port: str) -> None:
    code, _, err = run(capsys, "serve", "--port", port, "--db", str(v5))
    assert code == 2 and err.count("\n") == 1 and "--port must be" in err


def test_version_names_the_sqlite_library(capsys) -> None:
    from memharness_tui import __version__
    from memharness_tui.store.driver import sqlite3

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"memharness-tui {__version__} (SQLite ")
    assert sqlite3.sqlite_version in out  # the library the store runs on (store/driver.py)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["recall", "--max-tokens", "0"], "--max-tokens must be a positive integer, got 0"),
        (["recall", "--limit", "٣"], "--limit must be a number written with the digits 0-9, got '٣'"),
        (["forget", "--id", "x"], "--id must be an integer written with the digits 0-9, got 'x'"),
        (["revise", "40", "x", "--source-commit", "\udcff"],
         "--source-commit is not valid UTF-8 text: byte 0xff cannot be decoded "
         "(it arrives as a lone surrogate); nothing was done"),
        (["remember", "s", "f", "--confidence", "-inf"],
         "--confidence must be a number in [0, 1], got -inf"),
        (["remember", "s", "f", "--confidence", "٠.٥"],
         "--confidence must be a number written with the digits 0-9, got '٠.٥'"),
        (["recall", "x", "--now", ""],
         "--now is not a valid ISO 8601 date or datetime: '' "
         "(expected e.g. 2026-01-31 or 2026-01-31T14:05:00Z)"),
    ],
)
def test_messages_name_the_flag_the_user_typed(v5: Path, capsys, argv, message) -> None:
    code, out, err = run(capsys, *argv, "--db", str(v5))
    assert (code, out, err) == (2, "", f"memharness-tui: error: {message}\n")


def test_an_integral_limit_is_accepted_like_importance(v5: Path, capsys) -> None:
    code, out, err = run(
        capsys, "recall", "--subject", "user", "--limit", "2.0", "--max-tokens", "4e3",
        "--db", str(v5), "--json",
    )
    assert code == 0, err
    assert len(json.loads(out)["ids"]) == 2


@pytest.mark.parametrize("argv", [["--help"], ["recall", "--help"], ["remember", "--help"]])
def test_help_says_where_the_database_is_in_words(capsys, argv: list[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "SPEC" not in out
    assert "~/.memharness/memory.db" in " ".join(out.split())
