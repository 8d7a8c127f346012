"""The flagged facts: every stale / unresolved row, filterable by verdict, subject and repo, with
pin, reason, drift and triage (does the change touch what the fact says?) — drift and triage are
computed lazily for the rows on screen, in a thread worker — and marks for bulk triage. Under
time travel only rows believed at ``as_of`` are listed (verdicts stay the last pass's, as the
banner says)."""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.widgets import Input, Static

from memharness_tui.tui import tcss
from memharness_tui.tui.render import believed_at, cell, freshness_badge, theme_color
from memharness_tui.tui.services.git import (
    Judged,
    judge_facts,
)
from memharness_tui.tui.state import SessionNews, StalenessSession
from memharness_tui.tui.widgets.base import WorkerErrorsToApp
from memharness_tui.tui.widgets.results_table import Col
from memharness_tui.tui.widgets.staleness.flagged_table import FlaggedTable
from memharness_tui.tui.widgets.staleness.pass_rows import PassFollower, shown_now
from memharness_tui.tui.widgets.staleness.row_analysis import (
    LazyRowAnalysis,
    PassJudgements,
    RowAnalysed,
    RowInfo,
)

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp

VERDICT_FILTERS = (None, "stale", "unresolved")
_fact_id = attrgetter("id")
SORTS = ("id", "triage")
#: the triage column: outcome → (label, theme colour name, fallback colour)
TRIAGE_LOOK = {
    "touches": ("touches it", "error", "red"),
    "moved": ("moved", "warning", "yellow"),
    "deleted": ("deleted", "error", "red"),
    "elsewhere": ("elsewhere", "success", "green"),
    "unknown": ("unknown", "", "dim"),
}


def flagged_columns(id_width: int) -> list[Col]:
    """The table's columns; the least needed ones drop out first on a narrow screen.

    From 100 columns the reason and the drift are shown, and the pin once the table is as wide as
    a 120-column terminal with a scrollbar and 5-digit ids: the reason and the pin give way (down
    to 20 and 16) so the fact keeps 16 or more (the README promises pin, reason and drift).
    """
    id_width = max(2, id_width)
    return [
        Col("mark", " ", 1, min_width=1),
        Col("id", "ID", id_width, justify="right", min_width=2),
        Col("verdict", "Verdict", 12, min_width=12),
        Col("triage", "Triage", 10, min_width=10),
        Col("fact", "Fact", None, min_width=16, want=24),
        Col("reason", "Reason", 34, min_total=100, shrink_to=20),
        Col("drift", "Drift", 16, min_total=100),
        Col("pin", "Pin", 22, min_total=108 + id_width, shrink_to=16),
        Col("subject", "Subject", 14, min_total=155),
        Col("repo", "Repo", 12, min_total=170),
    ]


class FlaggedPanel(WorkerErrorsToApp, Vertical):
    DEFAULT_CSS = tcss.rules(__file__)
    BINDINGS = [
        Binding("a", "mark_all", "Mark all", show=False, id="staleness.mark_all",
                tooltip="Mark every fact the filters match (again: unmark them)"),
        Binding("v", "cycle_verdict", "Verdict filter", show=False, id="staleness.verdict",
                tooltip="Filter by verdict: all → stale → unresolved"),
        Binding("o", "cycle_repo", "Repo filter", show=False, id="staleness.repo",
                tooltip="Filter by repo (with several repos)"),
        Binding("f", "focus_filter", "Subject filter", show=False, id="staleness.filter",
                tooltip="Filter by subject (type; Enter or Esc back to the table)"),
        Binding("b", "cycle_sort", "Sort", show=False, id="staleness.sort",
                tooltip="Sort by id, or by triage (touches it, moved, deleted, elsewhere)"),
        Binding("escape", "leave_filter", "To table", show=False, id="staleness.leave_filter"),
    ]

    repos: reactive[tuple[str, ...]] = reactive((), init=False)
    as_of: reactive[str | None] = reactive(None, init=False)
    session: reactive[StalenessSession] = reactive(StalenessSession, init=False, repaint=False)

    def __init__(self, short: Any, drift_delay: float, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.short = short
        self.drift_delay = drift_delay
        self.flagged: list[Any] = []
        self.flagged_total = 0
        self.shown: list[Any] = []
        self.rows: dict[int, RowInfo] = {}
        self.marked: set[int] = set()
        self.verdict_filter: str | None = None
        self.repo_filter: str | None = None
        self.sort = "id"
        self.analysing = 0  # rows left to triage before a sort / bulk selection can finish
        self.analysis = LazyRowAnalysis(self)
        self._loaded = False
        self._needs_load = False
        self._judge_all = True
        self._id_width = 2
        self._loading, self._load_seq = False, 0  # a full load in flight; the newest load
        self._again: bool | None = None  # another load after the full one (judging all rows)
        self._loads_running = 0
        self.from_pass = PassJudgements()  # the dashboard tells it what the pass says
        self.follower = PassFollower(self)  # a writing pass's verdicts update the list

    def visible_ids(self) -> list[int]:
        rows = self.table.visible_range()
        return [f.id for f in self.shown[rows.start:rows.stop]]

    @property
    def table(self) -> FlaggedTable:
        return self.query_one("#flagged-table", FlaggedTable)

    def compose(self) -> ComposeResult:
        with Horizontal(id="dash-filters"):
            yield Static(id="dash-filters-label")
            yield Input(placeholder="subject filter (f)", id="flagged-filter", compact=True)
        yield FlaggedTable(flagged_columns(self._id_width), id="flagged-table")

    def on_mount(self) -> None:
        self.watch(self.table, "scroll_y", self.analysis.scrolled, init=False)
        self.invalidate()  # not at start-up (another tab is shown): when first shown

    def on_row_analysed(self, message: RowAnalysed) -> None:
        self.analysis.took(message)

    def on_resize(self) -> None:
        self.analysis.schedule_drift()  # more (or other) rows may be on screen

    def watch_repos(self) -> None:
        self.invalidate()

    def watch_as_of(self) -> None:
        if self._loaded:
            self._fill()

    def watch_session(self, old: StalenessSession, new: StalenessSession) -> None:
        for fid in self.visible_ids() if self._loaded else ():  # the reason column
            if old.reasons.get(fid) != new.reasons.get(fid):
                self.table.refresh_row(str(fid))

    @property
    def pass_reasons(self) -> Mapping[int, str]:
        return self.session.reasons

    def reload(self, *, judge_all: bool = True) -> None:
        """Load the list now. A full load in flight (after a pass, ``r``) is finished, not
        restarted — the list then settles at once — and this one runs after it; a partial
        one (mid-pass) is replaced, as it is out of date."""
        self._needs_load = False
        self._judge_all = True
        if self._loading:  # a full load runs
            self._again = judge_all or bool(self._again)
            return
        self._loading, self._load_seq = judge_all, self._load_seq + 1
        self._load_flagged(judge_all, self._load_seq)

    def _loaded_one(self, seq: int) -> None:
        if seq != self._load_seq:
            return  # replaced by a newer load, which carries on
        self._loading, again, self._again = False, self._again, None
        if again is not None and self.is_mounted:
            self.reload(judge_all=again)

    def invalidate(self, *, judge_all: bool = True) -> None:
        """The store changed: reload if this tab is shown, else when it is next shown.

        Decided after the next refresh: while the screen mounts, every tab still counts as
        shown (the switcher hides the others only then), and requests in a burst coalesce.
        ``judge_all=False`` (while a pass runs: HEAD is the one the rows were judged at) asks
        git only about rows new to the list; one request for all in the burst makes it all."""
        self._judge_all = judge_all or (self._needs_load and self._judge_all)
        self._needs_load = True
        self.call_after_refresh(self._reload_if_shown)

    def _reload_if_shown(self) -> None:
        if self._needs_load and shown_now(self):
            self.reload(judge_all=self._judge_all)

    def on_show(self) -> None:
        if self._needs_load:
            self.reload(judge_all=self._judge_all)
        else:
            self.analysis.schedule_drift()

    # ----- loads ---------------------------------------------------------------------------
    @work(exclusive=True, group="flagged", exit_on_error=False)
    async def _load_flagged(self, judge_all: bool, seq: int) -> None:
        self._loads_running += 1
        try:
            await self._load(judge_all)
        finally:
            self._loads_running -= 1
            self._loaded_one(seq)

    async def _load(self, judge_all: bool) -> None:
        token = self.follower.rows.stop()  # the store's rows from now on
        page = await cast("MemharnessApp", self.app).service.flagged(None)  # every flagged fact: the table is virtual
        facts, total = page.facts, page.total
        old = self.rows
        todo = facts if judge_all else [  # mid-pass: rows already judged at this HEAD stay
            f for f in facts if (info := old.get(f.id)) is None or info.judged is None]
        judged, ask = self.from_pass.split(todo, self.repos)  # git is asked only what the pass was not
        if ask:  # show the rows at once (what was known about them stays); git judges them
            self.rows = {f.id: old.get(f.id) or RowInfo() for f in facts}
            self._take(facts, total)
            judged.update(await judge_facts(list(self.repos), ask))
        self.post_message(SessionNews(seen={i: j.reason for i, j in judged.items() if j}))
        shown_meanwhile = self.rows
        self.rows = {}
        asked = {f.id for f in todo}
        for f in facts:
            prev = shown_meanwhile.get(f.id)
            if f.id not in asked and prev is not None:
                self.rows[f.id] = prev
                continue
            info = RowInfo(judged.get(f.id))
            if prev is not None and (prev.judged is None  # analysed just now, at this HEAD
                                     or _same_place(prev.judged, info.judged)):
                info.drift, info.drift_done = prev.drift, prev.drift_done
                info.triage, info.triage_done = prev.triage, prev.triage_done
            self.rows[f.id] = info
        self._take(facts, total)
        self._loaded = True
        self.follower.loaded(token)  # a pass started since: its rows shown so far stay
    def _take(self, facts: list[Any], total: int) -> None:
        self.flagged = facts
        self.flagged_total = total
        if self.marked:
            self.marked &= {f.id for f in facts}
        width = len(str(max(map(_fact_id, facts), default=0)))
        if width != self._id_width:
            self._id_width = width
            self.table.columns = flagged_columns(width)
        self._fill()

    def filtered(self) -> list[Any]:
        """Every loaded fact the filters match, in the chosen order."""
        needle = self.query_one("#flagged-filter", Input).value.strip().casefold()
        out = matching(self.flagged, self.rows, self.as_of, self.verdict_filter, needle,
                       self.repo_filter)
        if self.sort == "triage":
            out.sort(key=self._triage_rank)
        return out

    def _triage_rank(self, f: Any) -> tuple[int, int]:
        t = self.rows.get(f.id, RowInfo()).triage
        return (t.rank if t is not None else 99, f.id)

    def _fill(self) -> None:
        table = self.table
        keep = table.cursor_key
        self.shown = self.filtered()
        table.set_source([str(f.id) for f in self.shown], self._row_cells, keep=keep,
                         cursor=table.cursor_row)
        self.show_filters()
        self.analysis.schedule_drift()

    def _row_cells(self, index: int) -> list[Text]:
        return self._cells(self.shown[index])

    def _cells(self, f: Any) -> list[Text]:
        info = self.rows.get(f.id, RowInfo())
        mark = Text("●", style="bold") if f.id in self.marked else Text(" ")
        pin = (f"{f.source_path}@" if f.source_path else "") + (f.source_commit or "")[:7]
        return [
            mark,
            Text(str(f.id), style="dim"),
            freshness_badge(self.app, f.freshness, True),
            triage_cell(self.app, info),
            cell(f.fact, max_len=200),  # the table cuts it to the column
            self._reason_cell(f, info),
            drift_cell(info),
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
        return cell(reason, max_len=120)

    def show_filters(self) -> None:
        t = Text()
        n_all, n = len(self.flagged), len(self.shown)
        t.append(f"{max(n_all, self.flagged_total):,} flagged", style="bold")
        if n != n_all:
            t.append(f" ({n:,} match{'' if n == 1 else 'es'})")
        t.append("  ·  verdict ", style="dim")
        t.append(self.verdict_filter or "all", style="bold" if self.verdict_filter else "")
        t.append(" (v)", style="dim")
        if len(self.repos) > 1 or self.repo_filter:
            t.append("  ·  repo ", style="dim")
            t.append(self.short(self.repo_filter) if self.repo_filter else "all",
                     style="bold" if self.repo_filter else "")
            t.append(" (o)", style="dim")
        t.append("  ·  sort ", style="dim")
        t.append(self.sort, style="bold" if self.sort != "id" else "")
        t.append(" (b)", style="dim")
        if self.analysing:
            t.append(f"  ·  triaging {self.analysing:,}…", style="italic")
        if self.marked:
            t.append(f"  ·  {len(self.marked):,} marked", style="bold reverse")
        if self.as_of:
            t.append(f"  ·  believed at {self.as_of[:16]}; verdicts from the last pass",
                     style="bold")
        t.append("  ·  ", style="dim")
        label = self.query_one("#dash-filters-label", Static)  # as wide as its text: only a
        label.update(t, layout=t.cell_len != label.size.width)  # new width lays the row out

    @on(Input.Changed, "#flagged-filter")
    def _filter_typed(self) -> None:
        if self._loaded:
            self._fill()

    @on(Input.Submitted, "#flagged-filter")
    def _filter_done(self) -> None:
        self.table.focus()

    def action_focus_filter(self) -> None:
        self.query_one("#flagged-filter", Input).focus()

    def action_leave_filter(self) -> None:
        self.table.focus()

    def action_cycle_verdict(self) -> None:
        i = VERDICT_FILTERS.index(self.verdict_filter)
        self.verdict_filter = VERDICT_FILTERS[(i + 1) % len(VERDICT_FILTERS)]
        self._fill()

    def action_cycle_repo(self) -> None:
        known = sorted({i.judged.repo for i in self.rows.values() if i.judged is not None})
        choices: list[str | None] = [None, *known]
        i = choices.index(self.repo_filter) if self.repo_filter in choices else 0
        self.repo_filter = choices[(i + 1) % len(choices)]
        self._fill()

    def action_cycle_sort(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        if self.sort == "triage":
            self.analysis.triage_all(self._fill)  # every matching row needs its outcome to be sorted
        self._fill()

    # ----- selection and actions ----------------------------------------------------------
    def current_fact(self) -> Any | None:
        table = self.table
        if not self.shown or table.cursor_row >= len(self.shown):
            return None
        return self.shown[table.cursor_row]

    def action_mark(self) -> None:
        f = self.current_fact()
        if f is None:
            return
        self.marked ^= {f.id}
        table = self.table
        table.refresh_row(str(f.id))
        if table.cursor_row < len(self.shown) - 1:
            table.move_cursor(row=table.cursor_row + 1)
        self.show_filters()

    def action_mark_all(self) -> None:
        """Mark every fact the filters match (all of them, not only those on screen)."""
        ids = {f.id for f in self.shown}
        if ids and ids <= self.marked:
            self.marked -= ids
            self.app.notify(f"Unmarked {len(ids):,} facts.", timeout=3)
        else:
            self.marked |= ids
            self.app.notify(f"Marked {len(ids):,} facts: every one the filters match "
                            "(y still true, w downgrade).", timeout=4)
        self.table.refresh_rows()
        self.show_filters()

    def targets(self) -> list[Any]:
        """The marked facts, or the highlighted one."""
        if self.marked:
            return [f for f in self.flagged if f.id in self.marked]
        f = self.current_fact()
        return [f] if f is not None else []

    def with_outcome(self, outcome: str) -> list[Any]:
        """The matching facts whose triage is ``outcome`` (rows triaged so far)."""
        return [f for f in self.shown if (t := self.rows[f.id].triage) is not None
                and t.outcome == outcome]


def matching(facts: list[Any], rows: Mapping[int, RowInfo], as_of: str | None,
             verdict: str | None, needle: str, repo: str | None) -> list[Any]:
    """``facts`` the filters let through, in order: one filter at a time over the list, and
    only those that are on (10k rows are filtered at every batch of a pass)."""
    out = list(facts)
    if as_of:  # learned (or no longer believed) after the time-travel date: not listed
        out = [f for f in out if believed_at(f, as_of)]
    if verdict:
        out = [f for f in out if f.freshness == verdict]
    if needle:
        out = [f for f in out if needle in f.subject.casefold()]
    if repo:
        out = [f for f in out if (info := rows.get(f.id)) is not None
               and info.judged is not None and info.judged.repo == repo]
    return out


def triage_cell(app: Any, info: RowInfo) -> Text:
    """The triage column: does the change touch what the fact says (coloured by the theme)."""
    if not info.triage_done:
        return Text("…", style="dim")
    t = info.triage
    if t is None:
        return Text("—", style="dim")
    label, colour, fallback = TRIAGE_LOOK.get(t.outcome, (t.outcome, "", "dim"))
    if not colour:
        return Text(label, style=fallback)
    style = theme_color(app, colour, fallback)
    return Text(label, style=f"bold {style}" if t.outcome != "elsewhere" else style)


def drift_cell(info: RowInfo) -> Text:
    """The drift column: commits since the pin, lines added and removed."""
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


def _same_place(a: Judged | None, b: Judged | None) -> bool:
    return a is not None and b is not None and a.repo == b.repo and a.head == b.head
