"""Browse by subject: every subject with counts; its facts, current first, history on demand."""

from __future__ import annotations

from contextlib import suppress
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.widgets import DataTable, Input, Static
from textual.widgets.data_table import ColumnKey, RowDoesNotExist

from memharness_tui.tui import tcss
from memharness_tui.tui.messages import OpenFact
from memharness_tui.tui.perf.look_table import LookCachedTable
from memharness_tui.tui.render import (
    cell,
    clean,
    freshness_badge,
    freshness_label,
    status_label,
)
from memharness_tui.tui.widgets.base import LoadsWhenShown
from memharness_tui.tui.widgets.columns import Column, fit
from memharness_tui.tui.widgets.search_box import SearchBox

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp

SUBJECTS_SHOWN = 500  # a DataTable measures every cell; filter to find the rest
FACTS_PAGE = 200
SCROLLBAR = 2  # the fact table's vertical scrollbar


def fact_columns(id_width: int, status: int, fresh: int) -> tuple[Column, ...]:
    """The fact table's columns in display order; widths from the data shown."""
    return (
        Column("id", "ID", id_width),
        Column("fact", "Fact", None, min_width=24),
        Column("status", "Status", status, priority=1),
        Column("predicate", "Predicate", 14, priority=5),
        Column("conf", "Conf", 4, priority=4),
        Column("fresh", "Freshness", fresh, priority=2),
        Column("learned", "Learned", 10, priority=3),
    )


class SubjectsPane(LoadsWhenShown, Horizontal):
    DEFAULT_CSS = tcss.rules(__file__)
    BINDINGS = [
        Binding("h", "toggle_history", "History", id="subjects.history",
                tooltip="History: include superseded and retracted rows (dimmed)"),
        Binding("m", "more", "More", id="subjects.more", tooltip="Load more facts"),
        Binding("n", "new_fact", "New fact", show=False, id="subjects.new_fact",
                tooltip="New fact (in the chosen subject)"),
        Binding("delete", "retract", "Retract", show=False, id="subjects.retract",
                tooltip="Retract the highlighted fact (asks first)"),
    ]

    include_history: reactive[bool] = reactive(False)
    id_width: reactive[int] = reactive(3, init=False)
    """Digits of the store's largest id (set by the main screen)."""
    as_of: reactive[str | None] = reactive(None, init=False)
    store_revision: reactive[int] = reactive(0, init=False)
    readonly: reactive[bool] = reactive(False, init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.subjects: list[Any] = []
        self.subject: str | None = None
        self._offset = 0
        self._facts: list[Any] = []
        self._laid_out_for: tuple[int, ...] = ()
        self._room = 0  # the subject names' room the list was last filled for
        self._filled_for: tuple[str, int, list[Any]] | None = None  # (filter, room, subjects)

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    def compose(self) -> ComposeResult:
        with Vertical(id="subject-side"):
            yield SearchBox(placeholder="filter subjects", id="subject-search")
            yield LookCachedTable(id="subject-list", cursor_type="row")
        with Vertical(id="subject-main"):
            yield Static(id="subject-title")
            yield LookCachedTable(id="subject-facts", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        side = self.query_one("#subject-list", DataTable)
        side.add_column("Subject", key="subject")
        side.add_column("Now", key="current")
        side.add_column("All", key="total")
        self._warm()

    def _warm(self) -> None:
        """Built hidden after the first results (``MainScreen``): read the subject list now
        (on the scan thread, behind any search) and fill the table while hidden, so the first
        visit finds the store's answer remembered (a scan of every row: ~0.3 s at 1M) and the
        rows added and measured (~0.2 s) — it reads again and, the answer unchanged, draws."""
        if self._needs_load:
            self.run_worker(self._read_ahead(), group="subjects-warm", exit_on_error=False)

    async def _read_ahead(self) -> None:
        as_of = self.as_of
        try:
            subjects = await self.mapp.service.subjects(as_of)
        except Exception:  # noqa: BLE001 - only a head start: the visit reads (and reports) again
            return
        if self._needs_load and as_of == self.as_of and not self.subjects:
            self.subjects = subjects
            self._fill_subjects()

    def on_resize(self) -> None:
        self.call_after_refresh(self._fill_facts)
        if self.subjects and self._subject_room(self.subjects[:SUBJECTS_SHOWN]) != self._room:
            self._fill_subjects()  # the subject names fit the list's new width

    def _subject_room(self, shown: list[Any]) -> int:
        """Cells a subject's name has in the list: its width less the Now and All columns
        (as wide as their widest number, two cells of padding each), the Subject column's
        padding, the list's border and a scrollbar (at 80 columns All was cut off)."""
        side = self.query_one("#subject-side")
        width = side.size.width or max(26, min(44, (self.size.width or self.app.size.width)
                                                * 34 // 100))
        labels = {"current": "Then" if self.as_of else "Now", "total": "All"}
        counts = [max([len(label), *(len(f"{getattr(s, k):,}") for s in shown)]) + 2
                  for k, label in labels.items()]
        return max(8, min(28, width - 1 - 2 - sum(counts) - 2))

    def watch_id_width(self) -> None:
        self._fill_facts()

    def watch_as_of(self, as_of: str | None) -> None:
        """In time travel the count of current beliefs is the count *then*."""
        side = self.query_one("#subject-list", DataTable)
        column = side.columns.get(ColumnKey("current"))  # type: ignore[arg-type]
        if column is not None:
            column.label = Text("Then" if as_of else "Now")
            side.refresh()
        self.invalidate()

    def watch_store_revision(self) -> None:
        self.invalidate()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return True  # n and Delete on a read-only store say why (editing.py refuses them)

    def reload(self) -> None:
        self._load_subjects()

    @work(exclusive=True, group="subjects", exit_on_error=False)
    async def _load_subjects(self) -> None:
        self.subjects = await self.mapp.service.subjects(self.as_of)
        self._fill_subjects()
        if self.subject is not None:
            self.load_facts(keep=True)

    def _fill_subjects(self) -> None:
        needle = self.query_one("#subject-search", Input).value.strip().casefold()
        shown = [s for s in self.subjects if needle in s.subject.casefold()] if needle else list(
            self.subjects
        )
        room = self._subject_room(shown[:SUBJECTS_SHOWN])
        if self._filled_for == (needle, room, self.subjects):
            return  # the rows shown already (read ahead while hidden, then read again)
        self._filled_for = (needle, room, list(self.subjects))
        self._room = room
        table = self.query_one("#subject-list", DataTable)
        keep = _cursor_key(table)
        table.clear()
        for s in shown[:SUBJECTS_SHOWN]:
            table.add_row(
                cell(s.subject, max_len=room),
                Text(f"{s.current:,}", justify="right"),
                Text(f"{s.total:,}", justify="right"),
                key=s.subject,
            )
        if keep is not None:
            with suppress(RowDoesNotExist):
                table.move_cursor(row=table.get_row_index(keep), animate=False)
        table.border_subtitle = (
            f"{min(len(shown), SUBJECTS_SHOWN):,} of {len(shown):,}" if len(shown) > SUBJECTS_SHOWN
            else f"{len(shown):,} subjects"
        )
        if self.subject is None:
            self._title()

    @on(Input.Changed, "#subject-search")
    def _filter(self) -> None:
        self._fill_subjects()

    @on(Input.Submitted, "#subject-search")
    def _filter_done(self) -> None:
        self.query_one("#subject-list", DataTable).focus()

    @on(DataTable.RowHighlighted, "#subject-list")
    def _highlight(self, event: DataTable.RowHighlighted) -> None:
        subject = event.row_key.value
        if subject is not None and subject != self.subject:
            self.subject = subject
            self.load_facts()

    @on(DataTable.RowSelected, "#subject-list")
    def _choose(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            if event.row_key.value != self.subject:
                self.subject = event.row_key.value
                self.load_facts()
            self.query_one("#subject-facts", DataTable).focus()

    def choose(self, subject: str) -> None:
        """Select a subject programmatically (commands, tests)."""
        self.subject = subject
        self.load_facts()

    def load_facts(self, *, more: bool = False, keep: bool = False) -> None:
        """The chosen subject's facts; ``keep``: a refresh (same rows, cursor on the same fact)."""
        if keep:
            self._load_facts(self.subject, self.include_history, self.as_of, 0,
                             self._offset + FACTS_PAGE)
            return
        self._offset = self._offset + FACTS_PAGE if more else 0
        self._load_facts(self.subject, self.include_history, self.as_of, self._offset, FACTS_PAGE)

    @work(exclusive=True, group="subject-facts", exit_on_error=False)
    async def _load_facts(self, subject: str | None, history: bool, as_of: str | None,
                          offset: int, limit: int) -> None:
        if subject is None:
            return
        facts = await self.mapp.service.facts_of(subject, include_history=history, as_of=as_of,
                                                 offset=offset, limit=limit)
        self._facts = list(facts) if offset == 0 else self._facts + list(facts)
        self._laid_out_for = ()
        self._fill_facts()
        self._title(len(facts) >= FACTS_PAGE and len(facts) % FACTS_PAGE == 0)

    def _fill_facts(self) -> None:
        """(Re)build the fact table for its width: columns by priority, none squeezed."""
        if not self.is_mounted:
            return
        table = self.query_one("#subject-facts", DataTable)
        rows = [(f, *status_label(f, self.as_of)) for f in self._facts]
        status_w = max([len("Status"), *(len(label) for _, label, _ in rows)])
        fresh_w = max([len("Freshness"), *(
            len(freshness_label(f.freshness, f.is_pinned)[0]) for f, _, style in rows
            if not style)])
        columns = fit(fact_columns(self.id_width, status_w, fresh_w),
                      table.size.width - SCROLLBAR)
        signature = (table.size.width, self.id_width, status_w, fresh_w, len(rows))
        if signature == self._laid_out_for:
            return
        self._laid_out_for = signature
        keep = _cursor_key(table)
        table.clear(columns=True)
        for col, width in columns:
            table.add_column(col.label, key=col.key, width=width)
        for f, label, style in rows:
            cells = {
                "id": Text(str(f.id), justify="right"),
                "fact": cell(f.fact, style, max_len=300),
                "status": Text(label, style=style or "bold"),
                "predicate": cell(f.predicate, style, max_len=40),
                "conf": Text(f"{f.confidence:.2f}", style=style, justify="right"),
                "fresh": freshness_badge(self.app, f.freshness, f.is_pinned) if not style
                else Text("", style=style),
                "learned": Text(f.tx_at[:10], style=style),  # (dim: < 3:1 on the cursor)
            }
            shown = [cells[col.key] for col, _ in columns]
            for piece in shown:
                piece.no_wrap = True
                piece.overflow = "ellipsis"
            table.add_row(*shown, key=str(f.id))
        if keep is not None:
            with suppress(RowDoesNotExist):
                table.move_cursor(row=table.get_row_index(keep), animate=False)

    def _title(self, has_more: bool = False) -> None:
        text = Text()
        if self.subject is None:
            text.append("Choose a subject on the left.", style="dim")
        else:
            text.append(clean(self.subject, single_line=True, max_len=60), style="bold")
            text.append("  ·  ")
            text.append("with history (superseded and retracted, dimmed)" if self.include_history
                        else "current beliefs", style="italic")
            text.append("  ·  h: " + ("hide history" if self.include_history else "show history"))
            if has_more:
                text.append("  ·  m: more")
        if self.as_of:
            text.append(f"  ·  as of {self.as_of}", style="bold reverse")
        self.query_one("#subject-title", Static).update(text)

    def watch_include_history(self, _value: bool) -> None:
        if self.is_mounted:
            self.load_facts()

    def action_toggle_history(self) -> None:
        self.include_history = not self.include_history

    def action_new_fact(self) -> None:
        from memharness_tui.tui.editing import new_fact

        new_fact(self.mapp, subject=self.subject or "")

    def action_retract(self) -> None:
        from memharness_tui.tui.editing import retract_highlighted

        facts = self.query_one("#subject-facts", DataTable)
        if facts.has_focus:  # the subject list's keys are names, not fact ids
            retract_highlighted(self.mapp, facts)

    def action_more(self) -> None:
        self.load_facts(more=True)

    @on(DataTable.RowSelected, "#subject-facts")
    def _open(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.post_message(OpenFact(int(event.row_key.value)))


def _cursor_key(table: DataTable[Any]) -> str | None:
    """The key of a DataTable's highlighted row (None: empty)."""
    if not table.row_count:
        return None
    try:
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
    except Exception:  # noqa: BLE001 - no cursor yet
        return None
