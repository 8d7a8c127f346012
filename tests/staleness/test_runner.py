"""StalenessPass over real stores and repos: verdicts, writes, backfill, cancel, downgrade."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from memharness_tui.staleness.git import RepoError
from memharness_tui.staleness.runner import (
    DOWNGRADE_AGENT,
    PassProgress,
    StalenessPass,
    summary_line,
)
from memharness_tui.store import FakeClock, Store

from .staleness_helpers import (
    SOURCE_AXIS,
    Repo,
    Scenario,
    clone,
    file_bytes,
    make_store,
    rows,
)

CLOCK = "2026-03-01T12:00:00.000Z"


def scenario_facts(s: dict[str, str]) -> list[tuple[dict[str, object], str, str]]:
    """(remember kwargs, expected freshness, expected reason) for the scenario repo."""
    h7 = s["head"][:7]
    return [
        ({"source_commit": s["head"]}, "current", f"{h7} is HEAD"),
        ({"source_commit": h7}, "current", f"{h7} is HEAD"),
        ({"source_commit": s["head"][:10].upper()}, "current", f"{h7} is HEAD"),
        ({"source_commit": s["c1"], "source_path": "src/a.py"}, "stale",
         f"src/a.py changed since {s['c1'][:7]}"),
        ({"source_commit": s["c2"], "source_path": "src/a.py"}, "current",
         f"src/a.py unchanged since {s['c2'][:7]}"),
        ({"source_commit": s["c1"], "source_path": "conf"}, "current",
         f"conf/ unchanged since {s['c1'][:7]}"),
        ({"source_commit": s["c1"], "source_path": "lib/x.py"}, "stale",
         f"lib/x.py was deleted since {s['c1'][:7]}"),
        ({"source_commit": s["c1"], "source_path": "new.py"}, "unresolved",
         f"new.py did not exist at {s['c1'][:7]}"),
        ({"source_commit": s["c1"]}, "stale", f"HEAD has moved past {s['c1'][:7]}"),
        ({"source_commit": s["s1"], "source_path": "docs/readme.md"}, "current",
         f"docs/readme.md unchanged since {s['s1'][:7]}"),
        ({"source_commit": s["f1"]}, "unresolved",
         f"{s['f1'][:7]} is on a branch HEAD does not contain"),
        ({"source_commit": "0123456789abcdef0123456789abcdef01234567"}, "unresolved",
         "0123456 is not in this repo"),
        ({"source_commit": s["blob_a"]}, "unresolved", f"{s['blob_a'][:7]} is a blob, not a commit"),
        ({"source_commit": s["tag_v1"], "source_path": "src/a.py"}, "stale",
         f"src/a.py changed since {s['tag_v1'][:7]}"),
    ]


def test_pass_writes_every_verdict(scenario: Scenario, tmp_path: Path) -> None:
    cases = scenario_facts(scenario.sha)
    db = tmp_path / "m.db"
    ids = make_store(db, [c[0] for c in cases])
    before = rows(db)
    events: list[PassProgress] = []
    report = StalenessPass(
        db, [scenario.path], clock=FakeClock(CLOCK), batch_size=5, on_progress=events.append
    ).run()
    after = rows(db)
    for fid, (_, fresh, reason) in zip(ids, cases, strict=True):
        v = next(v for v in report.verdicts if v.fact_id == fid)
        assert (v.freshness, v.reason) == (fresh, reason), fid
        assert after[fid]["freshness"] == fresh
        assert after[fid]["checked_head"] == scenario.sha["head"]
        assert after[fid]["checked_at"] in {
            "2026-03-01T12:00:00.000Z", "2026-03-01T12:00:01.000Z", "2026-03-01T12:00:02.000Z"
        }
        # only the verdict columns moved
        for col, val in before[fid].items():
            if col not in ("freshness", "checked_at", "checked_head"):
                assert after[fid][col] == val, (fid, col)
    n = len(cases)
    stale = [fid for fid, c in zip(ids, cases, strict=True) if c[1] == "stale"]
    assert report.stale_ids == stale
    assert report.summary_line() == summary_line(
        n, sum(c[1] == "current" for c in cases), len(stale),
        sum(c[1] == "unresolved" for c in cases), 0,
    )
    assert report.summary_line() == f"checked {n} / current 6 / stale 4 / unresolved 4"
    assert (report.checked, report.total, report.cancelled) == (n, n, False)
    # a start event, one per batch of 5, a done event
    assert [e.checked for e in events] == [0, 5, 10, 14, 14]
    assert events[0].total == n and events[-1].done and not events[-1].cancelled
    assert events[1].fact_id == ids[4] and len(events[1].verdicts) == 5
    assert events[-1].summary_line() == report.summary_line()


def test_only_source_axis_changes_and_dead_rows_are_untouched(
    scenario: Scenario, tmp_path: Path
) -> None:
    s = scenario.sha
    db = tmp_path / "m.db"
    ids = make_store(
        db,
        [
            {"source_commit": s["c1"], "source_path": "src/a.py", "confidence": 0.8,
             "importance": 7, "kind": "procedural", "source_agent": "a", "predicate": "p"},
            {"source_commit": s["c1"], "source_path": "src/a.py"},  # will be retracted
            {"source_commit": s["c1"]},  # will be superseded
            {"source_ref": f"m@{s['c1']}:src/a.py"},  # backfill, then retracted
            {"source_ref": "plain words"},
            {"source_ref": f"repo@{s['c2']}:src/a.py", "subject": "other"},  # backfill
        ],
    )
    store = Store.open(str(db), clock=FakeClock("2026-02-02"))
    store.forget(fact_id=ids[1])
    store.forget(fact_id=ids[3])
    _, new_id, _ = store.revise(ids[2], "rewritten", source_commit=s["c2"])
    store.recall("fact")  # reinforce is off: must not matter
    store.close()
    before = rows(db)
    report = StalenessPass(db, [scenario.path], clock=FakeClock(CLOCK)).run()
    after = rows(db)
    assert set(after) == set(before)
    judged = {v.fact_id for v in report.verdicts}
    assert judged == {ids[0], ids[5], new_id}
    assert report.backfilled == 1
    for fid, old in before.items():
        new = after[fid]
        if fid not in judged:
            assert new == old, fid  # retracted, superseded and unpinned rows: not one byte
            continue
        for col in old:
            if col not in SOURCE_AXIS:
                assert new[col] == old[col], (fid, col)
    assert after[ids[5]]["source_commit"] == s["c2"]
    assert after[ids[5]]["source_path"] == "src/a.py"
    assert after[ids[5]]["freshness"] == "current"
    assert after[ids[0]]["source_commit"] == s["c1"]  # a stored pin is never rewritten


def test_check_only_writes_nothing_at_all(scenario: Scenario, tmp_path: Path) -> None:
    s = scenario.sha
    make_store(
        tmp_path / "m.db",
        [{"source_commit": s["c1"], "source_path": "src/a.py"}, {"source_ref": f"x@{s['c2']}"}],
    )
    before = file_bytes(tmp_path)
    report = StalenessPass(tmp_path / "m.db", [scenario.path], check_only=True).run()
    assert report.summary_line() == "checked 2 / current 0 / stale 2 / unresolved 0 / backfilled 1"
    assert report.check_only
    assert_nothing_written(tmp_path, before)


def assert_nothing_written(folder: Path, before: dict[str, bytes]) -> None:
    """The database file is byte-identical and no WAL frame was written.

    (A read-only SQLite open of a WAL-mode file may leave an empty ``-wal`` and the
    ``-shm`` index beside it; that is SQLite's bookkeeping, not data.)
    """
    after = file_bytes(folder)
    assert after["m.db"] == before["m.db"]
    assert after.get("m.db-wal", b"") == before.get("m.db-wal", b"")
    assert set(after) - set(before) <= {"m.db-wal", "m.db-shm"}


def test_bad_repos_fail_before_anything_is_written(scenario: Scenario, tmp_path: Path) -> None:
    dbdir = tmp_path / "db"
    dbdir.mkdir()
    make_store(dbdir / "m.db", [{"source_commit": scenario.sha["c1"]}])
    before = file_bytes(dbdir)
    empty = Repo.init(tmp_path / "empty").path
    plain = tmp_path / "plain"
    plain.mkdir()
    for bad, msg in ((empty, "empty"), (plain, "not a git repository")):
        with pytest.raises(RepoError, match=msg):
            StalenessPass(dbdir / "m.db", [scenario.path, bad]).run()
        with pytest.raises(RepoError, match=msg):
            next(StalenessPass(dbdir / "m.db", [bad]).iter_batches())
    assert file_bytes(dbdir) == before


def test_more_than_200_facts_each_checked_exactly_once(scenario: Scenario, tmp_path: Path) -> None:
    s = scenario.sha
    pins = [s["c1"], s["c2"], s["head"][:7], s["f1"]]
    facts = [{"source_commit": pins[i % 4], "source_path": "src/a.py"} for i in range(230)]
    facts += [{"source_ref": f"r@{s['c1']}:conf"} for _ in range(20)]
    ids = make_store(tmp_path / "m.db", facts)
    report = StalenessPass(tmp_path / "m.db", [scenario.path], batch_size=64).run()
    assert sorted(v.fact_id for v in report.verdicts) == ids
    assert report.checked == report.total == 250
    assert report.backfilled == 20
    # a second pass: the same work list (backfilled rows are now ordinary targets)
    again = StalenessPass(tmp_path / "m.db", [scenario.path], batch_size=1000).run()
    assert sorted(v.fact_id for v in again.verdicts) == ids
    assert again.backfilled == 0
    assert (again.current, again.stale, again.unresolved) == (
        report.current, report.stale, report.unresolved
    )


def test_work_list_pages_see_every_row_exactly_once(
    scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keyset paging with a small page: no target or candidate is lost or read twice."""
    import memharness_tui.staleness.work as work_mod

    monkeypatch.setattr(work_mod, "_PAGE", 7)
    s = scenario.sha
    db = tmp_path / "m.db"
    pinned = make_store(db, [{"source_commit": s["c1"]}] * 30)  # 4 full pages and a part
    refs = make_store(db, [{"source_ref": f"r@{s['c2']}:conf"}] * 15)
    make_store(db, [{}] * 5)  # neither pinned nor with a ref: not work
    pinned += make_store(db, [{"source_commit": s["head"]}] * 11)
    with Store.open(str(db)) as store:
        work = work_mod.work_list(store)
    assert [w.fact_id for w in work] == sorted(pinned + refs)
    assert [w.fact_id for w in work if w.backfill] == refs
    report = StalenessPass(db, [scenario.path], batch_size=4).run()
    assert sorted(v.fact_id for v in report.verdicts) == sorted(pinned + refs)
    assert report.checked == report.total == 56 and report.skipped == []


def test_cancel_mid_pass_leaves_whole_batches(scenario: Scenario, tmp_path: Path) -> None:
    s = scenario.sha
    ids = make_store(
        tmp_path / "m.db", [{"source_commit": s["c1"], "source_path": "src/a.py"}] * 100
    )
    spass = StalenessPass(tmp_path / "m.db", [scenario.path], batch_size=30)
    it = spass.iter_batches()
    start = next(it)
    assert (start.checked, start.total) == (0, 100)
    assert next(it).checked == 30
    assert next(it).checked == 60
    spass.cancel()
    last = next(it)
    assert last.done and last.cancelled and last.checked == 60
    with pytest.raises(StopIteration):
        next(it)
    after = rows(tmp_path / "m.db")
    written = [fid for fid in ids if after[fid]["freshness"] is not None]
    assert written == ids[:60]
    for fid in ids[:60]:
        assert after[fid]["freshness"] == "stale"
        assert after[fid]["checked_head"] == s["head"] and after[fid]["checked_at"]
    for fid in ids[60:]:
        assert all(after[fid][c] is None for c in ("freshness", "checked_at", "checked_head"))
    assert spass.report.cancelled and spass.report.checked == 60
    conn = sqlite3.connect(tmp_path / "m.db")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_cancel_from_another_thread(scenario: Scenario, tmp_path: Path) -> None:
    """A worker thread runs the pass (own connection, own repo); the main thread cancels."""
    ids = make_store(tmp_path / "m.db", [{"source_commit": scenario.sha["c1"]}] * 50)
    gate = threading.Event()
    resume = threading.Event()
    seen: list[PassProgress] = []

    def progress(e: PassProgress) -> None:
        seen.append(e)
        if e.checked == 10:
            gate.set()
            resume.wait(5)

    spass = StalenessPass(tmp_path / "m.db", [scenario.path], batch_size=10, on_progress=progress)
    out: dict[str, object] = {}
    t = threading.Thread(target=lambda: out.setdefault("report", spass.run()))
    t.start()
    assert gate.wait(5)
    spass.cancel()
    resume.set()
    t.join(10)
    report = out["report"]
    assert report.cancelled and report.checked == 10  # type: ignore[attr-defined]
    assert seen[-1].cancelled and seen[-1].done
    after = rows(tmp_path / "m.db")
    assert [fid for fid in ids if after[fid]["freshness"]] == ids[:10]


def test_two_repos_in_one_pass(scenario: Scenario, other_repo: Scenario, tmp_path: Path) -> None:
    s, o = scenario.sha, other_repo.sha
    ids = make_store(
        tmp_path / "m.db",
        [
            {"source_commit": s["c1"], "source_path": "src/a.py"},
            {"source_commit": o["o1"], "source_path": "README"},
            {"source_commit": o["head"][:8]},
            {"source_commit": "abcdef1234567"},
            {"source_commit": s["f1"]},
        ],
    )
    report = StalenessPass(
        tmp_path / "m.db", [scenario.path, other_repo.path], clock=FakeClock(CLOCK)
    ).run()
    by_id = {v.fact_id: v for v in report.verdicts}
    assert by_id[ids[0]].repo == str(scenario.path.resolve())
    assert by_id[ids[0]].freshness == "stale"
    assert by_id[ids[1]].repo == str(other_repo.path.resolve())
    assert (by_id[ids[1]].freshness, by_id[ids[1]].reason) == (
        "stale", f"README changed since {o['o1'][:7]}"
    )
    assert by_id[ids[2]].freshness == "current"
    assert (by_id[ids[3]].freshness, by_id[ids[3]].reason) == (
        "unresolved", "abcdef1 is not in any of the 2 repos"
    )
    assert by_id[ids[4]].freshness == "unresolved"
    after = rows(tmp_path / "m.db")
    assert after[ids[0]]["checked_head"] == s["head"]
    assert after[ids[1]]["checked_head"] == o["head"]
    assert after[ids[2]]["checked_head"] == o["head"]
    assert report.heads == {
        str(scenario.path.resolve()): s["head"], str(other_repo.path.resolve()): o["head"]
    }


def test_shallow_clone_in_a_pass(scenario: Scenario, tmp_path: Path) -> None:
    shallow = clone(scenario.path, tmp_path / "shallow", "--depth", "1")
    ids = make_store(tmp_path / "m.db", [{"source_commit": scenario.sha["c1"]}])
    report = StalenessPass(tmp_path / "m.db", [shallow]).run()
    assert report.verdicts[0].fact_id == ids[0]
    assert report.verdicts[0].freshness == "unresolved"
    assert "shallow clone" in report.verdicts[0].reason


def test_downgrade_revises_stale_facts_once(scenario: Scenario, tmp_path: Path) -> None:
    s = scenario.sha
    ids = make_store(
        tmp_path / "m.db",
        [
            {"source_commit": s["c1"], "source_path": "src/a.py", "confidence": 0.8,
             "importance": 8, "kind": "procedural", "source_ref": "sess-1", "fact": "a is one"},
            {"source_commit": s["c2"], "source_path": "src/a.py", "confidence": 0.9},
            {"source_commit": s["f1"], "confidence": 0.9},
            {"source_ref": f"m@{s['c1']}:lib/x.py", "confidence": 0.6, "fact": "x exists"},
        ],
    )
    report = StalenessPass(
        tmp_path / "m.db", [scenario.path], downgrade=True, factor=0.25, clock=FakeClock(CLOCK)
    ).run()
    assert report.stale_ids == [ids[0], ids[3]]
    assert [o for o, _ in report.downgraded] == [ids[0], ids[3]]
    after = rows(tmp_path / "m.db")
    for old_id, new_id in report.downgraded:
        old, new = after[old_id], after[new_id]
        assert old["superseded_by"] == new_id and old["retracted_at"] is None
        assert old["freshness"] == "stale"
        assert new["fact"] == old["fact"] and new["subject"] == old["subject"]
        assert new["confidence"] == pytest.approx(old["confidence"] * 0.25)
        assert (new["importance"], new["kind"]) == (old["importance"], old["kind"])
        assert (new["source_commit"], new["source_path"]) == (
            old["source_commit"], old["source_path"]
        )
        assert new["source_ref"] == old["source_ref"]
        assert new["source_agent"] == DOWNGRADE_AGENT
        assert new["freshness"] == "stale" and new["checked_head"] == s["head"]
        assert new["retracted_at"] is None and new["superseded_by"] is None
    assert after[ids[3]]["source_commit"] == s["c1"]  # backfilled, then downgraded
    for fid in (ids[1], ids[2]):  # current and unresolved: never revised
        assert after[fid]["superseded_by"] is None
    assert not any(r["retracted_at"] for r in after.values())
    # a second downgrade pass judges the new rows but does not halve them again
    again = StalenessPass(tmp_path / "m.db", [scenario.path], downgrade=True).run()
    assert again.downgraded == []
    assert sorted(again.stale_ids) == sorted(n for _, n in report.downgraded)
    assert len(rows(tmp_path / "m.db")) == len(after)


def test_rows_changed_by_another_writer_mid_pass_are_skipped(
    scenario: Scenario, tmp_path: Path
) -> None:
    ids = make_store(tmp_path / "m.db", [{"source_commit": scenario.sha["c1"]}] * 6)
    spass = StalenessPass(tmp_path / "m.db", [scenario.path], batch_size=3, downgrade=True)
    it = spass.iter_batches()
    next(it)
    next(it)  # first 3 written (and downgraded)
    other = Store.open(str(tmp_path / "m.db"))
    other.forget(fact_id=ids[4])
    other.revise(ids[5], "someone else's correction")
    other.close()
    list(it)
    report = spass.report
    assert report.skipped == [ids[4], ids[5]]
    # a skipped row is neither checked nor counted, and gets no verdict
    assert report.total == 6 and report.checked == 4
    assert report.summary_line() == "checked 4 / current 0 / stale 4 / unresolved 0"
    assert [v.fact_id for v in report.verdicts] == ids[:4]
    assert report.stale_ids == ids[:4]
    assert [old for old, _ in report.downgraded] == ids[:4]
    after = rows(tmp_path / "m.db")
    assert after[ids[4]]["freshness"] is None and after[ids[5]]["freshness"] is None
    assert after[ids[3]]["freshness"] == "stale"


def _store_changed_by_another_writer_mid_write(changes: Callable[[Store], None]) -> Callable[..., Store]:
    """A store_factory whose first verdict write lets another connection commit ``changes`` first.

    That is the window the pass's pre-check cannot see: the batch was re-read (and found
    live) but not yet written. Only the writer's ``live_only`` guard stands in the way.
    """

    class ChangedMidWrite(Store):
        done = False

        def set_staleness_many(self, updates, *, live_only=False):  # type: ignore[no-untyped-def]
            if not ChangedMidWrite.done:
                ChangedMidWrite.done = True
                other = Store.open(self.path, clock=FakeClock("2026-02-20"))
                try:
                    changes(other)
                finally:
                    other.close()
            return super().set_staleness_many(updates, live_only=live_only)

    def factory(path: str, *, clock: object = None, readonly: bool = False) -> Store:
        return ChangedMidWrite.open(path, clock=clock, readonly=readonly)  # type: ignore[arg-type]

    return factory


@pytest.mark.parametrize("downgrade", [False, True], ids=["write", "downgrade"])
def test_a_row_revised_between_the_pre_check_and_the_write_keeps_no_verdict(
    scenario: Scenario, tmp_path: Path, downgrade: bool
) -> None:
    db = tmp_path / "m.db"
    ids = make_store(db, [{"source_commit": scenario.sha["c1"]}] * 4)

    def changes(other: Store) -> None:
        other.revise(ids[1], "someone else's correction")
        other.forget(fact_id=ids[2])

    spass = StalenessPass(
        db, [scenario.path], clock=FakeClock(CLOCK), batch_size=10, downgrade=downgrade,
        store_factory=_store_changed_by_another_writer_mid_write(changes),
    )
    report = spass.run()
    assert report.skipped == [ids[1], ids[2]]
    assert report.checked == 2 and report.stale_ids == [ids[0], ids[3]]
    after = rows(db)
    for fid in (ids[1], ids[2]):  # the other writer's rows: untouched by the pass
        assert {k: after[fid][k] for k in SOURCE_AXIS} == {
            "source_commit": scenario.sha["c1"], "source_path": None,
            "freshness": None, "checked_at": None, "checked_head": None,
        }
    assert after[ids[1]]["superseded_by"] is not None and after[ids[1]]["confidence"] == 1.0
    assert after[ids[0]]["freshness"] == after[ids[3]]["freshness"] == "stale"
    assert [old for old, _ in report.downgraded] == ([ids[0], ids[3]] if downgrade else [])


def test_a_backfill_candidate_pinned_between_the_pre_check_and_the_write_keeps_its_pin(
    scenario: Scenario, tmp_path: Path
) -> None:
    s = scenario.sha
    db = tmp_path / "m.db"
    ids = make_store(db, [{"source_ref": f"m@{s['c1']}:src/a.py"}] * 2)

    def changes(other: Store) -> None:  # someone pins the row (a later commit) meanwhile
        other.set_staleness(ids[1], "current", "2026-02-20", s["head"], source_commit=s["head"])

    report = StalenessPass(
        db, [scenario.path], clock=FakeClock(CLOCK),
        store_factory=_store_changed_by_another_writer_mid_write(changes),
    ).run()
    assert report.skipped == [ids[1]]
    assert report.checked == 1 and report.backfilled == 1 and report.stale_ids == [ids[0]]
    after = rows(db)
    assert (after[ids[0]]["source_commit"], after[ids[0]]["freshness"]) == (s["c1"], "stale")
    assert (after[ids[1]]["source_commit"], after[ids[1]]["source_path"]) == (s["head"], None)
    assert after[ids[1]]["freshness"] == "current"


def test_external_writer_is_never_refused(scenario: Scenario, tmp_path: Path) -> None:
    """Another process keeps remembering facts for the whole time the passes write.

    The writer starts before the first pass and stops only after the last one ends,
    so the two overlap by construction (no timing assumptions).
    """
    db = tmp_path / "m.db"
    stop = tmp_path / "stop"
    make_store(db, [{"source_commit": scenario.sha["c1"], "source_path": "src/a.py"}] * 400)
    root = Path(__file__).resolve().parents[2]
    script = textwrap.dedent(
        f"""
        import os, sys
        sys.path.insert(0, {str(root)!r})
        from memharness_tui.store import Store
        s = Store.open({str(db)!r})
        s.remember("ext", "external first")
        print("ready", flush=True)
        n = 1
        while not os.path.exists({str(stop)!r}):
            s.remember("ext", f"external {{n}}")
            n += 1
        s.close()
        print(n, flush=True)
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        reports = [StalenessPass(db, [scenario.path], batch_size=5).run() for _ in range(3)]
    finally:
        stop.touch()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err  # never "database is locked"
    written = int(out.strip())
    assert all(r.checked == 400 and not r.skipped for r in reports)
    after = rows(db)
    assert sum(1 for r in after.values() if r["subject"] == "ext") == written
    assert all(after[i]["freshness"] == "stale" for i in after if after[i]["subject"] != "ext")
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_argument_errors(scenario: Scenario, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least one repo"):
        StalenessPass(tmp_path / "m.db", [])
    with pytest.raises(ValueError, match="cannot be combined"):
        StalenessPass(tmp_path / "m.db", [scenario.path], check_only=True, downgrade=True)
    for bad in (0, 1.5, -1, True, "0.5"):
        with pytest.raises(ValueError, match="factor"):
            StalenessPass(tmp_path / "m.db", [scenario.path], factor=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="batch_size"):
        StalenessPass(tmp_path / "m.db", [scenario.path], batch_size=0)


def test_summary_line_digits_are_plain_headless_and_grouped_on_screen() -> None:
    # The headless line is the reference bin's (plain digits); the app groups thousands.
    assert summary_line(30000, 12000, 17000, 1000, 0) == (
        "checked 30000 / current 12000 / stale 17000 / unresolved 1000")
    assert summary_line(30000, 12000, 17000, 1000, 2500, grouped=True) == (
        "checked 30,000 / current 12,000 / stale 17,000 / unresolved 1,000 / backfilled 2,500")


def test_the_prechecks_work_list_is_the_passs_and_is_read_once(
    scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wrong-repo precheck reads the pass's work list; a pass handed it reads no pins,
    writes the same verdicts, and its next run reads the store afresh."""
    from memharness_tui.staleness.precheck import coverage_and_work, pin_coverage
    from memharness_tui.staleness.work import work_list

    s = scenario.sha
    db = tmp_path / "m.db"
    make_store(db, [{"source_commit": s["c1"], "source_path": "src/a.py"}] * 6)
    make_store(db, [{"source_ref": f"r@{s['c2']}:conf"}] * 3)
    make_store(db, [{"source_commit": "f" * 40}] * 2)  # in no repo
    cov, work = coverage_and_work(db, [scenario.path])
    with Store.open(str(db)) as store:
        assert work == work_list(store)
    assert (cov.pins, cov.wrong_repo) == (8, False)
    assert cov == pin_coverage(db, [scenario.path])

    copy = tmp_path / "copy.db"
    copy.write_bytes(db.read_bytes())
    expected = StalenessPass(copy, [scenario.path], batch_size=4).run()

    reads: list[int] = []
    real = Store.staleness_targets

    def counted(self: Store, limit: int, after_id: int = 0) -> list:  # type: ignore[type-arg]
        reads.append(after_id)
        return real(self, limit, after_id)

    monkeypatch.setattr(Store, "staleness_targets", counted)
    spass = StalenessPass(db, [scenario.path], batch_size=4, work=work)
    report = spass.run()
    assert reads == []
    assert [(v.fact_id, v.freshness, v.reason, v.backfilled) for v in report.verdicts] == [
        (v.fact_id, v.freshness, v.reason, v.backfilled) for v in expected.verdicts]
    assert report.total == expected.total == 11
    spass.run()
    assert reads  # a second run does not reuse the list handed over
