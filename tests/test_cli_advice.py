"""The CLI's own advice names the CLI's own commands; the agent's text stays the reference's."""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.cli import main
from memharness_tui.store import FakeClock, Store, formats

AGENT_NOTE = ("(some pinned facts may have drifted — run memharness-staleness, "
              "or re-verify against current code)")
CLI_NOTE = ("(some pinned facts may have drifted — run memharness-tui staleness, "
            "or re-verify against current code)")


@pytest.fixture
def store_with_verdicts(tmp_path: Path) -> Path:
    db = tmp_path / "m.db"
    with Store.open(str(db), clock=FakeClock("2026-03-01T10:00:00.000Z", 1000)) as s:
        stale, _ = s.remember("auth", "Sessions last 30 minutes", source_commit="a" * 40,
                              source_path="src/auth.py")
        s.remember("auth", "Sessions use cookies")
        s.set_staleness(stale, "stale", "2026-03-01T11:00:00.000Z", "b" * 40)
    return db


def test_recall_with_a_stale_fact_advises_this_clis_staleness_command(
        store_with_verdicts: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["recall", "sessions", "--db", str(store_with_verdicts)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == CLI_NOTE
    assert lines[0] == "Current beliefs:" and len(lines) == 4  # header, two facts, the note
    assert any(line.startswith("[#1] auth : Sessions last 30") and "STALE" in line
               for line in lines[1:3])
    assert main(["recall", "--freshness", "stale", "--db", str(store_with_verdicts)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == CLI_NOTE


def test_the_agents_text_keeps_the_references_note(store_with_verdicts: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    with Store.open(str(store_with_verdicts), readonly=True) as s:
        agent = formats.fmt_recall(s.recall("sessions"))
    assert agent.splitlines()[-1] == AGENT_NOTE == formats.DRIFT_NOTE
    assert main(["recall", "sessions", "--db", str(store_with_verdicts)]) == 0
    cli = capsys.readouterr().out
    assert cli == agent.replace(AGENT_NOTE, CLI_NOTE) + "\n"  # only the note differs


def test_no_note_when_nothing_drifted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.db"
    with Store.open(str(db)) as s:
        s.remember("auth", "Sessions use cookies")
    assert main(["recall", "sessions", "--db", str(db)]) == 0
    assert "drifted" not in capsys.readouterr().out
