"""The staleness pass: judge every live pinned fact against git, write verdicts in batches.

Built to run in a worker thread: the pass opens its own Store (its own database
connection) and its own ``GitChecker`` per repo inside :meth:`StalenessPass.iter_batches`,
so everything libgit2 and SQLite touches lives in the thread that iterates.
A UI either calls :meth:`run` in a worker (progress via ``on_progress``) or drives
:meth:`iter_batches` itself, one batch per ``next()``, for deterministic tests.
"""

from __future__ import annotations

import operator
import os
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memharness_tui.store import agents
from memharness_tui.store.beliefs import NotABelief
from memharness_tui.store.errors import (
    FileReplaced,
    InvalidInput,
    MemharnessError,
    NotFound,
    show_path,
    without_nothing_written,
)

from .git import CorruptObject, GitChecker, RepoError
from .verdicts import CURRENT, STALE, UNRESOLVED, Verdict, classify_many
from .work import WorkItem, work_list

if TYPE_CHECKING:
    from memharness_tui.store import Store
    from memharness_tui.store.clock import Clock

__all__ = [
    "DOWNGRADE_AGENT",
    "UNRESOLVED",  # re-exported for the CLI and UI
    "PassProgress",
    "PassReport",
    "PassStopped",
    "RepoError",  # re-exported for the CLI and UI
    "StalenessPass",
    "WorkItem",
    "stale_ids_line",
    "summary_line",
]

#: ``source_agent`` of rows written by downgrade mode. A live row written by it is
#: not downgraded again by a later pass (so repeated hooks do not halve it each time).
DOWNGRADE_AGENT = agents.STALENESS
DOWNGRADE_AGENTS = agents.DOWNGRADES  # a pass's, the app's


def summary_line(checked: int, current: int, stale: int, unresolved: int, backfilled: int,
                 *, grouped: bool = False) -> str:
    """``checked N / current C / stale S / unresolved U`` (+ `` / backfilled B`` when non-zero).

    The headless command prints plain digits, as the reference bin does; the app passes
    ``grouped=True`` so its numbers read one way (``11,000``) everywhere on screen.
    """
    n = "{:,}".format if grouped else str
    line = f"checked {n(checked)} / current {n(current)} / stale {n(stale)} / unresolved {n(unresolved)}"
    return line + (f" / backfilled {n(backfilled)}" if backfilled else "")


def stale_ids_line(ids: Sequence[int]) -> str:
    """``stale ids: #4, #7`` — the reference bin's line after the summary (when any)."""
    return "stale ids: " + ", ".join(f"#{i}" for i in ids)


@dataclass(frozen=True, slots=True)
class PassProgress:
    """A progress event; safe to hand to another thread (immutable, plain data).

    The first event of a pass has ``checked == 0`` and carries ``total``; one more
    follows each batch; the last has ``done`` set (and ``cancelled`` if so).
    """

    checked: int
    current: int
    stale: int
    unresolved: int
    backfilled: int
    total: int
    fact_id: int | None = None  # the last fact judged
    verdicts: tuple[Verdict, ...] = ()  # this batch's verdicts
    done: bool = False
    cancelled: bool = False

    @property
    def fraction(self) -> float:
        return 1.0 if self.total == 0 else self.checked / self.total

    def summary_line(self) -> str:
        return summary_line(self.checked, self.current, self.stale, self.unresolved, self.backfilled)


@dataclass(slots=True)
class PassReport:
    """What a pass found (and wrote, unless check-only)."""

    total: int = 0
    checked: int = 0
    current: int = 0
    stale: int = 0
    unresolved: int = 0
    backfilled: int = 0
    stale_ids: list[int] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    downgraded: list[tuple[int, int]] = field(default_factory=list)  # (old id, new id)
    skipped: list[int] = field(default_factory=list)  # revised or retracted by others mid-pass
    #: stale facts not downgraded because they stopped being beliefs between the verdict and
    #: the downgrade (an agent retracted or revised them): (id, the sentence saying so). Also
    #: in ``skipped``; the CLI prints the sentence (the JSON report's keys are a contract)
    left: list[tuple[int, str]] = field(default_factory=list)
    heads: dict[str, str] = field(default_factory=dict)  # repo path -> HEAD SHA
    elapsed: float = 0.0
    cancelled: bool = False
    check_only: bool = False
    #: damaged git objects met mid-pass (one line each, naming the repo and the object): the
    #: pins that needed them were left as they were, not judged
    repo_errors: list[str] = field(default_factory=list)
    unjudged: int = 0  # pins left as they were because of those

    def summary_line(self) -> str:
        """Exactly the headless command's first line."""
        return summary_line(self.checked, self.current, self.stale, self.unresolved, self.backfilled)

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary_line(),
            "total": self.total,
            "checked": self.checked,
            "current": self.current,
            "stale": self.stale,
            "unresolved": self.unresolved,
            "backfilled": self.backfilled,
            "stale_ids": list(self.stale_ids),
            "downgraded": [{"old_id": o, "new_id": n} for o, n in self.downgraded],
            "skipped": list(self.skipped),
            "repos": [{"path": p, "head": h} for p, h in self.heads.items()],
            "check_only": self.check_only,
            "cancelled": self.cancelled,
            "elapsed_seconds": round(self.elapsed, 6),
            "verdicts": [v.to_dict() for v in self.verdicts],
            "repo_errors": list(self.repo_errors),
            "unjudged": self.unjudged,
        }


class PassStopped(MemharnessError):
    """A pass that stopped at a failed write, saying exactly what it had written by then
    (``report``): never "nothing was written" after batches were."""

    code = "PASS_STOPPED"

    def __init__(self, message: str, report: PassReport) -> None:
        super().__init__(message)
        self.report = report


def stopped_message(report: PassReport, exc: MemharnessError, path: str, *,
                    downgrade: bool) -> str:
    """``16 of 1,500 verdicts written, then the disk holding … is full; the rest are unchanged
    — free some space and try again``, from the report as written and the failure."""
    done = f"{report.checked:,} of {report.total:,} verdict{'s' if report.total != 1 else ''}"
    if downgrade:
        n = len(report.downgraded)
        done += f" and {n:,} downgrade{'s' if n != 1 else ''}"
    if isinstance(exc, FileReplaced):
        shown = show_path(path)
        if exc.what == "sidecars":
            return (f"the -wal/-shm beside {shown} were deleted during the pass: the {done} "
                    "written before may have gone with the old -wal, and nothing more was written "
                    "— rerun the pass on the file as it is now")
        how = "replaced by another file" if exc.what == "replaced" else exc.what
        return (f"{shown} was {how} during the pass: the {done} written before went to the "
                "old file, not to what is there now, and nothing more was written — rerun the "
                "pass on the file that is there now")
    cause, _, advice = without_nothing_written(exc.message).partition(" — ")
    text = f"{done} written, then {cause}; the rest are unchanged"
    return f"{text} — {advice}" if advice else text


class StalenessPass:
    """One pass over the store's pinned facts against one or more repos.

    ``db_path``: the store file (opened by the pass, in the thread that runs it).
    ``repos``: repo paths (work tree, subfolder or bare); a pin is judged in the
    repo where its commit exists. ``check_only`` opens the store read-only and
    writes nothing. ``downgrade`` revises every fact found stale (already stale
    ones too, but never a live row a downgrade wrote) with confidence × ``factor``.
    ``on_progress`` is called from the running thread after each batch.

    ``work``: the work list :func:`.work.work_list` read moments before (the wrong-repo precheck
    reads it anyway), so the pass need not read every pin again; the next run reads afresh.
    ``checkers``: likewise the precheck's open repos (one per entry of ``repos``).
    Rows revised or retracted since it was read are skipped by the writer's liveness guard,
    exactly as for rows changed while a pass runs.

    ``batch_size`` rows are written per transaction. Each verdict UPDATE also fires
    the FTS5 ``facts_au`` trigger the schema requires (~30 µs a row here), so a
    batch of 500 holds the write lock for ~15 ms: short enough that an agent
    writing at the same time waits far less than its 5 s busy timeout.
    """

    def __init__(
        self,
        db_path: str | os.PathLike[str],
        repos: Sequence[str | os.PathLike[str]],
        *,
        check_only: bool = False,
        downgrade: bool = False,
        factor: float = 0.5,
        batch_size: int = 500,
        on_progress: Callable[[PassProgress], None] | None = None,
        clock: Clock | None = None,
        store_factory: Callable[..., Store] | None = None,
        work: Sequence[WorkItem] | None = None,
        checkers: Sequence[GitChecker] | None = None,
    ) -> None:
        if not repos:
            raise ValueError("a staleness pass needs at least one repo")
        if check_only and downgrade:
            raise ValueError("check-only and downgrade cannot be combined")
        if isinstance(factor, bool) or not isinstance(factor, int | float) or not 0 < factor <= 1:
            raise ValueError(f"downgrade factor must be a number in (0, 1], got {factor!r}")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.db_path = str(db_path)
        self.repos = [Path(r) for r in repos]
        self.check_only = check_only
        self.downgrade = downgrade
        self.factor = float(factor)
        self.batch_size = batch_size
        self.on_progress = on_progress
        self.clock = clock
        self._store_factory = store_factory
        self._cancel = threading.Event()
        self._work = list(work) if work is not None else None
        self._checkers = list(checkers) if checkers is not None else None
        self.report = PassReport(check_only=check_only)

    # -- control ---------------------------------------------------------

    def cancel(self) -> None:
        """Ask the pass to stop before its next batch (thread-safe)."""
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def run(self) -> PassReport:
        """Run the whole pass in this thread; return the report."""
        events = self.iter_batches()
        try:
            for event in events:
                if self.on_progress is not None:
                    self.on_progress(event)
        finally:
            events.close()  # closes the store even when on_progress raised
        return self.report

    # -- the pass --------------------------------------------------------

    def open_checkers(self) -> list[GitChecker]:
        """Open every repo and walk HEAD's history (raises RepoError before any write).

        Checkers handed over (``checkers``: the ones a precheck opened moments before, one per
        repo, in order) are used once instead of opening the repos again.
        """
        handed, self._checkers = self._checkers, None
        checkers: list[GitChecker] = []
        seen: set[Path] = set()
        for i, r in enumerate(self.repos):
            ch = handed[i] if handed is not None and i < len(handed) else GitChecker(r)
            if ch.path not in seen:
                seen.add(ch.path)
                checkers.append(ch)
        for ch in checkers:
            _ = ch.ancestors
        return checkers

    def _open_store(self) -> Store:
        if self._store_factory is not None:
            return self._store_factory(self.db_path, clock=self.clock, readonly=self.check_only)
        from memharness_tui.store import Store

        store = Store.open(self.db_path, clock=self.clock, readonly=self.check_only)
        # No memory map: a file truncated under a mapped read kills the process with SIGBUS
        # (no message, no count); read(2) instead fails as one sentence the pass reports.
        # The pass reads each row once, so the map bought it nothing measurable.
        store.without_memory_map()
        return store

    def iter_batches(self) -> Generator[PassProgress, None, None]:
        """Run the pass one batch per ``next()``; yields a start event, then one per batch.

        Raises RepoError (or the store's error) before writing anything when a repo
        or the database cannot be used. Closing the generator early leaves every
        written batch whole and the rest untouched.
        """
        started = time.perf_counter()
        report = self.report = PassReport(check_only=self.check_only)
        checkers = self.open_checkers()
        report.heads = {str(c.path): c.head for c in checkers}
        store = self._open_store()
        try:
            work, self._work = self._work, None  # a list handed over is used once
            if work is None:
                work = work_list(store)
            report.total = len(work)
            yield self._event(report)
            judge = _Judge(checkers)
            for start in range(0, len(work), self.batch_size):
                if self._cancel.is_set():
                    report.cancelled = True
                    break
                batch = work[start : start + self.batch_size]
                if not self.check_only:
                    self._stop_if(store.check_file)  # the path still names the open file
                verdicts = _judge_all(judge, batch, report)
                if not self.check_only:
                    verdicts = self._stop_if(self._write, store, verdicts)
                else:
                    _count(report, verdicts)
                report.elapsed = time.perf_counter() - started
                yield self._event(report, verdicts, batch[-1].fact_id)
            report.elapsed = time.perf_counter() - started
            yield self._event(report, done=True)
        finally:
            store.close()

    def _event(
        self,
        r: PassReport,
        verdicts: Sequence[Verdict] = (),
        fact_id: int | None = None,
        *,
        done: bool = False,
    ) -> PassProgress:
        return PassProgress(
            checked=r.checked,
            current=r.current,
            stale=r.stale,
            unresolved=r.unresolved,
            backfilled=r.backfilled,
            total=r.total,
            fact_id=fact_id,
            verdicts=tuple(verdicts),
            done=done,
            cancelled=r.cancelled,
        )

    def _stop_if(self, step: Callable[..., Any], *args: Any) -> Any:
        """Run a write step; a store failure becomes :class:`PassStopped`, which says what
        the pass had written by then (batches written stay whole; the rest are unchanged)."""
        try:
            return step(*args)
        except PassStopped:
            raise
        except MemharnessError as exc:
            raise PassStopped(stopped_message(self.report, exc, self.db_path,
                                              downgrade=self.downgrade), self.report) from exc

    def _write(self, store: Store, verdicts: list[Verdict]) -> list[Verdict]:
        """Write one batch in one short transaction (counted in the report as soon as it
        commits); downgrade stale ones if asked.

        Rows revised or retracted by another process since the work list was read
        (or pinned by someone else, for backfill candidates) are dropped from the
        batch and listed in ``report.skipped``: the store's ``live_only`` guard
        re-checks that inside the write lock, so no separate re-read is needed.
        """
        kept = verdicts
        if not kept:
            return kept
        checked_at = store.now()
        # StalenessUpdate's fields as plain tuples, (id, freshness, checked_at, checked_head,
        # source_commit, source_path): one per pin. A path-only backfill passes no commit: the
        # writer's live_only guard accepts a commit only for rows still unpinned.
        written = store.set_staleness_many(
            [
                (v.fact_id, v.freshness, checked_at, v.checked_head, None, None)
                if not v.backfilled else
                (v.fact_id, v.freshness, checked_at, v.checked_head,
                 None if v.path_only else v.commit, v.path)
                for v in kept
            ],
            live_only=True,  # the guard re-checks liveness inside the write lock
        )
        if len(written) != len(kept):
            done = set(written)
            self.report.skipped.extend(v.fact_id for v in kept if v.fact_id not in done)
            kept = [v for v in kept if v.fact_id in done]
        _count(self.report, kept)
        if self.downgrade:
            for v in kept:
                if v.freshness == STALE:
                    self._downgrade(store, v)
        return kept

    def _downgrade(self, store: Store, v: Verdict) -> None:
        """Revise a stale fact: same text, confidence × factor, same pin, same verdict."""
        old = store.get(v.fact_id)
        if old.source_agent in DOWNGRADE_AGENTS or not old.is_live:
            return  # already a downgrade (or gone): never halve twice
        try:
            # revise + verdict in one transaction: a kill cannot split them
            _, new_id, _ = store.downgrade(
                old.id,
                self.factor,
                source_agent=DOWNGRADE_AGENT,
                freshness=v.freshness,
                checked_head=v.checked_head,
                source_commit=v.commit,
                source_path=v.path,
            )
        except NotABelief as exc:
            # retracted or revised by someone else since the read above (the store re-checks
            # inside its write): theirs wins, and the report says so
            self.report.skipped.append(old.id)
            self.report.left.append((old.id, f"#{old.id} {exc.reason('the pass read it')}"))
            return
        except (NotFound, InvalidInput):
            self.report.skipped.append(old.id)
            return
        self.report.downgraded.append((old.id, new_id))


def _judge_all(judge: _Judge, batch: Sequence[WorkItem], report: PassReport) -> list[Verdict]:
    """The batch's verdicts; a pin whose objects are damaged gets none (its row is left as it
    was) and the damage is reported once per object."""
    try:
        return [judge(item) for item in batch]
    except CorruptObject:
        pass
    out = []
    for item in batch:
        try:
            out.append(judge(item))
        except CorruptObject as e:
            report.unjudged += 1
            if str(e) not in report.repo_errors:
                report.repo_errors.append(str(e))
    return out


def _count(report: PassReport, verdicts: list[Verdict]) -> None:
    """Add a batch's verdicts (as written) to the report's list and counts."""
    report.verdicts.extend(verdicts)
    report.checked += len(verdicts)
    current = stale = unresolved = backfilled = 0
    stale_ids = report.stale_ids
    for v in verdicts:
        freshness = v[1]
        if freshness == CURRENT:
            current += 1
        elif freshness == STALE:
            stale += 1
            stale_ids.append(v[0])
        else:
            unresolved += 1
        if v[8]:  # backfilled
            backfilled += 1
    report.current += current
    report.stale += stale
    report.unresolved += unresolved
    report.backfilled += backfilled


class _Judge:
    """Classify work items against the repos, caching by (pin, path)."""

    def __init__(self, checkers: Sequence[GitChecker]) -> None:
        self.checkers = list(checkers)
        self._cache: dict[tuple[str, str | None], tuple[str, str, str, str, str | None]] = {}
        one = self.checkers[0] if len(self.checkers) == 1 else None
        # one repo: its checker's fast path, and the same repo and HEAD for every verdict
        self._one = (one.judged, one._repo_str, one.head) if one is not None else None

    def __call__(self, item: WorkItem) -> Verdict:
        fact_id, commit, path, backfill, path_only = item
        if self._one is not None:  # the checker caches per pin and per (commit, path) itself
            judged, repo, head = self._one
            freshness, reason, resolved = judged(commit, path)
        else:
            key = (commit.lower(), path)
            hit = self._cache.get(key)
            if hit is None:
                facts, freshness, reason = classify_many(
                    [c.facts(commit, path) for c in self.checkers]
                )
                hit = self._cache[key] = (freshness, reason, facts.repo, facts.head,
                                          facts.commit)
            freshness, reason, repo, head, resolved = hit
        # positional: one Verdict per pin, in the field order of the NamedTuple
        return _new_verdict(Verdict, (fact_id, freshness, reason, commit, path, repo, head,
                                      resolved, backfill, path_only))


_new_verdict = tuple.__new__  # a Verdict from its ten fields, without NamedTuple's __new__
_fact_id = operator.itemgetter(0)
