"""The pass process (staleness.worker): same verdicts, events and report as a pass in-process;
its precheck and hand-over of the work list; cancel; a failure or a lost child is one line."""

from __future__ import annotations

import contextlib
import io
import pickle
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memharness_tui.staleness.git import RepoError
from memharness_tui.staleness.precheck import pin_coverage
from memharness_tui.staleness.runner import PassProgress, StalenessPass
from memharness_tui.staleness.verdicts import Verdict
from memharness_tui.staleness.worker import PassWorker, WorkerError, _Child, _unwire, job_for
from memharness_tui.store import FakeClock

from .staleness_helpers import Scenario, make_store, rows
from .test_runner import scenario_facts

VERDICT_COLUMNS = ("freshness", "checked_head", "source_commit", "source_path")


@pytest.fixture
def worker() -> Iterator[PassWorker]:
    w = PassWorker()
    try:
        yield w
    finally:
        w.close()


def _two_copies(scenario: Scenario, tmp_path: Path) -> tuple[Path, Path, list[int]]:
    s = scenario.sha
    facts = [c[0] for c in scenario_facts(s)]
    facts += [{"source_ref": f"m@{s['c1']}:src/a.py"}, {"source_ref": "see notes"}]
    here = tmp_path / "here.db"
    ids = make_store(here, facts)
    there = tmp_path / "there.db"
    shutil.copyfile(here, there)
    return here, there, ids


def test_a_pass_in_the_child_matches_the_pass_in_process(
    scenario: Scenario, tmp_path: Path, worker: PassWorker
) -> None:
    here, there, ids = _two_copies(scenario, tmp_path)
    local: list[PassProgress] = []
    expected = StalenessPass(here, [scenario.path], batch_size=5, on_progress=local.append).run()

    spass = StalenessPass(there, [scenario.path], batch_size=5)
    remote = list(worker.events(job_for(spass), spass))
    report = spass.report

    assert [(e.checked, e.total, e.done, e.fact_id) for e in remote] == \
        [(e.checked, e.total, e.done, e.fact_id) for e in local]
    assert [e.verdicts for e in remote] == [e.verdicts for e in local]
    assert all(type(v) is Verdict and v.pin for e in remote for v in e.verdicts)
    assert report.verdicts == expected.verdicts
    assert report.summary_line() == expected.summary_line()
    assert (report.stale_ids, report.heads, report.backfilled) == \
        (expected.stale_ids, expected.heads, 1)
    mine, theirs = rows(here), rows(there)
    for fid in ids:  # what was written: the same, checked_at aside (the system clock)
        assert {c: theirs[fid][c] for c in VERDICT_COLUMNS} == \
            {c: mine[fid][c] for c in VERDICT_COLUMNS}
        assert (theirs[fid]["checked_at"] is None) == (mine[fid]["checked_at"] is None)
    assert sum(theirs[f]["checked_at"] is not None for f in ids) == report.checked


def test_the_report_is_in_place_when_the_last_event_is_seen(
    scenario: Scenario, tmp_path: Path, worker: PassWorker
) -> None:
    """Whoever sees the pass end (the dashboard, follow mode) reads the report right then."""
    here, _, _ = _two_copies(scenario, tmp_path)
    expected = StalenessPass(here, [scenario.path], check_only=True).run()
    spass = StalenessPass(here, [scenario.path], batch_size=5)
    for event in worker.events(job_for(spass), spass):
        if event.done:
            assert spass.report.summary_line() == expected.summary_line()
            assert spass.report.stale_ids == expected.stale_ids
            assert len(spass.report.verdicts) == event.checked
        else:
            assert spass.report.checked == 0  # the parent's own, never run


def test_the_precheck_runs_in_the_child_and_hands_its_work_list_to_the_pass(
    scenario: Scenario, tmp_path: Path, worker: PassWorker
) -> None:
    here, there, ids = _two_copies(scenario, tmp_path)
    cov = worker.precheck(str(there), [str(scenario.path)])
    assert cov == pin_coverage(here, [scenario.path])
    # rows changed after the precheck read them: the pass judges the list it was handed
    # (the writer's liveness guard skips the revised row), as with a list handed in-process
    from memharness_tui.store import Store

    other = Store.open(str(there), clock=FakeClock("2026-02-20"))
    other.revise(ids[3], "someone else's correction")
    other.close()
    spass = StalenessPass(there, [scenario.path], batch_size=5)
    events = list(worker.events(job_for(spass, prechecked=True), spass))
    assert events[0].total == len(ids) - 1  # the unparseable source_ref is no work
    assert spass.report.skipped == [ids[3]]


def test_a_precheck_for_another_store_is_not_used(
    scenario: Scenario, tmp_path: Path, worker: PassWorker
) -> None:
    here, there, ids = _two_copies(scenario, tmp_path)
    worker.precheck(str(here), [str(scenario.path)])
    spass = StalenessPass(there, [scenario.path])
    list(worker.events(job_for(spass, prechecked=True), spass))
    assert spass.report.checked == len(ids) - 1
    assert all(r["freshness"] is None for r in rows(here).values())  # only "there" was written


def test_a_repo_error_and_a_failed_pass_come_back_as_one_line(
    scenario: Scenario, tmp_path: Path, worker: PassWorker
) -> None:
    here, _, _ = _two_copies(scenario, tmp_path)
    with pytest.raises(RepoError, match="not a git repository"):
        worker.precheck(str(here), [str(tmp_path)])
    spass = StalenessPass(here, [tmp_path])
    with pytest.raises(WorkerError, match="not a git repository"):
        list(worker.events(job_for(spass), spass))
    # the child is still there for the next pass
    spass = StalenessPass(here, [scenario.path])
    assert list(worker.events(job_for(spass), spass))[-1].done


def test_a_child_gone_between_passes_is_started_afresh(
    scenario: Scenario, tmp_path: Path, worker: PassWorker
) -> None:
    here, _, _ = _two_copies(scenario, tmp_path)
    worker.start()
    assert worker._proc is not None
    worker._proc.kill()
    worker._proc.wait()
    spass = StalenessPass(here, [scenario.path])
    assert list(worker.events(job_for(spass), spass))[-1].done
    assert worker.alive


def test_a_child_lost_mid_pass_fails_the_pass_and_the_next_one_runs(
    scenario: Scenario, tmp_path: Path, worker: PassWorker
) -> None:
    here, _, _ = _two_copies(scenario, tmp_path)
    worker.start()
    proc = worker._proc
    assert proc is not None and proc.stdout is not None
    real_stdout = proc.stdout
    proc.stdout = io.BufferedReader(io.BytesIO(b"\x00\x00"))  # type: ignore[assignment]
    spass = StalenessPass(here, [scenario.path])
    with pytest.raises(WorkerError, match="stopped unexpectedly"):
        list(worker.events(job_for(spass), spass))
    real_stdout.close()
    assert proc.poll() is not None  # the lost child was put down
    spass = StalenessPass(here, [scenario.path])
    assert list(worker.events(job_for(spass), spass))[-1].done


def test_a_test_clock_or_store_factory_never_goes_to_the_child(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="in this process"):
        job_for(StalenessPass(tmp_path / "m.db", [tmp_path], clock=FakeClock("2026-01-01")))


class _Frames(io.RawIOBase):
    """The child's stdout in-process: each frame is unpickled as it is written, and the first
    batch event triggers a cancel, as the reader thread would on a cancel message."""

    def __init__(self, child: _Child, cancel_at: int | None) -> None:
        self.child, self.cancel_at = child, cancel_at
        self.messages: list[tuple[Any, ...]] = []

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        message = pickle.loads(bytes(data)[4:])
        self.messages.append(message)
        if message[0] == "event" and _unwire(message[2]).checked == self.cancel_at:
            self.child._cancel(message[1])
        return len(data)


def test_cancel_reaches_the_pass_in_the_child_between_batches(
    scenario: Scenario, tmp_path: Path
) -> None:
    db = tmp_path / "m.db"
    ids = make_store(db, [{"source_commit": scenario.sha["c1"]}] * 40)
    child = _Child(io.BytesIO(), io.BytesIO())
    out = _Frames(child, cancel_at=10)
    child.out = out  # type: ignore[assignment]
    child.run(7, job_for(StalenessPass(db, [scenario.path], batch_size=10)))
    events = [_unwire(m[2]) for m in out.messages if m[0] == "event"]
    assert [m[0] for m in out.messages[-2:]] == ["report", "counts"]
    wired, report = out.messages[-2][2]
    last = _unwire(wired)
    assert [e.checked for e in events] + [last.checked] == [0, 10, 10]
    assert last.done and last.cancelled and report.cancelled
    assert report.verdicts == []  # they went with the events
    after = rows(db)
    assert [fid for fid in ids if after[fid]["freshness"]] == ids[:10]


def test_a_cancel_that_arrives_before_the_job_starts_cancels_it(
    scenario: Scenario, tmp_path: Path
) -> None:
    db = tmp_path / "m.db"
    make_store(db, [{"source_commit": scenario.sha["c1"]}] * 5)
    child = _Child(io.BytesIO(), io.BytesIO())
    out = _Frames(child, cancel_at=None)
    child.out = out  # type: ignore[assignment]
    child._cancel(3)
    child.run(3, job_for(StalenessPass(db, [scenario.path], batch_size=2)))
    events = [_unwire(m[2]) for m in out.messages if m[0] == "event"]
    assert [m[0] for m in out.messages[-2:]] == ["report", "counts"]
    events.append(_unwire(out.messages[-2][2][0]))
    assert [(e.checked, e.done, e.cancelled) for e in events] == [(0, False, False),
                                                                  (0, True, True)]
    assert all(r["freshness"] is None for r in rows(db).values())


def test_the_child_serves_requests_from_its_stdin_until_it_closes(
    scenario: Scenario, tmp_path: Path
) -> None:
    """The whole loop on real pipes: a precheck, then a job using its list; closing stdin
    ends it."""
    import os
    import threading

    from memharness_tui.staleness.worker import _recv, _send

    db = tmp_path / "m.db"
    make_store(db, [{"source_commit": scenario.sha["c1"]}] * 3)
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    with os.fdopen(r_in, "rb") as inp, os.fdopen(w_in, "wb") as to_child, \
            os.fdopen(w_out, "wb") as out, os.fdopen(r_out, "rb") as from_child:
        serving = threading.Thread(target=_Child(inp, out).serve)
        serving.start()
        _send(to_child, ("precheck", 1, {"db_path": str(db), "repos": [str(scenario.path)]}))
        _send(to_child, ("job", 2, job_for(StalenessPass(db, [scenario.path]), prechecked=True)))
        got = [_recv(from_child)]
        while got[-1][0] not in ("report", "error"):
            got.append(_recv(from_child))
        to_child.close()
        serving.join(10)
        assert not serving.is_alive()
    assert got[0] == ("coverage", 1, (3, 3))
    assert [m[0] for m in got[1:]] == ["event", "event", "report"]
    wired, report = got[-1][2]
    last = _unwire(wired)
    assert last.done and last.checked == 3
    assert report.summary_line() == "checked 3 / current 0 / stale 3 / unresolved 0"


def test_a_pass_handed_the_prechecks_checkers_uses_them_once(
    scenario: Scenario, tmp_path: Path
) -> None:
    from memharness_tui.staleness.git import GitChecker
    from memharness_tui.staleness.precheck import coverage_and_work_with

    here, there, _ = _two_copies(scenario, tmp_path)
    checker = GitChecker(scenario.path)
    cov, work = coverage_and_work_with([checker], there)
    assert cov == pin_coverage(here, [scenario.path])
    spass = StalenessPass(there, [scenario.path], work=work, checkers=[checker])
    assert spass.open_checkers() == [checker]  # handed over: not opened again
    assert spass.open_checkers()[0] is not checker  # used once
    spass = StalenessPass(there, [scenario.path], work=work, checkers=[checker])
    assert spass.run().verdicts == StalenessPass(here, [scenario.path]).run().verdicts


def test_the_pass_started_by_an_ok_precheck_is_taken_over(
    scenario: Scenario, tmp_path: Path, worker: PassWorker
) -> None:
    here, there, ids = _two_copies(scenario, tmp_path)
    local: list[PassProgress] = []
    expected = StalenessPass(here, [scenario.path], batch_size=5, on_progress=local.append).run()
    job = job_for(StalenessPass(there, [scenario.path], batch_size=5), prechecked=True)
    worker.precheck(str(there), [str(scenario.path)], job)
    requests = worker._runs
    spass = StalenessPass(there, [scenario.path], batch_size=5)
    remote = list(worker.events(job_for(spass, prechecked=True), spass))
    assert worker._runs == requests  # no second request: the running pass was taken over
    assert [(e.checked, e.done) for e in remote] == [(e.checked, e.done) for e in local]
    assert spass.report.verdicts == expected.verdicts
    mine, theirs = rows(here), rows(there)
    assert [theirs[f]["freshness"] for f in ids] == [mine[f]["freshness"] for f in ids]


def test_a_different_pass_after_the_precheck_replaces_the_one_it_started(
    scenario: Scenario, tmp_path: Path, worker: PassWorker
) -> None:
    here, there, ids = _two_copies(scenario, tmp_path)
    job = job_for(StalenessPass(there, [scenario.path], batch_size=5), prechecked=True)
    worker.precheck(str(there), [str(scenario.path)], job)
    spass = StalenessPass(there, [scenario.path], batch_size=3)  # not the pass prechecked
    events = list(worker.events(job_for(spass, prechecked=True), spass))
    assert [e.checked for e in events][:3] == [0, 3, 6]  # this job's own batches
    assert events[-1].done and not events[-1].cancelled
    expected = StalenessPass(here, [scenario.path]).run()
    assert spass.report.summary_line() == expected.summary_line()
    mine, theirs = rows(here), rows(there)
    assert [theirs[f]["freshness"] for f in ids] == [mine[f]["freshness"] for f in ids]


def test_a_wrong_repo_precheck_starts_nothing(
    scenario: Scenario, other_repo: Scenario, tmp_path: Path, worker: PassWorker
) -> None:
    _, there, _ = _two_copies(scenario, tmp_path)
    before = rows(there)
    job = job_for(StalenessPass(there, [other_repo.path]), prechecked=True)
    cov = worker.precheck(str(there), [str(other_repo.path)], job)
    assert cov.wrong_repo and worker._speculative is None
    worker.precheck(str(there), [str(other_repo.path)])  # the child is idle again: it answers
    assert rows(there) == before


def test_after_a_writing_pass_the_child_sends_the_counts_it_read_after_its_last_commit(
    scenario: Scenario, tmp_path: Path, worker: PassWorker
) -> None:
    from memharness_tui.store import Store, wal_pages

    here, _, _ = _two_copies(scenario, tmp_path)
    got: list[Any] = []
    store = Store.open(str(here), readonly=True)  # the app holds the file (and its log) open
    try:
        before = store.counts()
        spass = StalenessPass(here, [scenario.path], batch_size=5)
        events = list(worker.events(job_for(spass), spass, got.append))
        assert events[-1].done and len(got) == 1 and got[0] is not None
        assert got[0].counts == store.counts() != before
        assert got[0].counts.stale == spass.report.stale > 0
        assert got[0].mark == wal_pages.mark_now(str(here))  # the log stands where they were read
    finally:
        store.close()
    got.clear()
    spass = StalenessPass(here, [scenario.path], check_only=True)
    assert list(worker.events(job_for(spass), spass, got.append))[-1].done
    assert got == [None]  # nothing written: nothing to tell


def _reads_of_pins(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per read of a store's pins (``work_list``) from now on."""
    from memharness_tui.staleness import work as work_mod

    reads: list[int] = []
    real = work_mod.work_list

    def counting(store: Any, commits: Any = None) -> Any:
        reads.append(1)
        return real(store, commits)

    monkeypatch.setattr(work_mod, "work_list", counting)
    return reads


def _child() -> _Child:
    """A child loop run in this process, its answers kept (``child.out.messages``)."""
    child = _Child(io.BytesIO(), io.BytesIO())
    child.out = _Frames(child, cancel_at=None)  # type: ignore[assignment]
    return child


def _precheck(child: _Child, run: int, db: Path, repo: Path) -> list[int]:
    """The fact ids of the work list the child's precheck kept for the pass."""
    child.precheck(run, {"db_path": str(db), "repos": [str(repo)], "job": None})
    assert child.prechecked is not None
    return [w.fact_id for w in child.prechecked[2]]


def test_pins_read_ahead_serve_the_precheck_until_a_commit_lands(
    scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pass process reads the pins while nobody waits (``ahead``); the precheck after it
    takes them, but only while no other connection has committed since."""
    from memharness_tui.store import Store

    db = tmp_path / "m.db"
    ids = make_store(db, [{"source_commit": scenario.sha["c1"]}] * 4)
    child = _child()
    reads = _reads_of_pins(monkeypatch)
    child.ahead.read(str(db))
    child.ahead.read(str(db))  # still the store's pins: not read again
    assert reads == [1]
    assert _precheck(child, 1, db, scenario.path) == ids
    assert reads == [1]  # taken, not read again
    assert child.out.messages[-1][:2] == ("coverage", 1)  # type: ignore[attr-defined]
    agent = Store.open(str(db))
    try:
        new = agent.remember("proj", "pinned after the read ahead",
                             source_commit=scenario.sha["c1"])[0]
    finally:
        agent.close()
    assert _precheck(child, 2, db, scenario.path) == [*ids, new]  # read again: a commit
    assert reads == [1, 1]


def test_pins_read_ahead_are_not_taken_for_a_file_swapped_in_since(
    scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    db = tmp_path / "m.db"
    make_store(db, [{"source_commit": scenario.sha["c1"]}] * 3)
    other = tmp_path / "other.db"
    theirs = make_store(other, [{"source_commit": scenario.sha["c1"]}] * 5)
    child = _child()
    reads = _reads_of_pins(monkeypatch)
    child.ahead.read(str(db))
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{db}{suffix}")
    os.replace(other, db)  # a sync tool puts another file at the path
    assert _precheck(child, 1, db, scenario.path) == theirs
    assert reads == [1, 1]


def test_the_app_side_asks_the_pass_process_to_read_ahead(
    scenario: Scenario, tmp_path: Path, worker: PassWorker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``PassWorker.ahead`` reaches the child over the pipe (no answer), and the precheck after
    it answers as one that read the pins itself."""
    here, there, _ = _two_copies(scenario, tmp_path)
    worker.start()
    worker.ahead(str(there))
    cov = worker.precheck(str(there), [str(scenario.path)])
    assert cov == pin_coverage(here, [scenario.path])
    spass = StalenessPass(there, [scenario.path], batch_size=5)
    events = list(worker.events(job_for(spass, prechecked=True), spass))
    expected = StalenessPass(here, [scenario.path], batch_size=5).run()
    assert events[-1].done and spass.report.summary_line() == expected.summary_line()


def test_the_child_queues_a_read_ahead_between_the_jobs_it_is_sent(tmp_path: Path) -> None:
    from memharness_tui.staleness.worker import _send

    sent = io.BytesIO()
    _send(sent, ("ahead", 0, {"db_path": str(tmp_path / "m.db")}))
    _send(sent, ("job", 4, {"db_path": "x"}))
    child = _Child(io.BytesIO(sent.getvalue()), io.BytesIO())
    child.read()  # to the end of its stdin
    queued = []
    while (message := child.jobs.get_nowait()) is not None:
        queued.append(message[:2])
    assert queued == [("ahead", 0), ("job", 4)]


def test_pins_read_ahead_are_read_again_after_a_pass_in_the_child(
    scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "m.db"
    make_store(db, [{"source_commit": scenario.sha["c1"]}] * 3)
    child = _child()
    reads = _reads_of_pins(monkeypatch)
    child.ahead.read(str(db))
    child.run(1, job_for(StalenessPass(db, [scenario.path], batch_size=2)))
    assert [m[0] for m in child.out.messages[-2:]] == ["report", "counts"]  # type: ignore[attr-defined]
    reads.clear()
    _precheck(child, 2, db, scenario.path)
    assert reads == [1]  # the pass wrote: the pins are read again


def test_pins_read_ahead_are_not_taken_once_the_log_files_were_replaced(
    scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool deletes the ``-wal`` and ``-shm`` (the database file stays) and an agent in
    another process commits: a connection kept open here still reads the old index, where that
    commit never lands; the precheck lets it go and reads the pins afresh."""
    import os
    import subprocess
    import sys

    db = tmp_path / "m.db"
    ids = make_store(db, [{"source_commit": scenario.sha["c1"]}] * 3)
    child = _child()
    child.ahead.read(str(db))
    assert child.ahead.held is not None
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{db}{suffix}")
    agent = ("import sys; from memharness_tui.store import Store; s = Store.open(sys.argv[1]); "
             "print(s.remember('proj', 'pinned by an agent meanwhile', "
             "source_commit=sys.argv[2])[0]); s.close()")
    new = int(subprocess.run([sys.executable, "-c", agent, str(db), scenario.sha["c1"]],
                             check=True, capture_output=True, text=True).stdout)
    assert _precheck(child, 1, db, scenario.path) == [*ids, new]
    # and nothing of ours, open or closed, put the old log back over the agent's commit
    assert [fid for fid in rows(db)] == [*ids, new]


def test_counts_that_cannot_be_read_leave_the_pass_ended(
    scenario: Scenario, tmp_path: Path, worker: PassWorker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pass had ended when its counts' message failed to come through: the events end
    as they would, and the counts are None."""
    from memharness_tui.staleness import worker as worker_mod

    real = worker_mod._recv

    def recv(inp: Any) -> tuple[Any, ...]:
        message = real(inp)
        if message[0] == "counts":
            raise AttributeError("no such class here (an upgrade in place, say)")
        return message

    monkeypatch.setattr(worker_mod, "_recv", recv)
    here, _, _ = _two_copies(scenario, tmp_path)
    got: list[Any] = []
    spass = StalenessPass(here, [scenario.path], batch_size=5)
    events = list(worker.events(job_for(spass), spass, got.append))
    assert events[-1].done and got == [None]
    assert spass.report.summary_line().startswith("checked ")


def test_pins_read_while_a_commit_landed_are_not_kept(
    scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memharness_tui.staleness import work as work_mod
    from memharness_tui.store import Store

    db = tmp_path / "m.db"
    make_store(db, [{"source_commit": scenario.sha["c1"]}] * 3)
    holder = Store.open(str(db), readonly=True)  # the app's connection: the log stays
    holder.counts()
    real = work_mod.work_list

    def committed_meanwhile(store: Any, commits: Any = None) -> Any:
        items = real(store, commits)
        agent = Store.open(str(db))
        try:
            agent.remember("proj", "pinned while the pins were read",
                           source_commit=scenario.sha["c1"])
        finally:
            agent.close()
        return items

    monkeypatch.setattr(work_mod, "work_list", committed_meanwhile)
    child = _Child(io.BytesIO(), io.BytesIO())
    try:
        child.ahead.read(str(db))
        assert child.ahead.held is None  # not knowable which commit they stand for: not kept
    finally:
        holder.close()
