"""The recall pane: search as you type, filters, results table, and the agent's own view."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import ContentSwitcher, Input, Static

from memharness_tui.tui import tcss
from memharness_tui.tui.messages import OpenFact, ReembedWanted
from memharness_tui.tui.render import cell, clean, freshness_badge
from memharness_tui.tui.services import RecallQuery
from memharness_tui.tui.widgets.base import WorkerErrorsToApp
from memharness_tui.tui.widgets.header import InfoLine
from memharness_tui.tui.widgets.recall_answer import recall_answer
from memharness_tui.tui.widgets.recall_filters import (
    DEFAULT_LIMIT,
    FILTERS,
    FilterStub,
    SubjectSuggester,
    filter_select,
)
from memharness_tui.tui.widgets.recall_mode import RecallMode
from memharness_tui.tui.widgets.results_table import Col, ResultsTable
from memharness_tui.tui.widgets.search_box import SearchBox

if TYPE_CHECKING:
    from textual.widgets import Select

    from memharness_tui.tui.app import MemharnessApp

# disabled (shown so) on a read-only store; n and Delete run and say why (editing.py refuses)
WRITE_ACTIONS = {"reembed"}
NARROW = 120  # below this width the filters take two rows
RESULT_COLUMNS = (
    Col("id", "ID", 5, "right"),
    Col("subject", "Subject", 16, shrink_to=9),
    Col("predicate", "Predicate", 14, min_total=110),
    Col("fact", "Fact", None, min_width=24, want=40),
    Col("conf", "Conf", 4, "right"),
    Col("imp", "Imp", 3, "right", min_total=100),
    Col("kind", "Kind", 10, min_total=120),
    Col("fresh", "Freshness", 12),
    Col("score", "Score", 6, "right", min_total=90),
)


RecallParams = RecallQuery  # what the Recall tab shows (kept under its old name)


class RecallPane(WorkerErrorsToApp, Vertical):
    """Search box + filters over ``Store.recall``; a page of results and more on demand."""

    DEFAULT_CSS = tcss.rules(__file__)

    BINDINGS = [
        Binding("a", "screen.toggle_agent_view", "Agent view", id="recall.agent_view",
                tooltip="Agent view: the exact text the agent's recall returns"),
        Binding("m", "more", "More", id="recall.more", tooltip="Load more results"),
        Binding("escape", "leave_input", "To results", show=False, id="recall.leave_input"),
        Binding("down", "leave_input", "To results", show=False, id="recall.down_to_results"),
        Binding("n", "new_fact", "New fact", show=False, id="recall.new_fact",
                tooltip="New fact"),
        Binding("delete", "retract", "Retract", show=False, id="recall.retract",
                tooltip="Retract the highlighted fact (asks first)"),
        Binding("V", "reembed", "Reembed", show=False, id="recall.reembed",
                tooltip="Reembed: a vector for every fact from the installed model (hybrid)"),
        Binding("x", "session_context", "Context", show=False, id="recall.context",
                tooltip="Session context: the exact text the SessionStart hook injects"),
    ]

    agent_view: reactive[bool] = reactive(False, init=False)
    as_of: reactive[str | None] = reactive(None, init=False)
    store_revision: reactive[int] = reactive(0, init=False)
    readonly: reactive[bool] = reactive(False, init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timer: Timer | None = None
        self._extra = 0  # results loaded beyond the limit by "more"
        self.params = RecallParams()
        self.last_result: Any = None
        self._stale = False  # the store moved while the pane was hidden
        self._search_pending = False  # a search is scheduled for after the current message
        self._pending_keep = False
        self._shown_key: tuple[RecallParams, int] | None = None  # what the table shows
        self.ranking = RecallMode()  # hybrid or keyword only, and why

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    def compose(self) -> ComposeResult:
        with Horizontal(id="recall-filters"):
            yield SearchBox(placeholder="Search facts — type to search…", id="search")
            yield FilterStub("limit-filter")  # the Selects come after the first paint
            yield SearchBox(placeholder="subject (any)", id="subject-filter")
            yield FilterStub("kind-filter")
            yield FilterStub("freshness-filter")
        yield InfoLine(id="recall-status")
        with ContentSwitcher(initial="results", id="recall-switcher"):
            yield ResultsTable(RESULT_COLUMNS, id="results")
            with VerticalScroll(id="agent-view"):
                yield Static(id="agent-text")

    async def mount_filters(self) -> None:
        """Swap the first frame's stand-ins for the real filter Selects (once), in place."""
        stubs = list(self.query(FilterStub))
        if not stubs:
            return
        row = self.query_one("#recall-filters")
        with self.app.batch_update():
            mounts = [row.mount(filter_select(stub.filter_id), before=stub) for stub in stubs]
            removed = self.query(FilterStub).remove()
        for mounted in mounts:
            await mounted
        await removed

    def on_resize(self) -> None:
        self.set_class(self.size.width < NARROW, "narrow")
        if self.last_result is not None:  # the status line fits the new width
            self.call_after_refresh(self._restatus)

    def _restatus(self) -> None:
        """The status line again, for the result shown now (not the one at the resize)."""
        if self.last_result is not None:
            self._status(self.params, self.last_result)

    def on_mount(self) -> None:
        self.query_one("#results", ResultsTable).typing_target = (
            lambda: self.query_one("#search", Input))  # typing on the results searches
        if not self._show_first_results():
            self.run_search()  # first: the DB thread runs calls in order; this is the first paint
        self.load_subject_suggestions()
        self.ranking.attach(self.mapp, self._mode_moved)

    def _mode_moved(self) -> None:
        """Hybrid's mode moved (widgets/recall_mode.py): search again when the list's kind
        of ranking changed; else say the mode."""
        if not self.is_mounted or not self.query("#recall-status"):  # (or being removed)
            return
        if self.ranking.moved():
            self._shown_key = None
            self.run_search(keep=True)
        elif self.last_result is not None:
            self._status(self.params, self.last_result)

    def _show_first_results(self) -> bool:
        """Show the opening results now if they are already here (the command line's early
        start usually has them before the screen is built), so the screen's first layout and
        frame include them: one layout instead of the empty table's and then the results'."""
        params = self.current_params()
        result = self.mapp.opening.result(params)
        if result is None:  # a large store's first screen, labelled, while the exact one runs
            quick = self.mapp.opening.first_screen(params)
            if quick is not None:
                self.params = params
                self._show(params, quick, False)
            return False
        self.params = params
        self._show(params, result, False)
        self._shown_key = (params, self.store_revision)
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action in WRITE_ACTIONS and self.readonly else True

    def watch_store_revision(self) -> None:
        """The store moved: refresh in place (cursor on the same fact, focus and text kept)."""
        self.ranking.read_status()  # vectors may have arrived (reembed, the agent)
        if not self._shown_now():
            self._stale = True
            return
        self.run_search(keep=True)
        self.load_subject_suggestions()

    def _shown_now(self) -> bool:
        parent = self.parent
        return self.is_mounted and parent is not None and bool(parent.display)

    def on_show(self) -> None:
        if self._stale:
            self._stale = False
            self.run_search(keep=True)
            self.load_subject_suggestions()

    # ----- inputs -------------------------------------------------------------------------
    @on(Input.Changed, "#search, #subject-filter")
    def _typed(self) -> None:
        """Latest wins: every keystroke searches at once, and ``_search`` being an exclusive
        worker cancels the superseded one (still queued for the DB thread: it never runs; in
        flight: its results are dropped). An optional debounce waits for a pause instead."""
        if self._timer is not None:
            self._timer.stop()
        delay = self.mapp.search_debounce
        if delay <= 0:
            self.run_search()
        else:
            self._timer = self.set_timer(delay, self.run_search)

    @on(Input.Submitted, "#search, #subject-filter")
    def _submitted(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self.run_search()
        self.screen.set_focus(self.query_one("#results", ResultsTable))  # at once (keys behind)

    def on_select_changed(self) -> None:  # a filter Select (imported only when mounted)
        self.run_search()

    def watch_as_of(self) -> None:
        self.load_subject_suggestions()
        self.run_search()

    def current_params(self) -> RecallParams:
        kind = self._filter_value("kind-filter")
        fresh = self._filter_value("freshness-filter")
        limit = self._filter_value("limit-filter")
        return RecallParams(
            query=self.query_one("#search", Input).value.strip(),
            subject=self.query_one("#subject-filter", Input).value.strip(),
            kind=kind if isinstance(kind, str) else None,
            freshness=fresh if isinstance(fresh, str) else None,
            limit=limit if isinstance(limit, int) else DEFAULT_LIMIT,
            as_of=self.as_of,
        )

    def _filter_value(self, filter_id: str) -> object:
        """A filter Select's value; before the Selects are mounted, its initial value."""
        found = self.query(f"#{filter_id}")
        if found:
            return cast("Select[Any]", found.first()).value
        return FILTERS[filter_id].value

    def run_search(self, *, more: bool = False, keep: bool = False) -> None:
        """Search with the boxes' values; ``keep``: a refresh (same rows loaded, same cursor).

        Requests made while handling one message are coalesced into one search, started
        right after it (mounting alone asks four times: mount, the bound as_of and revision,
        the limit Select); the last request's ``more``/``keep`` wins, as before.
        """
        if not more and not keep:
            self._extra = 0
        self.params = self.current_params()
        self._pending_keep = more or keep
        if not self._search_pending:
            self._search_pending = True
            self.call_next(self._start_search)

    def _start_search(self) -> None:
        self._search_pending = False
        params = self.params = self.current_params()
        asked = replace(params, limit=params.limit + self._extra)
        if (asked, self.store_revision) == self._shown_key:
            return  # exactly these results, of this revision of the store, are on screen
        self._search(asked, params.limit, self._pending_keep)

    # ----- workers ------------------------------------------------------------------------
    @work(exclusive=True, group="recall", exit_on_error=False)
    async def _search(self, params: RecallParams, base_limit: int, keep_cursor: bool) -> None:
        revision = self.store_revision
        self._shown_key = None
        asked = await self.ranking.with_vector(params)
        first = self.mapp.opening.take(params) if asked is params else None  # (prefetched)
        result = await (first if first is not None else recall_answer(  # (recall_answer.py)
            self.mapp.service, asked, keep_cursor, lambda quick: self._show(params, quick, False)))
        agent_text: str | None = None
        if self.agent_view:
            agent_text = await self._agent_text(asked, base_limit, result)
        self._show(params, result, keep_cursor)
        if agent_text is not None:
            self._show_agent_text(agent_text)
        self._shown_key = (params, revision)

    async def _agent_text(self, params: RecallParams, base_limit: int, result: Any) -> str:
        from memharness_tui.store import formats

        if params.limit != base_limit:
            result = await self.mapp.service.recalls.recall(replace(params, limit=base_limit))
        return formats.fmt_recall(result)

    @work(exclusive=True, group="recall-agent", exit_on_error=False)
    async def _refresh_agent_view(self) -> None:
        p = await self.ranking.with_vector(self.params)
        result = await self.mapp.service.recalls.recall(p)
        self._show_agent_text(await self._agent_text(p, p.limit, result))

    def load_subject_suggestions(self) -> None:
        """A fresh suggester for the subject box (this as_of, this revision of the store).

        It reads the subjects only when first asked — when someone types in the box — so
        start-up and every write skip a query that takes seconds on a large store."""
        service, as_of = self.mapp.service, self.as_of

        async def names() -> list[str]:
            return [s.subject for s in await service.subjects(as_of)]

        self.query_one("#subject-filter", Input).suggester = SubjectSuggester(names)

    # ----- display ------------------------------------------------------------------------
    def _show(self, params: RecallParams, result: Any, keep_cursor: bool) -> None:
        self.last_result = result
        table = self.query_one("#results", ResultsTable)
        rows = []
        for f in result.facts:
            rows.append((str(f.id), [
                Text(str(f.id), style="dim"),
                cell(f.subject, max_len=40),
                cell(f.predicate, max_len=40),
                cell(f.fact, max_len=300),
                Text(f"{f.confidence:.2f}"),
                Text(str(f.importance)),
                Text(f.kind),
                freshness_badge(self.app, f.freshness, f.is_pinned),
                Text("" if f.score is None else f"{f.score:.4f}"),
            ]))
        if keep_cursor:
            table.set_rows(rows, cursor=table.cursor_row, keep=table.cursor_key)
        else:
            table.set_rows(rows)
        self._status(params, result)

    def _status(self, params: RecallParams, result: Any) -> None:
        status = self.query_one("#recall-status", InfoLine)
        parts = status_parts(params, result, self._extra, self.ranking, self.agent_view)
        status.update(fit_parts(parts, status.content_region.width))

    def _show_agent_text(self, value: str) -> None:
        p = self.params
        args = [f"query={clean(p.query, single_line=True, max_len=30)!r}", f"limit={p.limit}"]
        args += [f"{k}={v!r}" for k, v in (("subject", p.subject), ("kind", p.kind),
                                          ("freshness", p.freshness), ("as_of", p.as_of)) if v]
        box = self.query_one("#agent-view")
        box.border_title = f"What the agent's recall({', '.join(args)}) returns"
        box.border_subtitle = "exact text · browsing never reinforces"
        self.query_one("#agent-text", Static).update(Text(clean(value)))

    # ----- actions ------------------------------------------------------------------------
    def watch_agent_view(self, on_: bool) -> None:
        if not self.is_mounted:
            return
        self.query_one("#recall-switcher", ContentSwitcher).current = (
            "agent-view" if on_ else "results"
        )
        if on_:
            self._refresh_agent_view()
        if self.last_result is not None:
            self._status(self.params, self.last_result)

    def action_more(self) -> None:
        self._extra += self.params.limit
        self.run_search(more=True)

    def action_new_fact(self) -> None:
        from memharness_tui.tui.editing import new_fact

        new_fact(self.mapp, subject=self.query_one("#subject-filter", Input).value.strip())

    def action_retract(self) -> None:
        from memharness_tui.tui.editing import retract_highlighted

        retract_highlighted(self.mapp, self.query_one("#results"))

    def action_reembed(self) -> None:
        self.post_message(ReembedWanted())  # the screen opens it

    def action_session_context(self) -> None:
        from memharness_tui.tui.context_commands import open_context

        open_context(self.mapp)

    def action_leave_input(self) -> None:
        self.screen.set_focus(self.query_one("#results", ResultsTable))  # at once: keys behind

    def focus_search(self) -> None:
        self.query_one("#search", Input).focus()

    @on(ResultsTable.RowSelected, "#results")
    def _open(self, event: ResultsTable.RowSelected) -> None:
        self.post_message(OpenFact(int(event.key)))


def fit_parts(parts: list[tuple[str | Text, str, int]], width: int) -> Text:
    """``parts`` joined by " · " in at most ``width`` cells (0: any): the parts with the lowest
    keep leave first, then the line is cut with "…" (a status line is never cut silently)."""
    kept = list(parts)

    def joined() -> Text:
        text = Text()
        for i, (part, style, _keep) in enumerate(kept):
            if i:
                text.append("  ·  ")
            if isinstance(part, Text):
                text.append_text(part)
            else:
                text.append(part, style=style)
        return text

    text = joined()
    while width > 0 and text.cell_len > width and len(kept) > 1:
        kept.remove(min(kept[1:], key=lambda p: p[2]))
        text = joined()
    if width > 0 and text.cell_len > width:
        text.truncate(width, overflow="ellipsis")
    return text


def status_parts(params: RecallParams, result: Any, extra: int, ranking: Any,
                 agent_view: bool) -> list[tuple[str | Text, str, int]]:
    """The status line's parts: (text, style, keep); the lowest keep leaves first."""
    n = len(result.facts)
    exact = getattr(result, "exact", True)
    parts: list[tuple[str | Text, str, int]] = []
    if n == 0:
        parts.append(("No matching memories" + ("." if exact else " yet"), "bold", 9))
    else:
        parts.append((f"{n} result{'s' if n != 1 else ''}", "bold", 9))
    if not exact:  # a first screen: say so until the exact list replaces it
        parts.append(("not yet exact (newest rows first)", "bold", 7))
    elif n and n >= params.limit + extra:
        parts.append(("m: more", "", 3))  # (the line is muted: dim on it fell below 4.5:1)
    if params.query:
        query = Text("for ").append(clean(params.query, single_line=True, max_len=40),
                                    style="italic")
        parts.append((query, "", 4))
    if result.used_fallback:  # (with no row: neither search found one)
        parts.append(("substring match (no full-text hit)" if n
                      else "no full-text or substring match", "bold", 6))
    if result.truncated:
        parts.append(("truncated", "", 5))
    if result.as_of:
        parts.append((f"as of {result.as_of}", "bold reverse", 8))
    label = ranking.label()
    if label is not None:
        parts.append((label, "bold" if ranking.runs() else "italic", 5))
    parts.append(("a: agent view" if not agent_view else "a: table", "", 1))
    return parts

