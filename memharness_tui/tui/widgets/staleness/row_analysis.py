"""Drift and triage for the flagged table, computed lazily: only for the rows on screen (after a
short debounce), or for every matching row when a sort or a bulk selection needs them all.

Git runs in thread workers; each worker opens its own ``GitView`` and ``Triager`` (they hold
libgit2 objects, which stay in the thread that made them) and hands results back to the UI
thread one row at a time (``call_from_thread``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import work
from textual.worker import get_current_worker

from memharness_tui.tui.services.git import GitView, Judged, RowAnalysis, open_triager

if TYPE_CHECKING:
    from memharness_tui.tui.services.git import Drift, Triage

__all__ = ["LazyRowAnalysis", "RowInfo"]

PROGRESS_EVERY = 500  # rows triaged between updates of "triaging N…" on the filter line


@dataclass
class RowInfo:
    """What git says about a flagged row now (reason, repo), its drift and triage once computed."""

    judged: Judged | None = None
    drift: Drift | None = None
    drift_done: bool = False
    triage: Triage | None = None
    triage_done: bool = False


class LazyRowAnalysis:
    """Mixed into the flagged panel (a widget with ``rows``, ``shown``, ``table``, ``repos``,
    ``drift_delay``, ``filtered()`` and ``_show_filters()``)."""

    rows: dict[int, RowInfo]
    shown: list[Any]
    analysing: int
    drift_delay: float
    _drift_timer: Any
    table: Any
    repos: Any
    app: Any

    def _scrolled(self, _value: float) -> None:
        self._schedule_drift()

    def _schedule_drift(self) -> None:
        if self._drift_timer is not None:
            self._drift_timer.stop()
        delay = self.drift_delay
        if delay <= 0:
            self.compute_visible_drift()
        else:
            self._drift_timer = self.set_timer(delay, self.compute_visible_drift)

    def visible_ids(self) -> list[int]:
        rows = self.table.visible_range()
        return [f.id for f in self.shown[rows.start:rows.stop]]

    def _needs_work(self, info: RowInfo) -> bool:
        if not info.triage_done:
            return True
        j = info.judged
        return (not info.drift_done and j is not None and j.resolved
                and j.freshness != "unresolved")

    def compute_visible_drift(self) -> None:
        on_screen = self.table.visible_range()
        wanted = [f for f in self.shown[on_screen.start:on_screen.stop]
                  if (info := self.rows.get(f.id)) is not None and self._needs_work(info)]
        if wanted:
            self._row_worker(self._items(wanted), list(self.repos))

    def _items(self, facts: list[Any]) -> list[RowAnalysis]:
        out = []
        for f in facts:
            info = self.rows[f.id]
            j = info.judged
            want_drift = (not info.drift_done and j is not None and j.resolved
                          and j.freshness != "unresolved")
            out.append(RowAnalysis(f.id, f.fact, f.source_commit, f.source_path,
                                   j.repo if j is not None else None, want_drift,
                                   not info.triage_done))
        return out

    @work(thread=True, exclusive=True, group="drift", exit_on_error=False)
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
            self.app.call_from_thread(self._set_row, item, drift, result)

    def _set_row(self, item: RowAnalysis, drift: Drift | None, result: Triage | None) -> None:
        info = self.rows.get(item.fact_id)
        if info is None:
            return
        if item.want_drift:
            info.drift, info.drift_done = drift, True
        if item.want_triage:
            info.triage, info.triage_done = result, True
        self.table.refresh_row(str(item.fact_id))

    def triage_all(self, then: Callable[[], None]) -> None:
        """Triage every matching row not triaged yet (a worker thread), then call ``then``."""
        todo = [f for f in self.filtered() if not self.rows[f.id].triage_done]
        self.analysing = len(todo)
        self._show_filters()
        self._triage_all_worker([RowAnalysis(f.id, f.fact, f.source_commit, f.source_path,
                                             None, False, True) for f in todo],
                                list(self.repos), then)

    @work(thread=True, exclusive=True, group="triage-all", exit_on_error=False)
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
                self.app.call_from_thread(self._triage_left, len(items) - n)
        self.app.call_from_thread(self._triaged_all, done, then)

    def _triage_left(self, left: int) -> None:
        if self.analysing:  # not finished (or cancelled by a reload) meanwhile
            self.analysing = left
            self._show_filters()

    def _triaged_all(self, done: list[tuple[int, Triage]], then: Callable[[], None]) -> None:
        for fid, result in done:
            info = self.rows.get(fid)
            if info is not None:
                info.triage, info.triage_done = result, True
        self.analysing = 0
        self.table.refresh_rows()
        then()
        self._show_filters()
