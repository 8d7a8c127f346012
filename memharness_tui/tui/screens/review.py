"""The review queue: what agents wrote since this database's last review.

Learned, revised and retracted facts after the review mark (saved in the app's settings, per
database: review_marks.py), newest first, each with its agent, source_ref and pin; rows this
app wrote are never listed. Enter opens the fact (its detail screen revises or retracts it),
``a`` accepts up to the highlighted row (it and every older one), ``A`` accepts everything
listed. The list follows the store: an agent's write while it is open appears in it. Opened
from the palette; the status strip says "N to review" once a first review was accepted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from memharness_tui.tui import tcss
from memharness_tui.tui.render import cell, clean, short_time
from memharness_tui.tui.services import review as svc
from memharness_tui.tui.widgets.base import WorkerErrorsToApp

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp

ACTION_STYLE = {"learned": "green", "revised": "yellow", "retracted": "red"}


class ReviewScreen(WorkerErrorsToApp, ModalScreen[None]):
    """The queue, newest first; accepting moves the mark past the rows shown."""

    CSS_PATH = tcss.path(__file__)

    BINDINGS = [
        Binding("escape", "close", "Close", id="review.close", tooltip="Close"),
        Binding("enter", "open", "Open", id="review.open",
                tooltip="Open the highlighted fact (revise or retract it there)"),
        Binding("a", "accept_to_here", "Accept to here", id="review.accept_to_here",
                tooltip="Mark the highlighted write and every older one reviewed"),
        Binding("A", "accept_all", "Accept all", id="review.accept_all",
                tooltip="Mark every write listed reviewed"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.items: list[svc.ReviewItem] = []

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    def compose(self) -> ComposeResult:
        with Vertical(id="review-box", classes="modal-box"):
            yield Static(Text("Review: what agents wrote since your last review", style="bold"),
                         classes="modal-title")
            yield Static(id="review-summary")
            table: DataTable[Text] = DataTable(id="review-table", cursor_type="row")
            yield table
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#review-table", DataTable)
        table.add_columns("when", "write", "subject", "agent", "ref", "pin", "fact")
        self.watch(self.app, "store_revision", self._store_moved, init=False)
        self.reload()

    def action_close(self) -> None:
        self.dismiss(None)

    def _store_moved(self) -> None:
        self.reload()

    @work(exclusive=True, group="review", exit_on_error=False)
    async def reload(self) -> None:
        items = await svc.queue(self.mapp)
        self.items = items
        self._fill()

    def _fill(self) -> None:
        table = self.query_one("#review-table", DataTable)
        keep = table.cursor_row
        table.clear()
        for n, item in enumerate(self.items):
            f = item.fact
            pin = ""
            if f.source_commit:
                pin = (f"{f.source_path}@" if f.source_path else "") + f.source_commit[:7]
            action = item.action + (f" #{item.old_id}→" if item.old_id is not None else "")
            table.add_row(cell(short_time(item.at)),
                          cell(action, ACTION_STYLE[item.action]),
                          cell(f.subject, max_len=30), cell(f.source_agent or "unknown", max_len=24),
                          cell(f.source_ref, max_len=24), cell(pin, max_len=30),
                          cell(f"#{f.id} {f.fact}", max_len=200), key=str(n))
        if self.items:
            table.move_cursor(row=min(max(keep, 0), len(self.items) - 1))
        reviewed = svc.current_mark(self.mapp) is not None
        if not self.items:
            summary = ("Nothing to review: no agent wrote since the last review." if reviewed
                       else "Nothing to review: no agent has written to this store.")
        else:
            since = "since the last review" if reviewed else \
                "(never reviewed: everything on file; accept to start from here)"
            summary = (f"{len(self.items)} to review {since} · Enter opens · a accepts to the "
                       "highlighted row · A accepts all")
        self.query_one("#review-summary", Static).update(Text(summary))

    def _highlighted(self) -> int | None:
        table = self.query_one("#review-table", DataTable)
        if not self.items or table.cursor_row < 0:
            return None
        return min(table.cursor_row, len(self.items) - 1)

    def action_open(self) -> None:
        row = self._highlighted()
        if row is not None:
            self.mapp.open_fact(self.items[row].fact.id)

    @on(DataTable.RowSelected, "#review-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_accept_all(self) -> None:
        self._accept(list(self.items))

    def action_accept_to_here(self) -> None:
        row = self._highlighted()
        if row is not None:
            self._accept(self.items[row:])  # newest first: this row and every older one

    def _accept(self, items: list[svc.ReviewItem]) -> None:
        if not items:
            return
        try:
            svc.accept(self.mapp, items)
        except OSError as exc:
            self.app.notify(clean(f"Not accepted (the mark was not saved): {exc}"),
                            severity="error", timeout=8, markup=False)
            return
        self.app.notify(f"Accepted {len(items)} write(s).", timeout=3)
        accepted = {id(i) for i in items}
        self.items = [i for i in self.items if id(i) not in accepted]
        self._fill()
        refresh_header(self.mapp)
        self.reload()


def refresh_header(app: MemharnessApp) -> None:
    """Ask the main screen to count what waits again (its status strip says it)."""
    for screen in app.screen_stack:
        refresh = getattr(screen, "refresh_review", None)
        if callable(refresh):
            refresh()

