"""Drift and triage for the flagged table, computed lazily: only for the rows on screen (after a
short debounce), or for every matching row when a sort or a bulk selection needs them all.

Git runs in thread workers; each worker opens its own ``GitView`` and ``Triager`` (they hold
libgit2 objects, which stay in the thread that made them) and reports by message to the panel,
one row at a time (:class:`RowAnalysed`), which hands it back to :meth:`LazyRowAnalysis.took`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.message import Message
from textual.worker import Worker, get_current_worker

from memharness_tui.tui.services.git import (
    GitView,
    Judged,
    RowAnalysis,
    open_probes,
    open_triager,
)

if TYPE_CHECKING:
    from textual.timer import Timer

    from memharness_tui.tui.services.git import Drift, HeadSource, Triage
    from memharness_tui.tui.services.passes import Verdict
    from memharness_tui.tui.widgets.staleness.flagged import FlaggedPanel

__all__ = ["LazyRowAnalysis", "PassJudgements", "RowAnalysed", "RowInfo"]

PROGRESS_EVERY = 500  # rows triaged between updates of "triaging N…" on the filter line
#: seconds the rows on screen wait for their drift and triage while a writing pass is followed
PASS_DRIFT_DELAY = 1.0


@dataclass
class RowInfo:
    """What git says about a flagged row now (reason, repo), its drift and triage once computed."""

    judged: Judged | None = None
    drift: Drift | None = None
    drift_done: bool = False
    triage: Triage | None = None
    triage_done: bool = False


class PassJudgements:
    """What the running (or last) pass said about each pin (held as ``panel.from_pass``; the
    dashboard tells it). The flagged list's loads take these instead of asking git again —
    the pass just asked — for as long as the repos are the pass's and each one's HEAD is the
    one it was when the pass started (read again at each load: a couple of small file reads);
    once one moves, they are dropped and git is asked as before."""

    def __init__(self) -> None:
        self._known: dict[int, Judged] = {}
        self._probes: list[HeadSource] = []
        self._heads: list[str | None] = []
        self._repos: tuple[str, ...] = ()

    def started(self, repos: Sequence[str] = ()) -> None:
        self._known, self._repos = {}, tuple(repos)
        self._probes = open_probes(repos)[0]  # a repo that does not open: the pass says so
        self._heads = self._read()

    def _read(self) -> list[str | None]:
        return [p.read() for p in self._probes]

    def learn(self, verdicts: Sequence[Verdict],
              judged: Sequence[Mapping[int, Judged]] = ()) -> None:
        """What the pass said of ``verdicts``; ``judged``: the same, already made (by id)."""
        known = self._known
        if sum(len(j) for j in judged) == len(verdicts):
            for j in judged:
                known.update(j)
            return
        for v in verdicts:
            known[v.fact_id] = Judged(v.freshness, v.reason, v.repo, v.checked_head,
                                      v.resolved is not None)

    def split(self, facts: Sequence[Any],
              repos: Sequence[str]) -> tuple[dict[int, Judged | None], list[Any]]:
        """(what the pass said about ``facts``, by id; the facts left for git to judge)."""
        if self._known and (tuple(repos) != self._repos or self._read() != self._heads):
            self._known = {}  # other repos, or a HEAD moved: git says it again
        known = self._known
        judged: dict[int, Judged | None] = {
            f.id: j for f in facts if (j := known.get(f.id)) is not None}
        return judged, [f for f in facts if f.id not in judged]


class RowAnalysed(Message):
    """News from an analysis worker: ``apply`` runs on the UI thread unless the worker was
    cancelled meanwhile (a newer one took over: its rows may be judged at another HEAD)."""

    bubble = False

    def __init__(self, worker: Worker[Any], apply: Callable[[], None]) -> None:
        super().__init__()
        self.worker = worker
        self.apply = apply


class LazyRowAnalysis:
    """Drift and triage for ``panel``'s rows (held as ``panel.analysis``): it reads the
    panel's ``rows``, ``shown``, ``table``, ``repos``, ``drift_delay`` and ``filtered()``, and
    fills in ``rows``; workers run on the panel (their errors reach the app through it)."""

    def __init__(self, panel: FlaggedPanel) -> None:
        self._panel = panel
        self._drift_timer: Timer | None = None
        self._during = False  # the timer was set while a writing pass was followed

    def scrolled(self, _value: float) -> None:
        self.schedule_drift()

    def schedule_drift(self) -> None:
        """Drift and triage for the rows on screen after ``drift_delay`` without a new call —
        while a writing pass is followed, ``PASS_DRIFT_DELAY`` after the first call (git here
        takes a core from the pass process: a short pass ends first, and its end calls again)."""
        panel = self._panel
        delay = panel.drift_delay
        during = delay > 0 and panel.follower.rows.active
        if self._drift_timer is not None:
            if during and self._during:
                return  # the pass's list changes at each batch: not a reason to wait longer
            self._drift_timer.stop()
        self._drift_timer, self._during = None, during
        if delay <= 0:
            self.compute_visible_drift()
        else:
            self._drift_timer = panel.set_timer(max(delay, PASS_DRIFT_DELAY) if during else delay,
                                                self.compute_visible_drift)

    def needs_work(self, info: RowInfo) -> bool:
        if not info.triage_done:
            return True
        j = info.judged
        return (not info.drift_done and j is not None and j.resolved
                and j.freshness != "unresolved")

    def compute_visible_drift(self) -> None:
        self._drift_timer = None
        panel = self._panel
        on_screen = panel.table.visible_range()
        wanted = [f for f in panel.shown[on_screen.start:on_screen.stop]
                  if (info := panel.rows.get(f.id)) is not None and self.needs_work(info)]
        if wanted:
            panel.run_worker(partial(self._row_worker, self._items(wanted), list(panel.repos)),
                             thread=True, exclusive=True, group="drift", exit_on_error=False)

    def _items(self, facts: list[Any]) -> list[RowAnalysis]:
        out = []
        for f in facts:
            info = self._panel.rows[f.id]
            j = info.judged
            want_drift = (not info.drift_done and j is not None and j.resolved
                          and j.freshness != "unresolved")
            out.append(RowAnalysis(f.id, f.fact, f.source_commit, f.source_path,
                                   j.repo if j is not None else None, want_drift,
                                   not info.triage_done))
        return out

    def _row_worker(self, items: list[RowAnalysis], repos: list[str]) -> None:
        worker = get_current_worker()
        view = GitView(repos)  # libgit2 handles: this thread's own
        triager = open_triager(repos)
        for item in items:
            if worker.is_cancelled:
                return
            drift = view.drift(item.commit or "", item.path, item.repo) \
                if item.want_drift and item.repo and item.commit else None
            result = item.triage(triager) if item.want_triage else None
            self._post(worker, partial(self._set_row, item, drift, result))

    def _post(self, worker: Worker[Any], apply: Callable[[], None]) -> None:
        self._panel.post_message(RowAnalysed(worker, apply))

    def took(self, message: RowAnalysed) -> None:
        """A worker's news (the panel's handler for :class:`RowAnalysed` calls this)."""
        if not message.worker.is_cancelled:
            message.apply()

    def _set_row(self, item: RowAnalysis, drift: Drift | None, result: Triage | None) -> None:
        info = self._panel.rows.get(item.fact_id)
        if info is None:
            return
        if item.want_drift:
            info.drift, info.drift_done = drift, True
        if item.want_triage:
            info.triage, info.triage_done = result, True
        self._panel.table.refresh_row(str(item.fact_id))

    def triage_all(self, then: Callable[[], None]) -> None:
        """Triage every matching row not triaged yet (a worker thread), then call ``then``."""
        panel = self._panel
        todo = [f for f in panel.filtered() if not panel.rows[f.id].triage_done]
        panel.analysing = len(todo)
        panel.show_filters()
        items = [RowAnalysis(f.id, f.fact, f.source_commit, f.source_path, None, False, True)
                 for f in todo]
        panel.run_worker(partial(self._triage_all_worker, items, list(panel.repos), then),
                         thread=True, exclusive=True, group="triage-all", exit_on_error=False)

    def _triage_all_worker(self, items: list[RowAnalysis], repos: list[str],
                           then: Callable[[], None]) -> None:
        worker = get_current_worker()
        triager = open_triager(repos)
        done: list[tuple[int, Triage]] = []
        for n, item in enumerate(items, 1):
            if worker.is_cancelled:
                return
            done.append((item.fact_id, item.triage(triager)))
            if n % PROGRESS_EVERY == 0 and n < len(items):
                self._post(worker, partial(self._triage_left, len(items) - n))
        self._post(worker, partial(self._triaged_all, done, then))

    def _triage_left(self, left: int) -> None:
        panel = self._panel
        if panel.analysing:  # not finished (or cancelled by a reload) meanwhile
            panel.analysing = left
            panel.show_filters()

    def _triaged_all(self, done: list[tuple[int, Triage]], then: Callable[[], None]) -> None:
        panel = self._panel
        for fid, result in done:
            info = panel.rows.get(fid)
            if info is not None:
                info.triage, info.triage_done = result, True
        panel.analysing = 0
        panel.table.refresh_rows()
        then()
        panel.show_filters()
