"""The Textual app: what the agents believe, searchable, browsable, and travelable in time.

Built by :func:`build_app` (the console script through ``run_app``, and the tests, with a
frozen clock and ``now``): one construction for every way the app starts.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events
from textual.app import App
from textual.binding import Binding
from textual.command import Provider
from textual.reactive import reactive

from memharness_tui import config
from memharness_tui.tui import app_early, gc_policy, tcss
from memharness_tui.tui.commands import AppCommands, FactCommands, RecallCommands
from memharness_tui.tui.messages import OpenFact, StoreChanged
from memharness_tui.tui.perf.keys import keep_key_order
from memharness_tui.tui.perf.theme import start_with as start_with_theme
from memharness_tui.tui.services import StoreInfo, StoreService, default_now
from memharness_tui.tui.services.details import FactDetails
from memharness_tui.tui.services.embedding import embedding_for
from memharness_tui.tui.services.hygiene import HygieneService
from memharness_tui.tui.services.idle_gc import IdleCollector
from memharness_tui.tui.services.opening import OpeningRecall
from memharness_tui.tui.services.repo_prefs import ReposPreferences
from memharness_tui.tui.services.theme_prefs import ThemePreferences
from memharness_tui.tui.services.vectors import VectorService
from memharness_tui.tui.signals import quit_on_signals
from memharness_tui.tui.state import SessionNews, StalenessOptions, StalenessSession

if TYPE_CHECKING:
    from memharness_tui.tui.screens.main import MainScreen

POLL_INTERVAL = 0.1  # seconds between PRAGMA data_version polls (another process's commits;
# one pragma and one stat on the DB thread: an agent's write reaches the header ~0.05 s sooner)


def _staleness_commands() -> type[Provider]:
    """The staleness palette provider, imported lazily so the app starts without it loaded."""
    from memharness_tui.tui.staleness_commands import StalenessCommands

    return StalenessCommands


class MemharnessApp(App[int]):
    """The app owns the state every pane shows (bound down by the main screen):

    ``as_of`` (time travel), ``store_revision`` (moves on every write, ours or another
    process's), ``readonly``, this database's ``repos`` and ``session`` (verdict reasons, an
    immutable value the app alone replaces); plus ``service`` (the typed store API on the DB thread).

    Its parts, held by name (``services/``): ``opening`` (the opening recall, sent before the
    screen is built), ``details`` (the one fact detail screen, built ahead), ``themes`` and
    ``repo_prefs`` (choices remembered in the config dir), ``idle_gc`` (full collections while
    the user pauses), ``hygiene`` (the Hygiene tab's scan and fixes). Textual's actions and
    handlers here delegate to them in one line.
    """

    # One CSS convention (tui/tcss.py): app.tcss holds the app-wide rules only; each screen's
    # and widget's own rules are in the .tcss beside its module.
    CSS_PATH = tcss.path(__file__)
    TITLE = "memharness"
    COMMANDS = App.COMMANDS | {AppCommands, RecallCommands, FactCommands, _staleness_commands}
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Quit"),
        Binding("question_mark,f1", "help", "Help", id="app.help",
                tooltip="This help: every key"),
        Binding("ctrl+t", "pick_theme", "Theme", id="app.theme", show=False,
                tooltip="Theme picker (remembered)"),
    ]

    as_of: reactive[str | None] = reactive(None)
    """None = current beliefs; a canonical timestamp = what was believed then (every list)."""
    store_revision: reactive[int] = reactive(0, repaint=False)
    """Moves whenever the store changed (our writes, another process's commits, ``r``). Data
    only: each list reloads itself; a repaint here would redraw the whole screen at every
    poll that sees a write (twice a second while a staleness pass writes)."""
    readonly: reactive[bool] = reactive(False, bindings=True)
    """The store is open read-only: write keys are disabled (``check_action``)."""
    repos: reactive[tuple[str, ...]] = reactive(())
    """The repos a staleness pass checks, remembered for this database."""
    session: reactive[StalenessSession] = reactive(StalenessSession, repaint=False)
    """Why facts have their verdicts (an immutable value; replaced in ``on_session_news``)."""

    def __init__(
        self,
        db_path: str | os.PathLike[str] | None = None,
        *,
        readonly: bool = False,
        open_store: Callable[[], Any] | None = None,
        now: str | Callable[[], str] | None = None,
        config_dir: Path | None = None,
        search_debounce: float = 0.0,
        cursor_blink: bool = True,
        staleness_options: Any = None,
        poll_interval: float = POLL_INTERVAL,
    ) -> None:
        """``db_path``: the database (None: SPEC §1's default). The store is opened on the
        app's one DB thread by the start ``app_early`` has pending for it (the command line's,
        made by :func:`build_app`), else by one made here the same way; ``open_store`` opens it
        instead of the default opener (a test's frozen clock).

        ``search_debounce``: 0 (the default) searches on every keystroke, latest wins (a newer
        keystroke cancels the older search, queued or in flight); > 0 waits that long after
        the last keystroke instead."""
        super().__init__()
        self.css_path = [*self.css_path, *tcss.screen_sheets()]  # read once, with app.tcss
        path = None if db_path is None else str(db_path)
        early = (app_early.claim(path, readonly, open_store)
                 or app_early.start(path, readonly, open_store))
        self._early: app_early.EarlyStart | None = early
        self.gateway = early.gateway
        self.service = StoreService(self.gateway, on_write=self._after_write)
        self.hygiene = HygieneService(self.gateway, self.service.wrote)
        self._now = now
        self.config_dir = config_dir or config.config_dir()
        self.settings = config.load_settings(self.config_dir)
        self.vectors, self.embedding = VectorService(self.gateway), embedding_for(self.settings)
        self.search_debounce = search_debounce
        self.cursor_blink = cursor_blink
        self.staleness_options = staleness_options
        """Pass knobs (state.StalenessOptions): repos, clock, timer, batch size."""
        self.poll_interval = poll_interval
        self._data_version: int | None = None
        self._polling = False
        self.info: StoreInfo | None = None
        self._opening: asyncio.Future[Any] | None = None  # the open, sent at load
        self.opening = OpeningRecall(self.service, lambda: self.store_revision)
        self.details = FactDetails(self)
        self.idle_gc = IdleCollector(hold=lambda: self.service.pass_writing)
        self.repo_prefs = ReposPreferences(lambda: self.options, self.config_dir, self._set_repos,
                                           self._warn)
        self.themes = ThemePreferences(self, self.settings, self.config_dir)
        self._theme_problems = self.themes.register()
        start_with_theme(self, self.themes.starting())  # the saved one, if it can be used

    @property
    def options(self) -> StalenessOptions:
        opts = self.staleness_options
        return opts if isinstance(opts, StalenessOptions) else StalenessOptions()

    # ----- everything user-visible that is not a Text goes through terminal_text ------------
    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every toast: literal text (markup off), control characters made visible."""
        from memharness_tui.tui.render import terminal_text

        super().notify(terminal_text(message), title=terminal_text(title, single_line=True),
                       severity=severity, timeout=timeout, markup=False)

    def _watch_sub_title(self, value: str) -> None:
        from memharness_tui.tui.render import terminal_text

        cleaned = terminal_text(value, single_line=True)
        if cleaned != value:
            self.sub_title = cleaned

    # ----- time -----------------------------------------------------------------------------
    def now_iso(self) -> str:
        """'Now' for ages shown on screen (fixed in tests, wall clock otherwise)."""
        if self._now is None:
            return default_now()
        return self._now() if callable(self._now) else self._now

    # ----- lifecycle ------------------------------------------------------------------------
    def on_load(self) -> None:
        """Before Textual composes, mounts and paints its first (empty) screen: send the open
        and the opening recall to the DB thread, so the store's import, its open and the first
        query run while the framework starts up rather than after it: the start the app was
        built with (``app_early``; the command line's was sent before Textual was imported)."""
        early, self._early = self._early, None
        assert early is not None, "loaded twice"
        self._opening = asyncio.ensure_future(self.service.adopt_open(early.opening))
        self.service.recalls.adopt_recall(early.query, early.recall, early.ticket)
        self._opening.add_done_callback(lambda f: None if f.cancelled() else f.exception())
        # behind the open on the same thread (or joins the early one)
        self.opening.start(self.as_of, (early.query, early.first))

    def on_mount(self) -> None:
        app_early.shorten_switch_interval()  # restored at unmount
        self.idle_gc.start(self)
        self.themes.announce(self._theme_problems)
        # rows carry their colours (badges, counts) as drawn: a new theme draws them again
        self.theme_changed_signal.subscribe(self, lambda _theme: self.reload_all())
        self._open_store()

    def _open_store(self) -> None:
        self.run_worker(self._open(), exclusive=True, group="open", exit_on_error=False)

    async def _open(self) -> None:
        from memharness_tui.tui.screens.main import MainScreen

        opening, self._opening = self._opening, None  # sent at load
        try:
            self.info, note = await opening  # type: ignore[misc]
        except Exception as exc:  # noqa: BLE001 - any open failure becomes one readable modal
            from memharness_tui.tui.screens.modals import ErrorModal

            gc_policy.resume()
            self.push_screen(ErrorModal("Cannot open the database", _message(exc), fatal=True))
            return
        self.sub_title = self.info.path
        self.readonly = self.info.readonly
        self.repo_prefs.settle_known(self.info.path)
        await self.push_screen(MainScreen())
        if self.poll_interval > 0:
            self.set_interval(self.poll_interval, self._poll, name="data_version")
        if self.info.is_new:
            self.notify(f"New, empty store: {self.info.path} — nothing is written to it until "
                        "you add a fact.", title="New store", timeout=8)
        if note and note.startswith("migrated"):
            self.notify(note, title="Database migrated", timeout=8)

    def on_unmount(self) -> None:
        gc_policy.resume()
        if self._opening is not None:
            self._opening.cancel()
        self.opening.cancel()
        app_early.restore_switch_interval()
        gc_policy.restore()
        self.service.close()

    # ----- the store's revision: our writes, other processes' commits, r ----------------------
    def _after_write(self, reasons: Mapping[int, str]) -> None:
        """Every write the app makes lands here (the service tells us): note why, and move."""
        self.on_session_news(SessionNews(reasons=reasons))
        self.store_revision += 1

    def on_session_news(self, news: SessionNews) -> None:
        """The one place ``session`` is replaced (news from the dashboard, or our writes)."""
        self.session = self.session.learned(news)

    def _poll(self) -> None:
        if not self._polling and not self.gateway.closed:
            self._polling = True
            # the function, not a coroutine: one never awaited at shutdown warned (Textual's
            # annotation takes only async callables returning Never)
            self.run_worker(self._poll_once, group="data_version",  # type: ignore[arg-type]
                            exit_on_error=False)

    async def _poll_once(self) -> None:
        """``PRAGMA data_version`` on the DB thread: has another connection committed?"""
        from memharness_tui.store.errors import FileReplaced

        try:
            version = await self.service.data_version()
        except FileReplaced as exc:  # the path names another file now (or none)
            from memharness_tui.tui import file_gone

            file_gone.notice(self, exc.message)
            return
        except Exception:  # noqa: BLE001 - a failed poll just means "look again later"
            return
        finally:
            self._polling = False
        if self._data_version is not None and version != self._data_version:
            self.store_revision += 1
        self._data_version = version

    # ----- errors: the one place worker failures end up -------------------------------------
    def _handle_exception(self, error: Exception) -> None:
        """An unexpected error ends the app with one line and a crash log, never a traceback.

        Headless runs (tests, benchmarks) keep Textual's behaviour so frameworks see the error.
        Nothing is lost: every write is its own committed transaction.
        """
        if self.is_headless:
            super()._handle_exception(error)
            return
        from memharness_tui.tui.crash_log import write_crash_log

        log = write_crash_log(error)
        self._return_code = 1
        where = f" — details in {log}" if log else ""
        self.panic(Text(f"memharness-tui stopped on an internal error: "
                        f"{type(error).__name__}: {_message(error)}{where}"))

    def report_error(self, exc: BaseException) -> None:
        from memharness_tui.store.errors import FileReplaced, MemharnessError

        if isinstance(exc, FileReplaced):
            from memharness_tui.tui import file_gone

            file_gone.notice(self, exc.message, again=True)
            return
        if isinstance(exc, MemharnessError):
            self.notify(_message(exc), title=exc.code.replace("_", " ").lower(),
                        severity="error", timeout=6)
        else:
            from memharness_tui.tui.screens.modals import ErrorModal

            title = "The database is busy" if "database is locked" in str(exc) else (
                "Something went wrong")
            self.push_screen(ErrorModal(title, _message(exc)))

    # ----- navigation -----------------------------------------------------------------------
    async def on_event(self, event: events.Event) -> None:
        self.idle_gc.saw(event)
        if not await keep_key_order(self, event):  # a text box's keys in the order typed
            await super().on_event(event)

    def on_open_fact(self, message: OpenFact) -> None:
        self.open_fact(message.fact_id)

    def open_fact(self, fact_id: int) -> None:
        """Show fact ``fact_id`` on the detail screen (the palette's "Open fact #…" too)."""
        self.details.open(fact_id)

    def _set_repos(self, repos: tuple[str, ...]) -> None:
        self.repos = repos

    def _warn(self, text: str, title: str) -> None:
        """A warning from one of the app's parts (the repos file, a save that failed)."""
        self.notify(text, title=title, severity="warning", timeout=10 if title else None)

    def action_pick_theme(self) -> None:
        self.themes.pick()

    def action_change_theme(self) -> None:  # Textual's built-in "Theme" command → our picker
        self.action_pick_theme()

    def get_system_commands(self, screen: Any) -> Any:
        """Textual's palette commands without its "Theme" (ours is "Theme: pick…") and its
        "Keys" (a second help beside ours, "Help: keys")."""
        for command in super().get_system_commands(screen):
            if command.title not in ("Theme", "Keys"):
                yield command

    def on_store_changed(self, _message: StoreChanged) -> None:
        """Something wrote to the store: every pane refreshes itself from the revision."""
        self.store_revision += 1

    def reload_all(self) -> None:
        """``r`` / the palette: re-read counts and every list."""
        self.store_revision += 1

    def main_screen(self) -> MainScreen | None:
        from memharness_tui.tui.screens.main import MainScreen

        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        return None

    def show_tab(self, tab: str, focus_search: bool = False) -> None:
        main = self.main_screen()
        if main is None:
            return
        while self.screen is not main:
            self.pop_screen()
        if focus_search:
            main.action_focus_search()
        else:
            main.action_show_tab(tab)

    def toggle_agent_view(self) -> None:
        main = self.main_screen()
        if main is not None:
            self.show_tab("recall")
            main.agent_view = not main.agent_view

    async def action_help(self) -> None:
        from memharness_tui.tui.screens.help import open_help

        await open_help(self)  # its keys from the screen it opens on, every tab's pane built

    def action_time_travel(self) -> None:
        from memharness_tui.tui.screens.modals import TimeTravelModal

        self.push_screen(TimeTravelModal(self.as_of),  # None: cancelled, "": back to now
                         lambda value: None if value is None else self.action_travel(value))

    def action_travel(self, when: str | None = None) -> None:
        """The one way ``as_of`` changes: to ``when`` (a canonical timestamp), or back to now."""
        self.as_of = when or None

    def on_descendant_focus(self, event: Any) -> None:
        """The app-wide cursor-blink preference, applied as a text box gets focus."""
        if not self.cursor_blink and hasattr(event.widget, "cursor_blink"):
            event.widget.cursor_blink = False

    def staleness_reason(self, fact: Any) -> str | None:
        """Why ``fact`` has its verdict: this session's pass or writes, else the last look."""
        return self.session.reason_for(fact.id)


def _message(exc: BaseException) -> str:
    text = str(exc).strip()
    return text or type(exc).__name__


def build_app(db_path: str | os.PathLike[str] | None = None, *, readonly: bool = False,
              demo: bool = False, **knobs: Any) -> MemharnessApp:
    """The one way the app is built: by the console script (``launch.open_app``), ``python -m``,
    each ``serve`` session (which runs the console script), ``--demo`` and the tests alike.

    ``demo``: the demo store and repo (built on first use) instead of ``db_path``. The store's
    open and the opening search start here unless already pending for this database
    (``app_early.open_early``); ``knobs`` go to :class:`MemharnessApp`."""
    if demo:
        from memharness_tui.demo import ensure_demo

        db, repo = ensure_demo()
        db_path = str(db)
        if knobs.get("staleness_options") is None:  # the demo's pins point into its own repo
            knobs["staleness_options"] = StalenessOptions(repos=[str(repo)])
    path = None if db_path is None else str(db_path)
    app_early.open_early(path, readonly, knobs.get("open_store"))
    return MemharnessApp(path, readonly=readonly, **knobs)


def run_app(db_path: str | None, *, readonly: bool = False, demo: bool = False) -> int:
    """Open the app on ``db_path`` (None → SPEC §1 default) or on the demo store; returns an exit code."""
    app = build_app(db_path, readonly=readonly, demo=demo)
    try:
        with quit_on_signals(app):  # SIGTERM/SIGHUP end it as q does, terminal restored
            result = app.run()
    finally:
        app.service.close()
    return app.return_code or int(result or 0)  # 1 after an internal error
