"""The pass's batched verdict write: one UPDATE per batch, every row's FTS entry kept whole."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memharness_tui.staleness.runner import StalenessPass
from memharness_tui.store import FakeClock, Store
from memharness_tui.store.errors import InvalidInput
from memharness_tui.store.types import StalenessUpdate

from .staleness_helpers import SOURCE_AXIS, Scenario, make_store, rows

HEAD40 = "b" * 40


def test_a_pass_in_small_batches_changes_only_the_source_axis_and_keeps_search_whole(
    scenario: Scenario, tmp_path: Path
) -> None:
    db = tmp_path / "m.db"
    s = scenario.sha
    facts = [
        {"fact": f"word{i} about src/a", "source_commit": s["c1"], "source_path": "src/a.py"}
        for i in range(7)
    ] + [{"fact": "adopted from its ref", "source_ref": f"repo@{s['c1']}:src/b.py"}]
    ids = make_store(db, facts)
    before = rows(db)
    report = StalenessPass(db, [scenario.path], batch_size=3,
                           clock=FakeClock("2026-03-01")).run()
    assert report.checked == len(ids) and report.backfilled == 1
    after = rows(db)
    for fid in ids:
        unchanged = {k: v for k, v in before[fid].items() if k not in SOURCE_AXIS}
        assert {k: after[fid][k] for k in unchanged} == unchanged
        assert after[fid]["freshness"] == "stale" and after[fid]["checked_head"] == s["head"]
    assert after[ids[-1]]["source_commit"] == s["c1"]
    assert after[ids[-1]]["source_path"] == "src/b.py"
    with Store.open(str(db)) as store:
        store.check_integrity()  # FTS5 integrity-check: the trigger kept every entry right
        for i, fid in enumerate(ids[:-1]):
            assert store.recall(f"word{i}").ids == [fid]


def test_a_live_batch_skips_gone_rows_and_a_repeated_id_keeps_its_last_verdict(
    tmp_path: Path,
) -> None:
    db = tmp_path / "m.db"
    ids = make_store(db, [{"source_commit": "a" * 40}] * 3 + [{"source_ref": "x@" + "c" * 40}])
    with Store.open(str(db), clock=FakeClock("2026-03-01")) as store:
        store.forget(fact_id=ids[1])
        store.set_staleness(ids[3], "current", "2026-03-01", HEAD40, source_commit="d" * 40)
        at = store.now()
        written = store.set_staleness_many(
            [
                StalenessUpdate(ids[0], "stale", at, HEAD40),
                StalenessUpdate(ids[1], "stale", at, HEAD40),  # retracted: skipped
                StalenessUpdate(ids[2], "stale", at, HEAD40),
                StalenessUpdate(ids[2], "unresolved", at, HEAD40),  # the last one wins
                # a backfill of a row someone pinned meanwhile: theirs wins
                StalenessUpdate(ids[3], "stale", at, HEAD40, "c" * 40, None),
            ],
            live_only=True,
        )
        assert written == [ids[0], ids[2], ids[2]]
        assert store.get(ids[0]).freshness == "stale"
        assert store.get(ids[1]).freshness is None
        assert store.get(ids[2]).freshness == "unresolved"
        assert (store.get(ids[3]).freshness, store.get(ids[3]).source_commit) == (
            "current", "d" * 40)


def test_the_writer_takes_plain_tuples_exactly_as_staleness_updates(tmp_path: Path) -> None:
    """The pass hands the writer 6-tuples in StalenessUpdate's field order: same rows written,
    same checks (a bad verdict in either form is refused and nothing is written)."""
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    ids = make_store(a, [{"source_commit": "a" * 40}] * 2 + [{"source_ref": "x@" + "c" * 40}])
    shutil.copyfile(a, b)
    fields = [(ids[0], "stale", "2026-03-01", HEAD40, None, None),
              (ids[1], "current", "2026-03-01T10:00:00Z", HEAD40, None, None),
              (ids[2], "unresolved", "2026-03-01", HEAD40, "c" * 40, "src/x.py")]
    with Store.open(str(a)) as store:
        assert store.set_staleness_many([StalenessUpdate(*f) for f in fields],
                                        live_only=True) == ids
    with Store.open(str(b)) as store:
        assert store.set_staleness_many(fields, live_only=True) == ids
    assert rows(a) == rows(b)
    for bad in [(ids[0], "fresh", "2026-03-01", HEAD40, None, None),
                (ids[0], "stale", "not a time", HEAD40, None, None),
                ("1", "stale", "2026-03-01", HEAD40, None, None)]:
        before = rows(b)
        said = []
        with Store.open(str(b)) as store:
            for form in (bad, StalenessUpdate(*bad)):
                with pytest.raises(InvalidInput) as refused:
                    store.set_staleness_many([fields[1], form], live_only=True)
                said.append(str(refused.value))
        assert said[0] == said[1] and said[0]
        assert rows(b) == before
