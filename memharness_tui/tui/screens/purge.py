"""Purge from the app: the preview of every row the purge changes (by id; secrets masked), a
typed confirmation (``purge``), then the write and what the file check found.

The Hygiene tab's secrets rows (x) and the fact detail screen (X) call :func:`run_purge`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Static

from memharness_tui.tui import tcss
from memharness_tui.tui.render import cell, clean

if TYPE_CHECKING:
    from memharness_tui.hygiene.purge import PurgePlan
    from memharness_tui.tui.app import MemharnessApp

__all__ = ["CONFIRM_WORD", "PurgePreview", "run_purge"]

CONFIRM_WORD = "purge"


class PurgePreview(ModalScreen[bool]):
    """Dismisses with True only once ``purge`` was typed and Enter pressed; Esc cancels."""

    CSS_PATH = tcss.path(__file__)
    AUTO_FOCUS = "#purge-confirm"
    BINDINGS = [Binding("escape", "answer(False)", "Cancel", id="purge.cancel")]

    def __init__(self, plan: PurgePlan) -> None:
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        with Vertical(id="purge-box"):
            yield Static(Text("Purge: the rows this rewrites in place (one transaction; "
                              "no row is deleted, ids and links stay)", style="bold"))
            yield Static(Text(clean(self.plan.confirmation(), single_line=True)),
                         id="purge-line")
            yield DataTable(id="purge-rows", cursor_type="row", zebra_stripes=True)
            yield Static(Text(f"Type {CONFIRM_WORD} and press Enter to rewrite these rows; "
                              "Esc cancels."), id="purge-ask")
            yield Input(placeholder=CONFIRM_WORD, id="purge-confirm")
            with Horizontal():
                yield Button("Cancel (Esc)", id="purge-cancel")

    def on_mount(self) -> None:
        table = self.query_one("#purge-rows", DataTable)
        for label in ("Row", "Was", "Now", "Becomes"):
            table.add_column(label, key=label.lower())
        for r in self.plan.rows:
            table.add_row(Text(f"#{r.id}"), Text(r.status), cell(r.before, max_len=120),
                          cell(r.after, max_len=120), key=str(r.id))

    @on(Input.Submitted, "#purge-confirm")
    def _submitted(self, event: Input.Submitted) -> None:
        if event.value.strip() == CONFIRM_WORD:
            self.dismiss(True)
        else:
            self.query_one("#purge-ask", Static).update(
                Text(f"Type {CONFIRM_WORD} exactly to go on (Esc cancels).", style="bold"))

    @on(Button.Pressed, "#purge-cancel")
    def _cancel(self) -> None:
        self.dismiss(False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


async def run_purge(app: MemharnessApp, fact_id: int, *, whole: bool = False) -> None:
    """Plan, preview, confirm, write (in a worker: it waits for the modal). Refusals reach the
    app's one error handler; nothing is written unless ``purge`` was typed."""
    if app.readonly:
        app.notify("This database is open read-only: nothing can be purged here.",
                   severity="warning")
        return
    plan = await app.hygiene.plan_purge(fact_id, whole)
    if not await app.push_screen_wait(PurgePreview(plan)):
        app.notify("Nothing was written.", title="Purge")
        return
    result = await app.hygiene.apply_purge(plan)
    ids = ", ".join(f"#{i}" for i in result.outcome.changed)
    said = f"Purged {len(result.outcome.changed)} row(s): {ids}."
    if result.leftovers:
        said += " Still found in: " + ", ".join(sorted({f for f, _ in result.leftovers}))
        app.notify(clean(said), title="Purge", severity="warning", timeout=12)
        return
    for note in result.outcome.notes:
        said += " " + note
    app.notify(clean(said + " The credentials are in no file of the database."),
               title="Purge", timeout=10)
