"""The preview of a hygiene fix: every row it will write, by id, and one line to confirm.
Enter or y applies, Esc or n cancels. Text from the store is data (``Text``, never markup)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Static

from memharness_tui.tui import tcss
from memharness_tui.tui.render import cell, clean

if TYPE_CHECKING:
    from memharness_tui.hygiene import Plan, PlannedRow

__all__ = ["PlanPreview", "pin_lines", "row_cells"]

TITLES = {"merge": "Merge", "refile": "Refile", "split": "Split", "pin": "Pin",
          "retract": "Retract", "bulk": "Fix"}


def row_cells(row: PlannedRow) -> tuple[Text, Text, Text, Text]:
    """What one planned row shows: what happens, to which id, under which subject, the text."""
    if row.action == "new":
        what = Text("write", style="bold green")
        where = f"new {(row.slot or 0) + 1}"
        if row.supersedes:
            where += " ← " + ", ".join(f"#{i}" for i in row.supersedes)
    elif row.action == "close":
        what = Text("close", style="bold yellow")
        where = f"#{row.id} → new {(row.slot or 0) + 1}"
    else:
        what = Text("retract", style="bold red")
        where = f"#{row.id}"
    return what, Text(where), cell(row.subject, max_len=24), cell(row.fact, max_len=200)


def pin_lines(plan: Plan) -> Text | None:
    """The commit and path a pin writes, in full (one line per distinct pin), or None."""
    from memharness_tui.hygiene import AGENTS

    pins = dict.fromkeys((n.source_commit, n.source_path) for n in plan.new
                         if n.source_agent == AGENTS["pin"] and n.source_commit)
    if not pins:
        return None
    out = Text()
    for commit, path in pins:
        if out:
            out.append("\n")
        out.append("pins to commit ")
        out.append(clean(commit or "", single_line=True), style="bold")
        out.append(" · path ")
        out.append(clean(path, single_line=True) if path else "none (the whole commit)",
                   style="bold" if path else "italic")
    return out


class PlanPreview(ModalScreen[bool]):
    """Dismisses with True (apply) or False (nothing is written)."""

    CSS_PATH = tcss.path(__file__)

    AUTO_FOCUS = "#preview-rows"
    BINDINGS = [
        Binding("escape,n", "answer(False)", "Cancel", id="hygiene_preview.cancel"),
        Binding("y", "answer(True)", "Apply", id="hygiene_preview.apply"),
    ]

    def __init__(self, plan: Plan) -> None:
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        title = TITLES.get(self.plan.fix, self.plan.fix.title())
        with Vertical(id="preview-box", classes="modal-box"):
            yield Static(Text(f"{title}: the rows this writes (one transaction)",
                              style="bold"), classes="modal-title")
            yield Static(Text(clean(self.plan.confirmation(), single_line=True)),
                         id="preview-line")
            pins = pin_lines(self.plan)
            if pins:
                yield Static(pins, id="preview-pin")
            yield DataTable(id="preview-rows", cursor_type="row", zebra_stripes=True)
            with Horizontal(classes="modal-buttons"):
                yield Button("Cancel (n)", id="preview-cancel")
                yield Button("Apply (y)", id="preview-apply", variant="primary")

    def on_mount(self) -> None:
        table = self.query_one("#preview-rows", DataTable)
        table.add_column("Does", key="does")
        table.add_column("Row", key="row")
        table.add_column("Subject", key="subject")
        table.add_column("Text", key="text")
        for n, row in enumerate(self.plan.rows):
            table.add_row(*row_cells(row), key=str(n))

    @on(Button.Pressed, "#preview-apply")
    @on(DataTable.RowSelected, "#preview-rows")
    def _apply(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#preview-cancel")
    def _cancel(self) -> None:
        self.dismiss(False)

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
