"""A pass over the reference implementation's own v5 store file."""

from __future__ import annotations

import shutil
from pathlib import Path

from memharness_tui.staleness.runner import StalenessPass
from memharness_tui.store import FakeClock, Store
from tests.conftest import fixtures_dir

from .staleness_helpers import SOURCE_AXIS, Scenario, rows


def test_pass_over_the_reference_v5_file(scenario: Scenario, tmp_path: Path) -> None:
    db = tmp_path / "v5.db"
    shutil.copyfile(fixtures_dir() / "v5.db", db)
    before = rows(db)
    report = StalenessPass(db, [scenario.path], clock=FakeClock("2026-06-01")).run()
    after = rows(db)
    # its pins name commits of other repos: every one unresolved, never current or stale
    assert report.summary_line() == "checked 10 / current 0 / stale 0 / unresolved 10 / backfilled 5"
    assert all(v.reason.endswith("is not in this repo") for v in report.verdicts)
    judged = {v.fact_id for v in report.verdicts}
    for fid, old in before.items():
        if fid not in judged:
            assert after[fid] == old, fid
            continue
        assert old["retracted_at"] is None and old["superseded_by"] is None
        for col in old:
            if col not in SOURCE_AXIS:
                assert after[fid][col] == old[col], (fid, col)
        assert after[fid]["freshness"] == "unresolved"
        assert after[fid]["checked_head"] == scenario.sha["head"]
        if old["source_commit"] is not None:  # a stored pin is never rewritten
            assert (after[fid]["source_commit"], after[fid]["source_path"]) == (
                old["source_commit"], old["source_path"]
            )
    backfilled = {v.fact_id: v for v in report.verdicts if v.backfilled}
    assert len(backfilled) == 5
    for fid, v in backfilled.items():
        assert before[fid]["source_commit"] is None
        assert v.commit in before[fid]["source_ref"].lower()
        assert after[fid]["source_commit"] == v.commit
        assert after[fid]["source_path"] == v.path
    store = Store.open(str(db))
    try:
        store.check_integrity()  # SQLite and the FTS index both intact
    finally:
        store.close()
