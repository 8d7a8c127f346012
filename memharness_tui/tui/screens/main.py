"""The main screen: header, counts, banners, and one tab per area (recall, subjects, diff, staleness, hygiene).

State down: the screen mirrors the app's state (``as_of``, ``store_revision``, ``readonly``,
``repos``) in its own reactives and binds them into every pane with ``data_bind``; a pane
reacts in its watchers and never reads another pane. Messages up: panes post ``OpenFact`` etc.

Only the Recall pane is built with the screen. The other panes (and their modules) are built
one at a time once the first results are on screen, or at once when their tab is shown first;
either way they bind to the screen's reactives exactly as if composed with it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, cast

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Header, TabbedContent, TabPane

from memharness_tui.tui import tcss
from memharness_tui.tui.gc_policy import freeze_long_lived
from memharness_tui.tui.messages import ConfirmWanted, ReembedWanted, ReposWanted
from memharness_tui.tui.perf.binding import binding_context
from memharness_tui.tui.perf.footer import KeysFooter
from memharness_tui.tui.screens.base import AppScreen
from memharness_tui.tui.state import StalenessSession
from memharness_tui.tui.widgets.header import Banner, StatusStrip
from memharness_tui.tui.widgets.recall import RecallPane
from memharness_tui.tui.widgets.welcome import Welcome, welcome_text

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from memharness_tui.tui.app import MemharnessApp

# (tab id, title, key)
TABS: tuple[tuple[str, str, str], ...] = (
    ("recall", "Recall", "1"),
    ("subjects", "Subjects", "2"),
    ("diff", "Changes", "3"),
    ("staleness", "Staleness", "4"),
    ("hygiene", "Hygiene", "5"),
)
# the widget that gets focus when a tab is shown (its keys then work at once)
MAIN_WIDGET = {"recall": "#results", "subjects": "#subject-list", "diff": "#diff-table",
               "staleness": "#flagged-table", "hygiene": "#hygiene-table"}
MIRRORED = ("as_of", "store_revision", "readonly", "repos", "session")

ASOF_BANNER = ("⏱ AS OF {as_of}: believed then, in every list; staleness verdicts are as of "
               "the last pass · T: now")  # one line at 120 columns (it was cut there)


class MainScreen(AppScreen):
    CSS_PATH = tcss.path(__file__)
    AUTO_FOCUS = "#results"
    BINDINGS = [
        # not in the footer: each tab's label shows its key ("Recall [1]"), and at 120
        # columns the footer had no room left for its last keys ("r Reloa▏")
        *[Binding(key, f"show_tab('{tab}')", title, id=f"main.tab.{tab}", priority=True,
                  show=False, tooltip=f"Show the {title} tab")
          for tab, title, key in TABS],
        # priority: handled in the order keys arrive, so the keys typed right after it (a
        # paste, a fast burst) already find the box focused; in a text box it is typed
        Binding("slash", "focus_search", "Search", id="main.search", priority=True,
                tooltip="Search (focus the search box; Esc leaves it)"),
        Binding("t", "time_travel", "Time travel", id="main.time_travel",
                tooltip="Time travel: show what was believed at a date"),
        Binding("T", "back_to_now", "Now", id="main.now",
                tooltip="Back to now (leave time travel)"),
        Binding("r", "reload", "Reload", id="main.reload",
                tooltip="Reload counts and lists (agents' writes also appear by themselves)"),
        Binding("escape", "leave_text_box", "Leave box", show=False, id="main.leave_box",
                tooltip="Leave a text box (then single-letter keys work)"),
        Binding("z", "undo", "Undo", show=False, id="main.undo",
                tooltip="Undo this app's last write (with new rows; never over an agent's)"),
        Binding("Z", "redo", "Redo", show=False, id="main.redo",
                tooltip="Redo what z undid"),
    ]

    as_of: reactive[str | None] = reactive(None)
    store_revision: reactive[int] = reactive(0, repaint=False)  # data only (see the app's)
    readonly: reactive[bool] = reactive(False)
    repos: reactive[tuple[str, ...]] = reactive(())
    session: reactive[StalenessSession] = reactive(StalenessSession, repaint=False)
    agent_view: reactive[bool] = reactive(False)

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    def compose(self) -> ComposeResult:
        for name in MIRRORED:  # before the panes bind to them
            self.set_reactive(getattr(MainScreen, name), getattr(self.app, name))
        bound = (MainScreen.as_of, MainScreen.store_revision, MainScreen.readonly)
        yield Header()
        yield StatusStrip(id="status-strip")
        yield Banner(id="readonly-banner", classes="banner")
        yield Banner(id="asof-banner", classes="banner")
        yield Welcome(id="welcome")
        with TabbedContent(id="tabs", initial="recall"):
            with TabPane("Recall [1]", id="recall"):
                yield RecallPane(id="recall-pane").data_bind(*bound, MainScreen.agent_view)
            for tab, title, key in TABS[1:]:  # filled by _pane_ready
                yield TabPane(f"{title} [{key}]", id=tab)
        yield KeysFooter()

    def __init__(self) -> None:
        super().__init__()
        self._pane_mounts: dict[str, Awaitable[None]] = {}
        self._id_width: int | None = None

    def on_confirm_wanted(self, message: ConfirmWanted) -> None:
        """A pane asks to confirm: this screen opens the confirmation."""
        from memharness_tui.tui.screens.confirm import ConfirmScreen

        message.stop()
        self.app.push_screen(ConfirmScreen(message.title, message.detail,
                                           confirm=message.confirm, danger=message.danger),
                             message.answered)

    def on_repos_wanted(self, message: ReposWanted) -> None:
        """A pane asks for the repos editor: this screen opens it."""
        from memharness_tui.tui.screens.repos import ReposScreen

        message.stop()
        self.app.push_screen(ReposScreen(list(message.repos)), message.chosen)

    def on_reembed_wanted(self, message: ReembedWanted) -> None:
        """The Recall tab asks for reembed: this screen opens it (hybrid_commands.py)."""
        from memharness_tui.tui.hybrid_commands import open_reembed

        message.stop()
        open_reembed(self.mapp)

    def on_mount(self) -> None:
        for name in MIRRORED:
            self.watch(self.app, name, self._mirror(name), init=False)
        self.watch_readonly(self.readonly)
        self.watch_as_of(self.as_of)
        self.refresh_counts()
        self.refresh_review()
        self._build_hidden_panes()
        from memharness_tui.tui.services.undo import journal_for

        journal_for(self.mapp)  # the app's writes are steps from now on

    # ----- the panes behind the other tabs, built after the first results -----------------
    def _new_pane(self, tab: str) -> Widget:
        """The pane of ``tab``, bound to this screen's reactives (as compose would)."""
        bound = (MainScreen.as_of, MainScreen.store_revision, MainScreen.readonly)
        with binding_context(self):  # data_bind binds to the node whose context is active
            if tab == "subjects":
                from memharness_tui.tui.widgets.subjects import SubjectsPane

                pane = SubjectsPane(id="subjects-pane")
                if self._id_width is not None:
                    pane.set_reactive(SubjectsPane.id_width, self._id_width)
                return pane.data_bind(*bound)
            if tab == "diff":
                from memharness_tui.tui.widgets.diff import DiffPane

                return DiffPane(id="diff-pane").data_bind(*bound)
            if tab == "hygiene":
                from memharness_tui.tui.widgets.hygiene import HygienePane

                return HygienePane(id="hygiene-pane").data_bind(*bound)
            from memharness_tui.tui.widgets.dashboard import StalenessDashboard

            return StalenessDashboard(id="staleness-pane").data_bind(*bound, MainScreen.repos,
                                                                    MainScreen.session)

    def _pane_ready(self, tab: str) -> Awaitable[None] | None:
        """Mount ``tab``'s pane unless it is; returns its mount to await (None: Recall)."""
        if tab == "recall":
            return None
        mounted = self._pane_mounts.get(tab)
        if mounted is None:
            if tab == "staleness":  # shown before the repos were settled: settle them now
                self.run_worker(self.mapp.repo_prefs.known(), group="repos", exit_on_error=False)
            mounted = self.query_one(f"#tabs TabPane#{tab}", TabPane).mount(self._new_pane(tab))
            self._pane_mounts[tab] = mounted
        return mounted

    async def build_every_pane(self) -> None:
        """Every tab's pane built now (help reads the keys of the tabs not shown yet)."""
        for tab, _title, _key in TABS[1:]:
            mounted = self._pane_ready(tab)
            if mounted is not None:
                await mounted

    @work(group="hidden-panes", exit_on_error=False)
    async def _build_hidden_panes(self) -> None:
        """Once the first results are painted, build the other tabs' panes one by one."""
        await self.mapp.opening.settled()
        recall = self.query_one(RecallPane)
        for _ in range(10):  # its results shown and painted (or given up on: a failed read)
            await self._next_refresh()
            if recall.last_result is not None:
                break
        self.mapp.opening.shown()
        await recall.mount_filters()  # the real Selects, in place of the first frame's stubs
        await self._next_refresh()
        await self.mapp.repo_prefs.known()  # the dashboard and new facts use them
        for tab, _title, _key in TABS[1:]:
            mounted = self._pane_ready(tab)
            if mounted is not None:
                await mounted
            await self._next_refresh()  # a keystroke gets in between two panes
        self.mapp.details.build_ahead()
        await self._next_refresh()
        freeze_long_lived()  # every pane built: full collections skip what lives as long as the app

    def _next_refresh(self) -> asyncio.Future[None]:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.call_after_refresh(lambda: None if done.done() else done.set_result(None))
        return done

    def _mirror(self, name: str):  # noqa: ANN202 - a small closure
        def copy(value: object) -> None:
            setattr(self, name, value)
        return copy

    def watch_readonly(self, readonly: bool) -> None:
        self.query_one("#readonly-banner", Banner).say(
            "READ-ONLY — this database is opened read-only; nothing here can change it."
            if readonly else None)

    def watch_as_of(self, as_of: str | None) -> None:
        self.query_one("#asof-banner", Banner).say(ASOF_BANNER.format(as_of=as_of)
                                                   if as_of else None)

    def watch_store_revision(self) -> None:
        self.refresh_counts()
        self.refresh_review()

    @work(exclusive=True, group="review-count", exit_on_error=False)
    async def refresh_review(self) -> None:
        """The status strip's "N to review" (screens/review.py)."""
        from memharness_tui.tui.services.review import to_review

        count = await to_review(self.mapp)
        self.query_one("#status-strip", StatusStrip).set_to_review(count)

    @work(exclusive=True, group="counts", exit_on_error=False)
    async def refresh_counts(self) -> None:
        counts = await self.mapp.service.counts()
        largest = await self.mapp.service.largest_id()
        info = self.mapp.info
        if info is not None:
            self.query_one("#status-strip", StatusStrip).show(info.schema_version, counts)
        self._show_welcome(counts.total == 0)
        self._fit_ids(largest)

    def _fit_ids(self, largest: int) -> None:
        """ID columns as wide as the store's largest id (never ``9999…``)."""
        from memharness_tui.tui.widgets.results_table import ResultsTable

        width = max(3, len(str(largest)))
        self.query_one("#results", ResultsTable).set_column_width("id", width)
        self._id_width = width
        for pane in self.query("#subjects-pane"):
            cast(Any, pane).id_width = width

    def _show_welcome(self, empty: bool) -> None:
        """An empty store shows the welcome instead of the tabs (until its first fact)."""
        welcome = self.query_one("#welcome", Welcome)
        tabs = self.query_one("#tabs", TabbedContent)
        info = self.mapp.info
        if empty and info is not None:
            welcome.update(welcome_text(info.path, is_new=info.is_new, readonly=self.readonly))
        was_empty = bool(welcome.display)
        welcome.display = empty
        tabs.display = not empty
        if empty:
            welcome.focus()
        elif was_empty:
            self._focus_main(tabs.active or "recall")

    # ----- keys -----------------------------------------------------------------------
    def action_show_tab(self, tab: str) -> None:
        self._pane_ready(tab)
        tabs = self.query_one("#tabs", TabbedContent)
        tabs.active = tab
        self._focus_main(tab)  # in this frame (a pane still mounting: ``_tab_changed`` does)

    def _focus_main(self, tab: str) -> None:
        """Focus ``tab``'s main widget (not there yet: ``_tab_changed`` does it once built),
        with its focused look in the switch's own frame.

        Textual restyles a widget for ``:focus`` when its Focus event arrives, after the next
        frame: a switch painted the table unfocused and then again focused. Like Textual's
        own auto focus (``Screen._update_auto_focus``), ``has_focus`` is set first."""
        for widget in self.query(MAIN_WIDGET[tab]):
            if widget.is_mounted and widget.focusable and self.focused is not widget:
                before = self.focused
                widget.has_focus = True
                if before is not None:
                    before.has_focus = False
                self.set_focus(widget)

    @on(TabbedContent.TabActivated)
    async def _tab_changed(self, event: TabbedContent.TabActivated) -> None:
        """Put focus on the pane's main widget so its keys work at once."""
        if event.pane.id in MAIN_WIDGET:
            mounted = self._pane_ready(event.pane.id)  # a tab clicked before it was built
            if mounted is not None and not all(c.is_mounted for c in event.pane.children):
                await mounted  # (awaiting a finished mount lays the screen out again)
            focused = self.focused
            if focused is not None and event.pane in focused.ancestors:
                return  # already inside the pane (``/`` put it in the search box)
            self._focus_main(event.pane.id)

    def on_hygiene_pane_fix(self, message: Any) -> None:
        """The Hygiene tab asks for a fix: editors, preview and write run here (a worker)."""
        from memharness_tui.tui.screens.hygiene_flow import run_fix

        self.run_worker(run_fix(self.mapp, message.fix, message.flags), group="hygiene-fix",
                        exclusive=True, exit_on_error=False)

    def on_hygiene_pane_show_staleness(self, _message: Any) -> None:
        self.action_show_tab("staleness")

    def action_focus_search(self) -> None:
        """Focus the search box at once, not after the queued keys: ``Widget.focus`` waits
        for the messages already queued, which a burst typed after ``/`` (or a paste) is —
        ``q`` quit, ``t`` opened time travel."""
        self.action_show_tab("recall")
        search = self.query_one("#search")
        if self.focused is not search:
            self.set_focus(search)

    def on_paste(self, event: events.Paste) -> None:
        """A bracketed paste outside a text box (a text box takes its own) is a search."""
        event.stop()
        self.action_focus_search()
        self.query_one("#search").post_message(events.Paste(event.text))

    def action_leave_text_box(self) -> None:
        """Esc in any text box: back to the pane's main widget."""
        tab = self.query_one("#tabs", TabbedContent).active
        if tab in MAIN_WIDGET:
            self._focus_main(tab)

    def action_time_travel(self) -> None:
        self.mapp.action_time_travel()

    def action_reload(self) -> None:
        self.mapp.reload_all()

    def action_undo(self) -> None:
        from memharness_tui.tui.services.undo import run_undo

        self.run_worker(run_undo(self.mapp), group="undo", exit_on_error=False)

    def action_redo(self) -> None:
        from memharness_tui.tui.services.undo import run_undo

        self.run_worker(run_undo(self.mapp, redo=True), group="undo", exit_on_error=False)

    def action_back_to_now(self) -> None:
        self.mapp.action_travel(None)

    def action_toggle_agent_view(self) -> None:
        self.agent_view = not self.agent_view
