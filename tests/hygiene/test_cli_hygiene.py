"""``memharness-tui hygiene``: quiet when clean, gates with --fail-on, text is data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memharness_tui.cli import main
from memharness_tui.store import FakeClock, Store


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def clean(tmp_path: Path) -> str:
    path = str(tmp_path / "clean.db")
    with Store.open(path, clock=FakeClock()) as s:
        s.remember("user", "likes green tea")
        s.remember("user", "lives in Lisbon")
    return path


@pytest.fixture
def dirty(tmp_path: Path) -> str:
    path = str(tmp_path / "dirty.db")
    with Store.open(path, clock=FakeClock("2026-01-01T00:00:00.000Z")) as s:
        s.remember("user", "likes green tea in the morning")
        s.remember("user", "Likes GREEN tea, every morning! \x1b[2J [click](http://x) # h")
        s.remember("project:tako-vm", "a")
        s.remember("project:TakoVM", "b")
    return path


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_quiet_and_zero_when_there_is_nothing_to_say(
    capsys: pytest.CaptureFixture[str], clean: str, tmp_path: Path, fmt: str
) -> None:
    assert run(capsys, "hygiene", "--db", clean, "--format", fmt, "--fail-on", "any") == (0, "", "")
    # no store yet: nothing to garden (the gardener is silent too)
    missing = str(tmp_path / "none.db")
    assert run(capsys, "hygiene", "--db", missing, "--format", fmt) == (0, "", "")
    assert not Path(missing).exists()


def test_flags_print_and_exit_zero_without_a_gate(capsys: pytest.CaptureFixture[str], dirty: str) -> None:
    code, out, err = run(capsys, "hygiene", "--db", dirty)
    assert code == 0 and err == ""
    assert out.startswith("memharness hygiene — 2 flags over 4 beliefs:")
    assert "[user] #1, #2 (similarity up to 0.57)" in out
    assert "[project:TakoVM] (1)  vs  [project:tako-vm] (1)" in out
    assert "\x1b" not in out and "\\x1b[2J" in out  # shown, never obeyed


@pytest.mark.parametrize(("gate", "code"), [
    ("near-duplicate", 1), ("fragmentation", 1), ("code-map", 0), ("code-map,fragmentation", 1),
    ("any", 1), ("stale,unresolved", 0),
])
def test_fail_on_gates_on_the_kinds_named(
    capsys: pytest.CaptureFixture[str], dirty: str, gate: str, code: int
) -> None:
    assert run(capsys, "hygiene", "--db", dirty, "--fail-on", gate)[0] == code


def test_a_bad_kind_is_one_line_and_exit_two(capsys: pytest.CaptureFixture[str], dirty: str) -> None:
    code, out, err = run(capsys, "hygiene", "--db", dirty, "--fail-on", "dupes")
    assert code == 2 and out == ""
    assert err == ("memharness-tui: error: --fail-on must be a comma-separated list of "
                   "secrets, instructions, contradictions, near-duplicate, fragmentation, "
                   "code-map, compound, over-limit, chain, stale, unresolved (or any), "
                   "got 'dupes'\n")


def test_markdown_escapes_fact_text(capsys: pytest.CaptureFixture[str], dirty: str) -> None:
    code, out, _ = run(capsys, "hygiene", "--db", dirty, "--format", "markdown")
    assert code == 0
    assert out.startswith("### Memory hygiene: 2 flags over 4 beliefs\n")
    # the link stays text: brackets escaped and the bare URL's colon too (GFM autolinks it)
    assert r"\[click\](http\://x) \# h" in out and "\x1b" not in out
    assert "`project:TakoVM` (1)" in out


def test_markdown_escapes_what_the_staleness_report_escapes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """One rule for Markdown in every report: an image, an entity, a bare www. link or e-mail
    address in a fact renders as the text it is (the hygiene report once kept them live)."""
    path = str(tmp_path / "md.db")
    with Store.open(path, clock=FakeClock()) as s:
        s.remember("user", "see ![x](y) &amp; www.example.com or a@b.io today")
        s.remember("user", "see ![x](y) &amp; www.example.com or a@b.io now")
    out = run(capsys, "hygiene", "--db", path, "--format", "markdown")[1]
    line = next(x for x in out.splitlines() if x.lstrip("- ").startswith("#1 "))
    assert r"\!\[x\](y) \&amp; www\.example.com or a\@b.io today" in line


def test_json_and_as_of(capsys: pytest.CaptureFixture[str], dirty: str) -> None:
    code, out, _ = run(capsys, "hygiene", "--db", dirty, "--json")
    data = json.loads(out)
    assert code == 0 and data["counts"]["near-duplicate"] == 1
    assert data["near_duplicates"][0]["pairs"][0] == {"a": 1, "b": 2, "similarity": 4 / 7}
    code, out, _ = run(capsys, "hygiene", "--db", dirty, "--format", "json",
                       "--as-of", "2026-01-01T00:00:00.500Z")
    data = json.loads(out)
    assert data["as_of"] == "2026-01-01T00:00:00.500Z" and data["rows"] == 1
    assert not any(data["counts"].values())


def test_remember_json_carries_the_note(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    run(capsys, "remember", "user", "likes green tea in the morning", "--db", db)
    code, out, _ = run(capsys, "remember", "user", "likes green tea every morning", "--db", db,
                       "--json")
    data = json.loads(out)
    assert code == 0 and data["id"] == 2
    assert data["note"].startswith("this closely resembles existing belief(s) in 'user': #1 (sim ")


def test_subjects_are_data_too(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = str(tmp_path / "esc.db")
    with Store.open(path, clock=FakeClock()) as s:
        s.remember("evil\x1b]52;c;aGk=\x07", "likes green tea in the morning")
        s.remember("evil\x1b]52;c;aGk=\x07", "likes green tea in the morning!")
    code, out, _ = run(capsys, "hygiene", "--db", path)
    assert code == 0 and "[evil\\x1b]52;c;aGk=\\x07]" in out and "\x1b" not in out
    code, out, _ = run(capsys, "hygiene", "--db", path, "--format", "markdown")
    assert "\x1b" not in out and "\x07" not in out and "`evil]52;c;aGk=`" in out


def test_on_a_terminal_the_note_and_the_report_show_controls_as_escapes(tmp_path: Path) -> None:
    from tests.test_cli_terminal import _cli, _run_on_a_terminal

    db = str(tmp_path / "t.db")
    subject = "evil\x1b[2J"
    with Store.open(db, clock=FakeClock()) as s:
        s.remember(subject, "likes green tea in the morning")
    code, shown = _run_on_a_terminal(_cli("remember", subject, "likes green tea every morning",
                                          "--db", db))
    assert code == 0 and "\x1b" not in shown
    assert "resembles existing belief(s) in 'evil\\x1b[2J': #1 (sim 0.80)" in shown
    code, shown = _run_on_a_terminal(_cli("hygiene", "--db", db))
    assert code == 0 and "\x1b" not in shown and "[evil\\x1b[2J] #1, #2" in shown
