"""``staleness --downgrade`` never brings back a pin an agent retracted during the pass: the
store re-checks inside the downgrade's write, and the command says which it left as it was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memharness_tui.staleness import cli as scli
from memharness_tui.store.driver import sqlite3  # the store's own: shares its locks in-process
from memharness_tui.store.store import Store

from .staleness_helpers import Scenario, make_store, rows


def _retract_between_read_and_write(monkeypatch: pytest.MonkeyPatch, db: Path,
                                    target: int) -> None:
    """An agent's forget of ``target`` (its own connection) commits right after the pass has
    read the row to downgrade it: the window the pass's own check cannot close."""
    original = Store.get

    def get(self: Store, fact_id: int) -> Any:
        fact = original(self, fact_id)
        if fact_id == target:
            con = sqlite3.connect(db)
            with con:
                con.execute("UPDATE facts SET retracted_at = '2026-02-02T00:00:00.000Z' "
                            "WHERE id = ?", (target,))
            con.close()
        return fact

    monkeypatch.setattr(Store, "get", get)


def test_a_pin_retracted_mid_pass_is_left_as_it_is_and_said_so(
        scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    s = scenario.sha
    db = tmp_path / "m.db"
    ids = make_store(db, [{"source_commit": s["c1"], "source_path": "src/a.py"},
                          {"source_commit": s["c1"], "source_path": "lib/x.py"}])
    _retract_between_read_and_write(monkeypatch, db, ids[0])
    assert scli.main(["staleness", "--db", str(db), "--repo", str(scenario.path),
                      "--downgrade", "--json"]) == 0
    out, err = capsys.readouterr()
    after = rows(db)
    assert after[ids[0]]["retracted_at"] is not None
    assert after[ids[0]]["superseded_by"] is None  # no live copy of the retracted pin
    assert not [r for r in after.values() if r["fact"] == after[ids[0]]["fact"]
                and r["id"] != ids[0]]
    new = after[ids[1]]["superseded_by"]
    assert new is not None  # the other stale pin is downgraded as before
    lines = err.splitlines()
    assert f"downgraded: #{ids[1]}->#{new}" in lines
    assert f"#{ids[0]} was retracted by an agent since the pass read it; left as it is" in lines
    report = json.loads(out)
    assert report["skipped"] == [ids[0]]
    assert report["downgraded"] == [{"old_id": ids[1], "new_id": new}]
