"""The main screen: header, counts, banners, and one tab per area (recall, subjects, diff, staleness)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, TabbedContent, TabPane

from memharness_tui.tui.widgets.base import WorkerErrorsToApp
from memharness_tui.tui.widgets.diff import DiffPane
from memharness_tui.tui.widgets.header import Banner, StatusStrip
from memharness_tui.tui.widgets.recall import RecallPane
from memharness_tui.tui.widgets.staleness_slot import StalenessSlot
from memharness_tui.tui.widgets.subjects import SubjectsPane

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp

# (tab id, title, key) — the "staleness" slot is where issue #5's dashboard goes.
TABS: tuple[tuple[str, str, str], ...] = (
    ("recall", "Recall", "1"),
    ("subjects", "Subjects", "2"),
    ("diff", "Changes", "3"),
    ("staleness", "Staleness", "4"),
)


class MainScreen(WorkerErrorsToApp, Screen[None]):
    AUTO_FOCUS = "#results"
    BINDINGS = [
        *[Binding(key, f"show_tab('{tab}')", title, id=f"main.tab.{tab}",
                  tooltip=f"Show the {title} tab")
          for tab, title, key in TABS],
        Binding("slash", "focus_search", "Search", id="main.search",
                tooltip="Search (focus the search box; Esc leaves it)"),
        Binding("t", "time_travel", "Time travel", id="main.time_travel",
                tooltip="Time travel: show what was believed at a date"),
        Binding("T", "back_to_now", "Now", id="main.now",
                tooltip="Back to now (leave time travel)"),
        Binding("r", "reload", "Reload", id="main.reload", show=False,
                tooltip="Reload counts and lists (agents may have written meanwhile)"),
    ]

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    def compose(self) -> ComposeResult:
        yield Header()
        yield StatusStrip(id="status-strip")
        yield Banner(id="readonly-banner", classes="banner")
        yield Banner(id="asof-banner", classes="banner")
        with TabbedContent(id="tabs", initial="recall"):
            with TabPane("Recall [1]", id="recall"):
                yield RecallPane(id="recall-pane")
            with TabPane("Subjects [2]", id="subjects"):
                yield SubjectsPane(id="subjects-pane")
            with TabPane("Changes [3]", id="diff"):
                yield DiffPane(id="diff-pane")
            with TabPane("Staleness [4]", id="staleness"):
                yield StalenessSlot(id="staleness-pane")
        yield Footer()

    def on_mount(self) -> None:
        self.mapp.settle_inputs(self)
        info = self.mapp.info
        self.query_one("#readonly-banner", Banner).say(
            "READ-ONLY — this database is opened read-only; nothing here can change it."
            if info is not None and info.readonly else None
        )
        self.watch(self.app, "as_of", self._as_of_changed)
        self.refresh_counts()

    def _as_of_changed(self, as_of: str | None) -> None:
        self.query_one("#asof-banner", Banner).say(
            f"⏱ AS OF {as_of} — time travel: every list shows what was believed then  (T: now)"
            if as_of else None
        )

    @work(exclusive=True, group="counts", exit_on_error=False)
    async def refresh_counts(self) -> None:
        counts = await self.mapp.gateway.call(lambda s: s.counts())
        info = self.mapp.info
        if info is not None:
            self.query_one("#status-strip", StatusStrip).show(info.path, info.schema_version, counts)

    def action_show_tab(self, tab: str) -> None:
        self.query_one("#tabs", TabbedContent).active = tab

    def action_focus_search(self) -> None:
        self.action_show_tab("recall")
        self.query_one("#recall-pane", RecallPane).focus_search()

    def action_time_travel(self) -> None:
        self.mapp.action_time_travel()

    def action_reload(self) -> None:
        self.reload_all()

    def action_back_to_now(self) -> None:
        self.mapp.as_of = None

    @on(TabbedContent.TabActivated)
    def _tab_changed(self, event: TabbedContent.TabActivated) -> None:
        """Put focus somewhere useful so the pane's keys work at once."""
        pane_id = event.pane.id
        if pane_id == "subjects":
            self.query_one("#subject-list").focus()
        elif pane_id == "diff":
            self.query_one("#diff-table").focus()
        elif pane_id == "staleness":
            self.query_one("#flagged-table").focus()

    def reload_all(self) -> None:
        """Counts and every pane (after a write, or when asked from the palette)."""
        self.refresh_counts()
        self.query_one("#recall-pane", RecallPane).run_search()
        self.query_one(SubjectsPane).invalidate()
        self.query_one(DiffPane).invalidate()
        self.query_one("#staleness-pane", StalenessSlot).reload()  # issue #5's dashboard contract
