"""The flagged facts: stale / unresolved rows, filterable by verdict, subject and repo, with
pin, reason and drift (computed lazily for the rows on screen, in a worker), and marks for bulk
triage. Under time travel only rows believed at ``as_of`` are listed (verdicts stay the last
pass's, as the banner says)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import DataTable, Input, Static
from textual.widgets.data_table import CellDoesNotExist, RowDoesNotExist
from textual.worker import get_current_worker

from memharness_tui.tui.render import believed_at, cell, freshness_badge
from memharness_tui.tui.services.git import GitView, Judged, judge_facts
from memharness_tui.tui.widgets.base import WorkerErrorsToApp

if TYPE_CHECKING:
    from memharness_tui.staleness.git import Drift

FLAGGED_LIMIT = 2000  # flagged rows read from the store
FLAGGED_SHOWN = 300  # rows put in the table (a DataTable measures every cell)
VERDICT_FILTERS = (None, "stale", "unresolved")
FLAGGED_COLUMNS = (("mark", " "), ("id", "ID"), ("verdict", "Verdict"), ("fact", "Fact"),
                   ("reason", "Reason"), ("drift", "Drift"), ("pin", "Pin"),
                   ("subject", "Subject"), ("repo", "Repo"))
NARROW = 110  # below this width, fact and reason cells are cut shorter


@dataclass
class RowInfo:
    """What git says about a flagged row now (reason, repo), and its drift once computed."""

    judged: Judged | None = None
    drift: Drift | None = None
    drift_done: bool = False


class FlaggedPanel(WorkerErrorsToApp, Vertical):
    BINDINGS = [
        Binding("a", "mark_all", "Mark all shown", show=False, id="staleness.mark_all",
                tooltip="Mark every fact the filters show (again: unmark them)"),
        Binding("v", "cycle_verdict", "Verdict filter", show=False, id="staleness.verdict",
                tooltip="Filter by verdict: all → stale → unresolved"),
        Binding("o", "cycle_repo", "Repo filter", show=False, id="staleness.repo",
                tooltip="Filter by repo (with several repos)"),
        Binding("f", "focus_filter", "Subject filter", show=False, id="staleness.filter",
                tooltip="Filter by subject (type; Enter or Esc back to the table)"),
        Binding("escape", "leave_filter", "To table", show=False, id="staleness.leave_filter"),
    ]
    DEFAULT_CSS = """
    FlaggedPanel { height: 1fr; }
    #dash-filters { height: 1; padding: 0 1; }
    #dash-filters-label { width: auto; padding: 0; height: 1; }
    #flagged-filter { width: 1fr; margin-left: 1; }
    #flagged-table { height: 1fr; }
    """

    repos: reactive[tuple[str, ...]] = reactive((), init=False)
    as_of: reactive[str | None] = reactive(None, init=False)

    def __init__(self, short: Any, drift_delay: float, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.short = short
        self.drift_delay = drift_delay
        self.flagged: list[Any] = []
        self.flagged_total = 0
        self._filtered_load = False
        self.shown: list[Any] = []
        self.rows: dict[int, RowInfo] = {}
        self.marked: set[int] = set()
        self.verdict_filter: str | None = None
        self.repo_filter: str | None = None
        self._drift_timer: Timer | None = None
        self._loaded = False
        self._needs_load = False

    @property
    def narrow(self) -> bool:
        return 0 < self.size.width < NARROW

    def compose(self) -> ComposeResult:
        with Horizontal(id="dash-filters"):
            yield Static(id="dash-filters-label")
            yield Input(placeholder="subject filter (f)", id="flagged-filter", compact=True)
        yield DataTable(id="flagged-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one("#flagged-table", DataTable)
        self._add_columns(table)
        self.watch(table, "scroll_y", self._scrolled, init=False)
        self.invalidate()  # not at start-up (another tab is shown): when first shown

    def on_resize(self) -> None:
        narrow = self.narrow
        if narrow != getattr(self, "_was_narrow", None):
            self._was_narrow = narrow
            if self._loaded:
                self._fill()
                return
        self._schedule_drift()

    def watch_repos(self) -> None:
        self.invalidate()

    def watch_as_of(self) -> None:
        if self._loaded:
            self._fill()

    @property
    def pass_reasons(self) -> dict[int, str]:
        return self.app.session.reasons  # type: ignore[attr-defined]

    def reload(self) -> None:
        self._needs_load = False
        self._load_flagged()

    def invalidate(self) -> None:
        """The store changed: reload if this tab is shown, else when it is next shown.

        Decided after the next refresh: while the screen mounts, every tab still counts as
        shown (the switcher hides the others only then), and requests in a burst coalesce."""
        self._needs_load = True
        self.call_after_refresh(self._reload_if_shown)

    def _reload_if_shown(self) -> None:
        if self._needs_load and self.is_mounted and all(
                node.display for node in self.ancestors_with_self if hasattr(node, "display")):
            self.reload()

    def on_show(self) -> None:
        if self._needs_load:
            self.reload()
        else:
            self._schedule_drift()

    @work(exclusive=True, group="flagged", exit_on_error=False)
    async def _load_flagged(self) -> None:
        page = await self.app.service.flagged(self.verdict_filter, FLAGGED_LIMIT)
        facts, total = page.facts, page.total
        judged = await judge_facts(list(self.repos), facts)
        self.app.session.note_seen({fid: j.reason for fid, j in judged.items() if j is not None})
        old = self.rows
        self.rows = {}
        for f in facts:
            info = RowInfo(judged.get(f.id))
            prev = old.get(f.id)
            if prev is not None and prev.drift_done and _same_place(prev.judged, info.judged):
                info.drift, info.drift_done = prev.drift, True
            self.rows[f.id] = info
        self.flagged = facts
        self.flagged_total = total
        self.marked &= {f.id for f in facts}
        self._fill()
        self._loaded = True

    def filtered(self) -> list[Any]:
        needle = self.query_one("#flagged-filter", Input).value.strip().casefold()
        out = []
        for f in self.flagged:
            if self.as_of and not believed_at(f, self.as_of):
                continue  # learned (or no longer believed) after the time-travel date
            if self.verdict_filter and f.freshness != self.verdict_filter:
                continue
            if needle and needle not in f.subject.casefold():
                continue
            if self.repo_filter:
                j = self.rows.get(f.id, RowInfo()).judged
                if j is None or j.repo != self.repo_filter:
                    continue
            out.append(f)
        return out

    @staticmethod
    def _add_columns(table: DataTable[Any]) -> None:
        for key, label in FLAGGED_COLUMNS:
            table.add_column(label, key=key)

    def _fill(self) -> None:
        table = self.query_one("#flagged-table", DataTable)
        keep = table.cursor_row
        self.shown = self.filtered()[:FLAGGED_SHOWN]
        table.clear(columns=True)  # columns too: their widths shrink back to the content
        self._add_columns(table)
        for f in self.shown:
            table.add_row(*self._cells(f), key=str(f.id))
        if self.shown:
            table.move_cursor(row=min(keep, len(self.shown) - 1), animate=False)
        self._show_filters()
        self._schedule_drift()

    def _cells(self, f: Any) -> list[Text]:
        info = self.rows.get(f.id, RowInfo())
        mark = Text("●", style="bold") if f.id in self.marked else Text(" ")
        pin = (f"{f.source_path}@" if f.source_path else "") + (f.source_commit or "")[:7]
        return [
            mark,
            Text(str(f.id), style="dim"),
            freshness_badge(self.app, f.freshness, True),
            cell(f.fact, max_len=30 if self.narrow else 46),
            self._reason_cell(f, info),
            self._drift_cell(info),
            cell(pin, "dim", max_len=36),
            cell(f.subject, max_len=18),
            cell(self.short(info.judged.repo) if info.judged else "—", "dim", max_len=24),
        ]

    def _reason_cell(self, f: Any, info: RowInfo) -> Text:
        reason = self.pass_reasons.get(f.id)
        if reason is None and info.judged is not None:
            reason = info.judged.reason
            if info.judged.freshness != f.freshness:
                reason = f"now {info.judged.freshness}: {reason}"
        if reason is None:
            return Text("—" if self.repos else "no repo to ask", style="dim")
        return cell(reason, max_len=38 if self.narrow else 52)

    @staticmethod
    def _drift_cell(info: RowInfo) -> Text:
        if info.judged is None or not info.judged.resolved or \
                info.judged.freshness == "unresolved":
            return Text("—", style="dim")
        if not info.drift_done:
            return Text("…", style="dim")
        d = info.drift
        if d is None:
            return Text("—", style="dim")
        t = Text(f"{d.commits} commit{'s' if d.commits != 1 else ''} ", style="bold")
        t.append(f"+{d.added}", style="green")
        t.append(" ")
        t.append(f"−{d.removed}", style="red")
        return t

    def _show_filters(self) -> None:
        t = Text()
        n_all, n = len(self.flagged), len(self.shown)
        t.append(f"{max(n_all, self.flagged_total):,} flagged", style="bold")
        if self.flagged_total > n_all:
            t.append(f" (first {n_all:,} loaded, {n:,} shown)")
        elif n != n_all:
            t.append(f" ({n:,} shown)")
        t.append("  ·  verdict ", style="dim")
        t.append(self.verdict_filter or "all", style="bold" if self.verdict_filter else "")
        t.append(" (v)", style="dim")
        if len(self.repos) > 1 or self.repo_filter:
            t.append("  ·  repo ", style="dim")
            t.append(self.short(self.repo_filter) if self.repo_filter else "all",
                     style="bold" if self.repo_filter else "")
            t.append(" (o)", style="dim")
        if self.marked:
            t.append(f"  ·  {len(self.marked)} marked", style="bold reverse")
        t.append("  ·  ", style="dim")
        self.query_one("#dash-filters-label", Static).update(t)

    @on(Input.Changed, "#flagged-filter")
    def _filter_typed(self) -> None:
        if self._loaded:
            self._fill()

    @on(Input.Submitted, "#flagged-filter")
    def _filter_done(self) -> None:
        self.query_one("#flagged-table", DataTable).focus()

    def action_focus_filter(self) -> None:
        self.query_one("#flagged-filter", Input).focus()

    def action_leave_filter(self) -> None:
        self.query_one("#flagged-table", DataTable).focus()

    def action_cycle_verdict(self) -> None:
        i = VERDICT_FILTERS.index(self.verdict_filter)
        self.verdict_filter = VERDICT_FILTERS[(i + 1) % len(VERDICT_FILTERS)]
        if self.flagged_total > len(self.flagged) or self._filtered_load:
            self._filtered_load = self.verdict_filter is not None
            self.reload()  # the store filters, so a big list is not cut before the filter
        else:
            self._fill()

    def action_cycle_repo(self) -> None:
        known = sorted({i.judged.repo for i in self.rows.values() if i.judged is not None})
        choices: list[str | None] = [None, *known]
        i = choices.index(self.repo_filter) if self.repo_filter in choices else 0
        self.repo_filter = choices[(i + 1) % len(choices)]
        self._fill()

    # ----- drift, lazily for the rows on screen --------------------------------------------
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
        table = self.query_one("#flagged-table", DataTable)
        if table.size.height <= 1:  # not laid out (a hidden tab): nothing is on screen yet
            return []
        first = int(table.scroll_y)
        height = table.size.height - 1  # minus the header row
        return [f.id for f in self.shown[first:first + height + 1]]

    def compute_visible_drift(self) -> None:
        wanted = []
        for fid in self.visible_ids():
            info = self.rows.get(fid)
            if info is not None and not info.drift_done and info.judged is not None \
                    and info.judged.resolved and info.judged.freshness != "unresolved":
                wanted.append(fid)
        if wanted:
            facts = {f.id: f for f in self.shown}
            self._drift_worker([(fid, facts[fid].source_commit, facts[fid].source_path,
                                 self.rows[fid].judged.repo) for fid in wanted],  # type: ignore[union-attr]
                               list(self.repos))

    @work(thread=True, exclusive=True, group="drift", exit_on_error=False)
    def _drift_worker(self, items: list[tuple[int, str, str | None, str]],
                      repos: list[str]) -> None:
        worker = get_current_worker()
        view = GitView(repos)
        for fid, commit, path, repo in items:
            if worker.is_cancelled:
                return
            drift = view.drift(commit, path, repo)
            self.app.call_from_thread(self._set_drift, fid, drift)

    def _set_drift(self, fid: int, drift: Drift | None) -> None:
        info = self.rows.get(fid)
        if info is None:
            return
        info.drift, info.drift_done = drift, True
        table = self.query_one("#flagged-table", DataTable)
        with contextlib.suppress(CellDoesNotExist, RowDoesNotExist):  # the row left meanwhile
            table.update_cell(str(fid), "drift", self._drift_cell(info), update_width=True)

    # ----- selection and actions ----------------------------------------------------------
    def current_fact(self) -> Any | None:
        table = self.query_one("#flagged-table", DataTable)
        if not self.shown or table.cursor_row is None or table.cursor_row >= len(self.shown):
            return None
        return self.shown[table.cursor_row]

    def action_mark(self) -> None:
        f = self.current_fact()
        if f is None:
            return
        self.marked ^= {f.id}
        table = self.query_one("#flagged-table", DataTable)
        table.update_cell(str(f.id), "mark",
                          Text("●", style="bold") if f.id in self.marked else Text(" "))
        if table.cursor_row < len(self.shown) - 1:
            table.move_cursor(row=table.cursor_row + 1, animate=False)
        self._show_filters()

    def action_mark_all(self) -> None:
        ids = {f.id for f in self.shown}
        if ids and ids <= self.marked:
            self.marked -= ids
        else:
            self.marked |= ids
        self._fill()

    def targets(self) -> list[Any]:
        """The marked facts, or the highlighted one."""
        if self.marked:
            return [f for f in self.flagged if f.id in self.marked]
        f = self.current_fact()
        return [f] if f is not None else []


def _same_place(a: Judged | None, b: Judged | None) -> bool:
    return a is not None and b is not None and a.repo == b.repo and a.head == b.head
