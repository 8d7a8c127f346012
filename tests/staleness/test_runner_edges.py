"""Mutation round 7 (scripts/mutate.py): a batch's progress event carries the verdicts that
were written, never those of rows another writer revised or retracted mid-pass (skipped: no
verdict was written for them). The TUI shows an event's verdicts in its log and keeps their
reasons, so a skipped row listed there would claim a write that did not happen."""

from __future__ import annotations

from pathlib import Path

from memharness_tui.staleness.runner import StalenessPass
from memharness_tui.store import Store

from .staleness_helpers import Scenario, make_store


def test_a_batch_event_lists_only_the_verdicts_written(scenario: Scenario, tmp_path: Path) -> None:
    ids = make_store(tmp_path / "m.db", [{"source_commit": scenario.sha["c1"]}] * 6)
    spass = StalenessPass(tmp_path / "m.db", [scenario.path], batch_size=3)
    it = spass.iter_batches()
    next(it)
    first = next(it)  # the first batch, written
    assert [v.fact_id for v in first.verdicts] == ids[:3]
    other = Store.open(str(tmp_path / "m.db"))
    other.forget(fact_id=ids[4])  # mid-pass, by another writer
    other.close()
    events = list(it)
    listed = [v.fact_id for e in events for v in e.verdicts]
    assert spass.report.skipped == [ids[4]]
    assert listed == [ids[3], ids[5]]  # the skipped row is in no event
