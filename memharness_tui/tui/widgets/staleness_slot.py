"""Placeholder for the staleness dashboard (issue #5): lists flagged facts from the store.

The dashboard engineer replaces this pane; the tab id ``staleness`` and ``OpenFact`` stay.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from memharness_tui.tui.messages import OpenFact
from memharness_tui.tui.render import cell, freshness_badge, short_time
from memharness_tui.tui.widgets.base import WorkerErrorsToApp

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp

FLAGGED_SHOWN = 300


class StalenessSlot(WorkerErrorsToApp, Vertical):
    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    def compose(self) -> ComposeResult:
        yield Static(id="flagged-summary")
        yield DataTable(id="flagged-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one("#flagged-table", DataTable)
        for key, label in (("id", "ID"), ("fresh", "Freshness"), ("subject", "Subject"),
                           ("fact", "Fact"), ("pin", "Pin"), ("checked", "Checked")):
            table.add_column(label, key=key)
        self.reload()

    @work(exclusive=True, group="flagged", exit_on_error=False)
    async def reload(self) -> None:
        facts = await self.mapp.gateway.call(lambda s: s.flagged(limit=FLAGGED_SHOWN))
        table = self.query_one("#flagged-table", DataTable)
        table.clear()
        for f in facts:
            pin = (f"{f.source_path}@" if f.source_path else "") + (f.source_commit or "")[:7]
            table.add_row(Text(str(f.id), style="dim"), freshness_badge(self.app, f.freshness, True),
                          cell(f.subject, max_len=24), cell(f.fact, max_len=60),
                          cell(pin, max_len=40), Text(short_time(f.checked_at), style="dim"),
                          key=str(f.id))
        summary = Text()
        summary.append(f"{len(facts)} flagged fact{'s' if len(facts) != 1 else ''}", style="bold")
        summary.append(" (stale or unresolved, from the last staleness pass).  ", style="")
        summary.append("The full staleness dashboard arrives with issue #5.", style="dim")
        self.query_one("#flagged-summary", Static).update(summary)

    @on(DataTable.RowSelected, "#flagged-table")
    def _open(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.post_message(OpenFact(int(event.row_key.value)))
