"""The staleness dashboard: run a pass live, see what drifted and why, and fix it.

Top: the repos, the check-only toggle, live counters, a progress bar with the real total,
rate and elapsed time. Middle: the flagged facts (stale / unresolved, filterable by verdict,
subject and repo) with pin, reason and drift magnitude (computed lazily for the rows on
screen, in a worker). Bottom: the streaming log of verdicts.

A pass runs in a thread worker (``StalenessPass.iter_batches``, its own Store and git);
progress reaches the UI as :class:`PassProgressed` messages that merge in bursts, while the
batch verdicts travel through a locked buffer so a merged message never loses any. Tests
drive a pass step by step on the UI thread (``start_pass(threaded=False)`` + ``step_pass()``)
through the same code path.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import DataTable, Input, ProgressBar, RichLog, Static
from textual.widgets.data_table import CellDoesNotExist, RowDoesNotExist
from textual.worker import get_current_worker

from memharness_tui.tui.messages import OpenFact, StoreChanged
from memharness_tui.tui.render import believed_at, cell, clean, freshness_badge, safe, theme_color
from memharness_tui.tui.repos import display_path
from memharness_tui.tui.services.git import GitView, Judged, judge_facts
from memharness_tui.tui.state import StalenessOptions
from memharness_tui.tui.widgets.base import WorkerErrorsToApp

if TYPE_CHECKING:
    from memharness_tui.staleness.git import Drift
    from memharness_tui.staleness.runner import PassProgress, StalenessPass
    from memharness_tui.staleness.verdicts import Verdict
    from memharness_tui.tui.app import MemharnessApp

FLAGGED_LIMIT = 2000  # flagged rows read from the store
FLAGGED_SHOWN = 300  # rows put in the table (a DataTable measures every cell)
LOG_LINES = 2000
LOG_DETAIL = 24  # a drain this small is logged one line per verdict
LOG_SAMPLE = 5  # from a bigger drain: this many flagged lines, then a tally
PASS_YIELD = 0.002  # seconds the pass thread sleeps after each batch (keeps keys snappy)
UI_INTERVAL = 1 / 30  # the pass thread posts progress at most this often (plus first and last)
_FALLBACK = {"success": "green", "error": "red", "warning": "yellow"}
VERDICT_FILTERS = (None, "stale", "unresolved")
FLAGGED_COLUMNS = (("mark", " "), ("id", "ID"), ("verdict", "Verdict"), ("fact", "Fact"),
                   ("reason", "Reason"), ("drift", "Drift"), ("pin", "Pin"),
                   ("subject", "Subject"), ("repo", "Repo"))
WRITE_ACTIONS = {"bulk_still_true", "bulk_downgrade", "retract", "new_fact"}
NARROW = 110  # below this width, fact and reason cells are cut shorter


def options_for(app: Any) -> StalenessOptions:
    opts = getattr(app, "staleness_options", None)
    return opts if isinstance(opts, StalenessOptions) else StalenessOptions()


class PassProgressed(Message):
    """A pass event, posted from the pass's thread. A newer one may replace a pending one."""

    bubble = False

    def __init__(self, run: int, event: PassProgress) -> None:
        super().__init__()
        self.run = run
        self.event = event

    def can_replace(self, message: Message) -> bool:
        # merge bursts: a newer progress event of the same run supersedes a pending one
        # (the verdicts are buffered separately, so none are lost); never drop the last
        return (isinstance(message, PassProgressed) and message.run == self.run
                and not self.event.done and self.event.checked > 0)


class PassFailed(Message):
    """The pass could not run (unusable repo or database); nothing was written."""

    bubble = False

    def __init__(self, run: int, error: str) -> None:
        super().__init__()
        self.run = run
        self.error = error


@dataclass
class RowInfo:
    """What git says about a flagged row now (reason, repo), and its drift once computed."""

    judged: Judged | None = None
    drift: Drift | None = None
    drift_done: bool = False


@dataclass
class PassState:
    run: int
    spass: StalenessPass
    started: float
    check_only: bool
    buffer: list[Verdict] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    last: PassProgress | None = None
    elapsed: float = 0.0
    done: bool = False
    error: str | None = None
    stepper: Iterator[PassProgress] | None = None


class StalenessDashboard(WorkerErrorsToApp, Vertical):
    BINDINGS = [
        Binding("s", "start", "Start pass", id="staleness.start",
                tooltip="Start a staleness pass against the repos (live counts and log)"),
        Binding("c", "cancel_pass", "Cancel pass", id="staleness.cancel",
                tooltip="Cancel the running pass after its current batch"),
        Binding("k", "toggle_check_only", "Check-only", id="staleness.check_only",
                tooltip="Check-only: passes compute verdicts but write nothing"),
        Binding("g", "repos", "Repos", id="staleness.repos",
                tooltip="Repos a pass checks: add or remove (remembered)"),
        Binding("e", "revise", "Revise", id="staleness.revise",
                tooltip="Revise the highlighted fact (also Enter): pin, diff, four fixes"),
        Binding("space", "mark", "Mark", id="staleness.mark",
                tooltip="Mark / unmark the highlighted fact for bulk triage"),
        Binding("a", "mark_all", "Mark all shown", show=False, id="staleness.mark_all",
                tooltip="Mark every fact the filters show (again: unmark them)"),
        Binding("y", "bulk_still_true", "Still true", show=False, id="staleness.still_true",
                tooltip="Still true at HEAD: re-pin the marked (or highlighted) facts"),
        Binding("w", "bulk_downgrade", "Downgrade", show=False, id="staleness.downgrade",
                tooltip="Downgrade the marked (or highlighted) facts: confidence × factor"),
        Binding("delete", "retract", "Retract", show=False, id="staleness.retract",
                tooltip="Retract the highlighted fact (asks first; r is Reload here)"),
        Binding("n", "new_fact", "New fact", id="staleness.new",
                tooltip="New fact"),
        Binding("i", "open_detail", "Detail", show=False, id="staleness.detail",
                tooltip="Open the highlighted fact's detail and chain"),
        Binding("v", "cycle_verdict", "Verdict filter", show=False, id="staleness.verdict",
                tooltip="Filter by verdict: all → stale → unresolved"),
        Binding("o", "cycle_repo", "Repo filter", show=False, id="staleness.repo",
                tooltip="Filter by repo (with several repos)"),
        Binding("f", "focus_filter", "Subject filter", show=False, id="staleness.filter",
                tooltip="Filter by subject (type; Enter or Esc back to the table)"),
        Binding("escape", "leave_filter", "To table", show=False, id="staleness.leave_filter"),
    ]
    DEFAULT_CSS = """
    StalenessDashboard { height: 1fr; }
    #dash-repos, #dash-counters, #dash-filters-label { height: 1; padding: 0 1; }
    #dash-progress-row { height: 1; padding: 0 1; }
    #dash-progress { width: 3fr; }
    #dash-progress Bar { width: 1fr; }
    #dash-rate { width: 2fr; padding-left: 2; color: $foreground-muted; }
    #dash-filters { height: 1; padding: 0 1; }
    #dash-filters-label { width: auto; padding: 0; }
    #flagged-filter { width: 1fr; margin-left: 1; }
    #flagged-table { height: 1fr; }
    #dash-log {
        height: 30%; min-height: 4; max-height: 14;
        border-top: solid $primary 40%; padding: 0 1;
        background: $surface;
    }
    """

    as_of: reactive[str | None] = reactive(None, init=False)
    store_revision: reactive[int] = reactive(0, init=False)
    readonly: reactive[bool] = reactive(False, init=False)
    repos: reactive[tuple[str, ...]] = reactive((), init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.check_only = False
        self.state: PassState | None = None
        self._runs = 0
        self.flagged: list[Any] = []
        self.flagged_total = 0
        self._filtered_load = False
        self.shown: list[Any] = []
        self.rows: dict[int, RowInfo] = {}
        self.marked: set[int] = set()
        self.verdict_filter: str | None = None
        self.repo_filter: str | None = None
        self.progress_seen: list[tuple[int, int]] = []  # (checked, total) as shown, in order
        self.last_summary: str | None = None
        self.last_error: str | None = None
        self._drift_timer: Timer | None = None
        self._loaded = False
        self._needs_load = False
        self.last_bulk: Any = None

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    @property
    def options(self) -> StalenessOptions:
        return options_for(self.app)

    @property
    def narrow(self) -> bool:
        return 0 < self.size.width < NARROW

    def on_resize(self) -> None:
        narrow = self.narrow
        if narrow != getattr(self, "_was_narrow", None):
            self._was_narrow = narrow
            if self._loaded:
                self._fill()
                return
        self._schedule_drift()

    @property
    def running(self) -> bool:
        return self.state is not None and not self.state.done

    # ----- layout -------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="dash-repos")
        yield Static(id="dash-counters")
        with Horizontal(id="dash-progress-row"):
            yield ProgressBar(total=1, show_eta=False, id="dash-progress")
            yield Static(id="dash-rate")
        with Horizontal(id="dash-filters"):
            yield Static(id="dash-filters-label")
            yield Input(placeholder="subject filter (f)", id="flagged-filter", compact=True)
        yield DataTable(id="flagged-table", cursor_type="row", zebra_stripes=True)
        yield RichLog(id="dash-log", max_lines=LOG_LINES, wrap=False, markup=False,
                      auto_scroll=True)

    def on_mount(self) -> None:
        table = self.query_one("#flagged-table", DataTable)
        self._add_columns(table)
        self.watch(table, "scroll_y", self._scrolled, init=False)
        self._show_repos()
        self._show_idle()
        self.log_line(Text("s start a pass · Enter revise · Space mark, then y still true / "
                           "w downgrade · ? all keys", style="dim"))
        self.reload()

    # ----- state from above --------------------------------------------------------------
    def watch_repos(self) -> None:
        self._show_repos()
        self.reload()

    def watch_readonly(self) -> None:
        self._show_repos()

    def watch_as_of(self) -> None:
        if self._loaded:
            self._fill()

    def watch_store_revision(self) -> None:
        if not self.running:  # a pass reloads once at its end
            self.invalidate()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in WRITE_ACTIONS and self.readonly:
            return None  # shown disabled in the footer
        return True

    @property
    def pass_reasons(self) -> dict[int, str]:
        """Why each fact got its verdict in this session (kept on the app's session)."""
        return self.mapp.session.reasons

    # ----- small displays -----------------------------------------------------------------
    def short(self, repo: str) -> str:
        return display_path(repo, self.options.cwd)

    def _show_repos(self) -> None:
        t = Text()
        t.append("Repos ", style="bold")
        if self.repos:
            for i, r in enumerate(self.repos):
                if i:
                    t.append(", ")
                t.append_text(safe(self.short(r), single_line=True, max_len=50))
        else:
            t.append("none — press g to add one", style=theme_color(self.app, "warning", "yellow"))
        t.append("  ·  check-only ", style="dim")
        t.append("on" if self.check_only else "off", style="bold" if self.check_only else "dim")
        t.append(" (k)", style="dim")
        if self.readonly:
            t.append("  ·  read-only store: passes only check", style="bold")
        self.query_one("#dash-repos", Static).update(t)

    def _show_idle(self) -> None:
        t = Text("No pass run yet in this session.  s: start a pass", style="dim")
        self.query_one("#dash-counters", Static).update(t)
        self.query_one("#dash-rate", Static).update("")

    def log_line(self, text: Text) -> None:
        self.query_one("#dash-log", RichLog).write(text)

    def counters_text(self, ev: PassProgress, *, final: bool = False) -> Text:
        ok = theme_color(self.app, "success", "green")
        bad = theme_color(self.app, "error", "red")
        warn = theme_color(self.app, "warning", "yellow")
        t = Text()
        if final:
            # exactly the headless command's line, then how long it took
            from memharness_tui.staleness.runner import summary_line

            line = summary_line(ev.checked, ev.current, ev.stale, ev.unresolved, ev.backfilled)
            t.append(line, style="bold")
            return t
        t.append("checked ")
        t.append(f"{ev.checked:,}", style="bold")
        t.append(f" of {ev.total:,}", style="dim")
        t.append(" / current ")
        t.append(f"{ev.current:,}", style=f"bold {ok}")
        t.append(" / stale ")
        t.append(f"{ev.stale:,}", style=f"bold {bad}")
        t.append(" / unresolved ")
        t.append(f"{ev.unresolved:,}", style=f"bold {warn}")
        t.append(" / backfilled ")
        t.append(f"{ev.backfilled:,}", style="bold")
        return t

    # ----- the pass -----------------------------------------------------------------------
    def action_start(self) -> None:
        if self.running:
            self.start_pass()  # says a pass is running
            return
        self._guarded_start()

    @work(exclusive=True, group="pass-guard", exit_on_error=False)
    async def _guarded_start(self) -> None:
        """Before a pass writes: if fewer than half of the pins are in the repos, ask first."""
        import asyncio

        from memharness_tui.staleness.git import RepoError
        from memharness_tui.staleness.precheck import pin_coverage
        from memharness_tui.tui.screens.confirm import ConfirmScreen

        info = self.mapp.info
        if info is None or self.check_only or self.readonly or not self.repos \
                or info.path == ":memory:":
            self.start_pass()
            return
        repos = list(self.repos)
        try:
            cov = await asyncio.to_thread(pin_coverage, info.path, repos)
        except RepoError:
            self.start_pass()  # the pass itself says what is wrong with the repo
            return
        if not cov.wrong_repo:
            self.start_pass()
            return
        sentence = cov.sentence([self.short(r) for r in repos])

        def answered(ok: bool | None) -> None:
            if ok:
                self.start_pass()
            else:
                self.log_line(Text(f"— pass not started: {clean(sentence, single_line=True)}",
                                   style="bold"))

        self.app.push_screen(ConfirmScreen(
            sentence,
            "A pass records every pin it cannot find as \"unresolved\", replacing the verdicts "
            "it has now. Check the repos (g), run check-only (k), or write anyway.",
            confirm="Write anyway", danger=True), answered)

    def start_pass(self, *, threaded: bool = True) -> bool:
        """Start a pass (in a thread worker, or step by step when ``threaded`` is False)."""
        from memharness_tui.staleness.runner import StalenessPass

        if self.running:
            self.mapp.notify("A pass is already running (c cancels it).", severity="warning",
                             timeout=3)
            return False
        info = self.mapp.info
        if info is None:
            return False
        if not self.repos:
            self._fail_now("no repo to check against: press g to add one")
            return False
        if info.path == ":memory:":
            self._fail_now("an in-memory database cannot be checked by a pass")
            return False
        check_only = self.check_only
        if self.readonly and not check_only:
            check_only = True
            self.mapp.notify("Read-only store: running check-only (nothing will be written).",
                             severity="warning", timeout=4)
        opts = self.options
        self._runs += 1
        spass = StalenessPass(info.path, list(self.repos), check_only=check_only,
                              batch_size=opts.batch_size, clock=opts.clock)
        self.state = PassState(self._runs, spass, opts.timer(), check_only)
        self.progress_seen = []
        self.last_error = None
        self.mapp.session.new_pass()
        bar = self.query_one("#dash-progress", ProgressBar)
        bar.update(total=1, progress=0)
        self.query_one("#dash-counters", Static).update(Text("starting…", style="dim"))
        self.query_one("#dash-rate", Static).update("")
        self.log_line(Text(f"— pass {self._runs} started{' (check-only)' if check_only else ''}"
                           f" against {', '.join(self.short(r) for r in self.repos)}",
                           style="bold"))
        if threaded:
            self._run_pass(self.state)
        else:
            self.state.stepper = spass.iter_batches()
        return True

    def step_pass(self) -> bool:
        """Advance a step-driven pass by one event; False when it has finished (or failed)."""
        st = self.state
        if st is None or st.stepper is None or st.done:
            return False
        try:
            event = next(st.stepper)
        except StopIteration:
            return False
        except Exception as exc:  # noqa: BLE001 - any failure ends the pass and says why
            self._failed(st, _pass_error(exc))
            return False
        with st.lock:
            st.buffer.extend(event.verdicts)
        self._apply(st, event)
        return not st.done

    @work(thread=True, exclusive=True, group="staleness", exit_on_error=False)
    def _run_pass(self, st: PassState) -> None:
        worker = get_current_worker()
        throttle = self.options.throttle
        last_post = 0.0
        try:
            for event in st.spass.iter_batches():
                with st.lock:
                    st.buffer.extend(event.verdicts)
                now = time.monotonic()
                if event.done or event.checked == 0 or throttle is not None \
                        or now - last_post >= UI_INTERVAL:
                    last_post = now
                    self.post_message(PassProgressed(st.run, event))
                if worker.is_cancelled:
                    st.spass.cancel()
                if throttle is not None:
                    throttle(event)
                else:
                    time.sleep(PASS_YIELD)  # hand the GIL to the UI between batches
        except Exception as exc:  # noqa: BLE001 - any failure ends the pass and says why
            self.post_message(PassFailed(st.run, _pass_error(exc)))

    def on_pass_progressed(self, message: PassProgressed) -> None:
        st = self.state
        if st is not None and message.run == st.run:
            self._apply(st, message.event)

    def on_pass_failed(self, message: PassFailed) -> None:
        st = self.state
        if st is not None and message.run == st.run:
            self._failed(st, message.error)

    def _apply(self, st: PassState, ev: PassProgress) -> None:
        """Show one progress event (and every verdict buffered since the last one)."""
        with st.lock:
            verdicts, st.buffer = st.buffer, []
        st.last = ev
        st.elapsed = max(0.0, self.options.timer() - st.started)
        self.mapp.session.note({v.fact_id: v.reason for v in verdicts})
        self._log_verdicts(verdicts)
        bar = self.query_one("#dash-progress", ProgressBar)
        bar.update(total=max(ev.total, 1), progress=ev.checked if ev.total else 1)
        self.progress_seen.append((ev.checked, ev.total))
        if ev.done:
            self._finished(st, ev)
            return
        self.query_one("#dash-counters", Static).update(self.counters_text(ev))
        self.query_one("#dash-rate", Static).update(self._rate_text(st, ev))

    def _rate_text(self, st: PassState, ev: PassProgress) -> Text:
        t = Text()
        if st.elapsed > 0 and ev.checked:
            t.append(f"{ev.checked / st.elapsed:,.0f} facts/s", style="bold")
            t.append("  ·  ")
        t.append(f"{st.elapsed:.2f} s")
        if st.check_only:
            t.append("  ·  check-only", style="bold")
        return t

    def _log_verdicts(self, verdicts: list[Verdict]) -> None:
        """One line per verdict for small drains; for big ones a few flagged lines and a tally
        (writing thousands of lines would cost the UI more than the pass itself)."""
        if not verdicts:
            return
        if len(verdicts) <= LOG_DETAIL:
            for v in verdicts:
                self.log_line(self._verdict_line(v))
            return
        flagged = [v for v in verdicts if v.freshness != "current"]
        for v in flagged[:LOG_SAMPLE]:
            self.log_line(self._verdict_line(v))
        tally: dict[str, int] = {}
        for v in verdicts:
            tally[v.freshness] = tally.get(v.freshness, 0) + 1
        note = Text("  … ")
        for name, colour in (("current", "success"), ("stale", "error"),
                             ("unresolved", "warning")):
            if tally.get(name):
                note.append(f"{tally[name]:,} {name}  ",
                            style=theme_color(self.app, colour, _FALLBACK[colour]))
        note.append(f"#{verdicts[0].fact_id}…#{verdicts[-1].fact_id}", style="dim")
        if len(flagged) > LOG_SAMPLE:
            note.append("  (every flagged one is in the table)", style="dim")
        self.log_line(note)

    def _verdict_line(self, v: Verdict) -> Text:
        badge = freshness_badge(self.app, v.freshness, True)
        t = Text("  ")
        t.append_text(badge)
        t.append(" " * max(1, 13 - len(badge.plain)))
        t.append(f"#{v.fact_id:<6}", style="bold")
        pin = safe(v.pin, "dim", single_line=True, max_len=40)
        pin.pad_right(max(0, 24 - len(pin.plain)))
        t.append_text(pin)
        t.append("  ")
        t.append_text(safe(v.reason, single_line=True, max_len=100))
        if v.backfilled:
            t.append("  (backfilled)", style="italic")
        if len(self.repos) > 1 and v.repo:
            t.append(f"  [{clean(self.short(v.repo), single_line=True)}]", style="dim")
        return t

    def _finished(self, st: PassState, ev: PassProgress) -> None:
        st.done = True
        summary = self.counters_text(ev, final=True)
        self.last_summary = summary.plain
        took = Text()
        took.append(f"took {st.elapsed:.2f} s", style="bold")
        if ev.checked and st.elapsed > 0:
            took.append(f"  ·  {ev.checked / st.elapsed:,.0f} facts/s")
        if ev.cancelled:
            took.append("  ·  cancelled", style=f"bold {theme_color(self.app, 'warning', 'yellow')}")
        if st.check_only:
            took.append("  ·  check-only: nothing written", style="bold")
        self.query_one("#dash-counters", Static).update(summary)
        self.query_one("#dash-rate", Static).update(took)
        line = Text(f"— pass {st.run} {'cancelled' if ev.cancelled else 'done'}: ", style="bold")
        line.append(summary.plain)
        line.append(f"  ({took.plain})", style="dim")
        self.log_line(line)
        if ev.stale and not st.check_only:
            stale_ids = [v for v in st.spass.report.stale_ids][:50]
            self.log_line(Text("  stale ids: " + ", ".join(f"#{i}" for i in stale_ids)
                               + (" …" if ev.stale > len(stale_ids) else ""), style="dim"))
        if not st.check_only:
            self.app.post_message(StoreChanged())
        else:
            self._rejudge_rows()

    def _failed(self, st: PassState, error: str) -> None:
        st.done = True
        st.error = error
        self._fail_now(error)

    def _fail_now(self, error: str) -> None:
        self.last_error = error
        bad = theme_color(self.app, "error", "red")
        self.query_one("#dash-counters", Static).update(
            Text(f"✗ {clean(error, single_line=True)}", style=f"bold {bad}"))
        self.query_one("#dash-rate", Static).update(Text("nothing was written", style="dim"))
        self.log_line(Text(f"✗ pass failed: {clean(error, single_line=True)} — nothing was written",
                           style=f"bold {bad}"))
        self.mapp.notify(clean(error, single_line=True), title="staleness pass failed",
                         severity="error", timeout=8)

    def action_cancel_pass(self) -> None:
        st = self.state
        if st is None or st.done:
            self.mapp.notify("No pass is running.", timeout=2)
            return
        st.spass.cancel()
        self.log_line(Text("  cancelling after the current batch…", style="italic"))

    def action_toggle_check_only(self) -> None:
        self.check_only = not self.check_only
        self._show_repos()

    def action_repos(self) -> None:
        from memharness_tui.tui.screens.repos import ReposScreen

        def chosen(repos: list[str] | None) -> None:
            if repos is not None:
                self.mapp.choose_repos(repos)  # comes back down as ``repos``

        self.app.push_screen(ReposScreen(list(self.repos)), chosen)

    # ----- flagged facts ------------------------------------------------------------------
    def reload(self) -> None:
        self._needs_load = False
        self._load_flagged()

    def invalidate(self) -> None:
        """The store changed: reload now if this tab is shown, else when it is next shown."""
        parent = self.parent
        if self.is_mounted and parent is not None and parent.display:
            self.reload()
        else:
            self._needs_load = True

    def on_show(self) -> None:
        if self._needs_load:
            self.reload()
        else:
            self._schedule_drift()

    @work(exclusive=True, group="flagged", exit_on_error=False)
    async def _load_flagged(self) -> None:
        page = await self.mapp.service.flagged(self.verdict_filter, FLAGGED_LIMIT)
        facts, total = page.facts, page.total
        judged = await judge_facts(list(self.repos), facts)
        self.mapp.session.note_seen({fid: j.reason for fid, j in judged.items() if j is not None})
        old = self.rows
        self.rows = {}
        for f in facts:
            info = RowInfo(judged.get(f.id))
            prev = old.get(f.id)
            if prev is not None and prev.drift_done and _same_place(prev.judged, info.judged):
                info.drift, info.drift_done = prev.drift, True
            self.rows[f.id] = info
        self.flagged = facts
        self.flagged_total = total
        self.marked &= {f.id for f in facts}
        self._fill()
        self._loaded = True

    def _rejudge_rows(self) -> None:
        self.reload()

    def filtered(self) -> list[Any]:
        needle = self.query_one("#flagged-filter", Input).value.strip().casefold()
        out = []
        for f in self.flagged:
            if self.as_of and not believed_at(f, self.as_of):
                continue  # learned (or no longer believed) after the time-travel date
            if self.verdict_filter and f.freshness != self.verdict_filter:
                continue
            if needle and needle not in f.subject.casefold():
                continue
            if self.repo_filter:
                j = self.rows.get(f.id, RowInfo()).judged
                if j is None or j.repo != self.repo_filter:
                    continue
            out.append(f)
        return out

    @staticmethod
    def _add_columns(table: DataTable[Any]) -> None:
        for key, label in FLAGGED_COLUMNS:
            table.add_column(label, key=key)

    def _fill(self) -> None:
        table = self.query_one("#flagged-table", DataTable)
        keep = table.cursor_row
        self.shown = self.filtered()[:FLAGGED_SHOWN]
        table.clear(columns=True)  # columns too: their widths shrink back to the content
        self._add_columns(table)
        for f in self.shown:
            table.add_row(*self._cells(f), key=str(f.id))
        if self.shown:
            table.move_cursor(row=min(keep, len(self.shown) - 1), animate=False)
        self._show_filters()
        self._schedule_drift()

    def _cells(self, f: Any) -> list[Text]:
        info = self.rows.get(f.id, RowInfo())
        mark = Text("●", style="bold") if f.id in self.marked else Text(" ")
        pin = (f"{f.source_path}@" if f.source_path else "") + (f.source_commit or "")[:7]
        return [
            mark,
            Text(str(f.id), style="dim"),
            freshness_badge(self.app, f.freshness, True),
            cell(f.fact, max_len=30 if self.narrow else 46),
            self._reason_cell(f, info),
            self._drift_cell(info),
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
        return cell(reason, max_len=38 if self.narrow else 52)

    @staticmethod
    def _drift_cell(info: RowInfo) -> Text:
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

    def _show_filters(self) -> None:
        t = Text()
        n_all, n = len(self.flagged), len(self.shown)
        t.append(f"{max(n_all, self.flagged_total):,} flagged", style="bold")
        if self.flagged_total > n_all:
            t.append(f" (first {n_all:,} loaded, {n:,} shown)")
        elif n != n_all:
            t.append(f" ({n:,} shown)")
        t.append("  ·  verdict ", style="dim")
        t.append(self.verdict_filter or "all", style="bold" if self.verdict_filter else "")
        t.append(" (v)", style="dim")
        if len(self.repos) > 1 or self.repo_filter:
            t.append("  ·  repo ", style="dim")
            t.append(self.short(self.repo_filter) if self.repo_filter else "all",
                     style="bold" if self.repo_filter else "")
            t.append(" (o)", style="dim")
        if self.marked:
            t.append(f"  ·  {len(self.marked)} marked", style="bold reverse")
        t.append("  ·  ", style="dim")
        self.query_one("#dash-filters-label", Static).update(t)

    @on(Input.Changed, "#flagged-filter")
    def _filter_typed(self) -> None:
        if self._loaded:
            self._fill()

    @on(Input.Submitted, "#flagged-filter")
    def _filter_done(self) -> None:
        self.query_one("#flagged-table", DataTable).focus()

    def action_focus_filter(self) -> None:
        self.query_one("#flagged-filter", Input).focus()

    def action_leave_filter(self) -> None:
        self.query_one("#flagged-table", DataTable).focus()

    def action_cycle_verdict(self) -> None:
        i = VERDICT_FILTERS.index(self.verdict_filter)
        self.verdict_filter = VERDICT_FILTERS[(i + 1) % len(VERDICT_FILTERS)]
        if self.flagged_total > len(self.flagged) or self._filtered_load:
            self._filtered_load = self.verdict_filter is not None
            self.reload()  # the store filters, so a big list is not cut before the filter
        else:
            self._fill()

    def action_cycle_repo(self) -> None:
        known = sorted({i.judged.repo for i in self.rows.values() if i.judged is not None})
        choices: list[str | None] = [None, *known]
        i = choices.index(self.repo_filter) if self.repo_filter in choices else 0
        self.repo_filter = choices[(i + 1) % len(choices)]
        self._fill()

    # ----- drift, lazily for the rows on screen --------------------------------------------
    def _scrolled(self, _value: float) -> None:
        self._schedule_drift()

    def _schedule_drift(self) -> None:
        if self._drift_timer is not None:
            self._drift_timer.stop()
        delay = self.options.drift_delay
        if delay <= 0:
            self.compute_visible_drift()
        else:
            self._drift_timer = self.set_timer(delay, self.compute_visible_drift)

    def visible_ids(self) -> list[int]:
        table = self.query_one("#flagged-table", DataTable)
        if table.size.height <= 1:  # not laid out (a hidden tab): nothing is on screen yet
            return []
        first = int(table.scroll_y)
        height = table.size.height - 1  # minus the header row
        return [f.id for f in self.shown[first:first + height + 1]]

    def compute_visible_drift(self) -> None:
        wanted = []
        for fid in self.visible_ids():
            info = self.rows.get(fid)
            if info is not None and not info.drift_done and info.judged is not None \
                    and info.judged.resolved and info.judged.freshness != "unresolved":
                wanted.append(fid)
        if wanted:
            facts = {f.id: f for f in self.shown}
            self._drift_worker([(fid, facts[fid].source_commit, facts[fid].source_path,
                                 self.rows[fid].judged.repo) for fid in wanted],  # type: ignore[union-attr]
                               list(self.repos))

    @work(thread=True, exclusive=True, group="drift", exit_on_error=False)
    def _drift_worker(self, items: list[tuple[int, str, str | None, str]],
                      repos: list[str]) -> None:
        worker = get_current_worker()
        view = GitView(repos)
        for fid, commit, path, repo in items:
            if worker.is_cancelled:
                return
            drift = view.drift(commit, path, repo)
            self.app.call_from_thread(self._set_drift, fid, drift)

    def _set_drift(self, fid: int, drift: Drift | None) -> None:
        info = self.rows.get(fid)
        if info is None:
            return
        info.drift, info.drift_done = drift, True
        table = self.query_one("#flagged-table", DataTable)
        with contextlib.suppress(CellDoesNotExist, RowDoesNotExist):  # the row left meanwhile
            table.update_cell(str(fid), "drift", self._drift_cell(info), update_width=True)

    # ----- selection and actions ----------------------------------------------------------
    def current_fact(self) -> Any | None:
        table = self.query_one("#flagged-table", DataTable)
        if not self.shown or table.cursor_row is None or table.cursor_row >= len(self.shown):
            return None
        return self.shown[table.cursor_row]

    def action_mark(self) -> None:
        f = self.current_fact()
        if f is None:
            return
        self.marked ^= {f.id}
        table = self.query_one("#flagged-table", DataTable)
        table.update_cell(str(f.id), "mark",
                          Text("●", style="bold") if f.id in self.marked else Text(" "))
        if table.cursor_row < len(self.shown) - 1:
            table.move_cursor(row=table.cursor_row + 1, animate=False)
        self._show_filters()

    def action_mark_all(self) -> None:
        ids = {f.id for f in self.shown}
        if ids and ids <= self.marked:
            self.marked -= ids
        else:
            self.marked |= ids
        self._fill()

    def targets(self) -> list[Any]:
        """The marked facts, or the highlighted one."""
        if self.marked:
            return [f for f in self.flagged if f.id in self.marked]
        f = self.current_fact()
        return [f] if f is not None else []

    def action_revise(self) -> None:
        from memharness_tui.tui.editing import revise

        f = self.current_fact()
        if f is not None:
            revise(self.mapp, f, list(self.repos), factor=self.options.factor)

    def action_open_detail(self) -> None:
        f = self.current_fact()
        if f is not None:
            self.post_message(OpenFact(f.id))

    def action_new_fact(self) -> None:
        from memharness_tui.tui.editing import new_fact

        f = self.current_fact()
        new_fact(self.mapp, subject=f.subject if f is not None else "", repos=list(self.repos))

    def action_retract(self) -> None:
        from memharness_tui.tui.editing import retract

        f = self.current_fact()
        if f is not None:
            retract(self.mapp, f.id, f.fact)

    def action_bulk_still_true(self) -> None:
        self._bulk("still_true")

    def action_bulk_downgrade(self) -> None:
        self._bulk("downgrade")

    def _bulk(self, kind: str) -> None:
        from memharness_tui.tui.screens.confirm import ConfirmScreen

        facts = self.targets()
        if not facts:
            return
        n = len(facts)
        factor = self.options.factor
        ids = " ".join(f"#{f.id}" for f in facts[:20]) + (" …" if n > 20 else "")
        if kind == "still_true":
            title = f"Still true at HEAD: {n} fact{'s' if n != 1 else ''}?"
            detail = (f"{ids}\n\nEach is revised with the same text, pinned at HEAD (same path), "
                      "and recorded as current. Facts whose path is gone at HEAD are skipped.")
            label = "Still true"
        else:
            title = f"Downgrade {n} fact{'s' if n != 1 else ''}?"
            detail = (f"{ids}\n\nEach is revised with the same text and pin, confidence × "
                      f"{factor:g}; the new row keeps its verdict.")
            label = "Downgrade"

        async def answered(ok: bool | None) -> None:
            if not ok:
                return
            try:
                if kind == "still_true":
                    result = await self.mapp.service.still_true(facts, list(self.repos))
                    verb = "Re-verified at HEAD:"
                else:
                    result = await self.mapp.service.downgrade(facts, factor)
                    verb = "Downgraded"
            except Exception as exc:  # noqa: BLE001 - the app's one error handler shows it
                self.mapp.report_error(exc)
                return
            self.marked -= {f.id for f in facts}
            self.last_bulk = result
            self.mapp.notify(result.summary(verb), title="triage",
                             severity="information" if result.changed else "warning", timeout=6)
            self.log_line(Text(f"— triage: {result.summary(verb)}", style="bold"))

        self.app.push_screen(ConfirmScreen(title, detail, confirm=label), answered)

    @on(DataTable.RowSelected, "#flagged-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_revise()


def _same_place(a: Judged | None, b: Judged | None) -> bool:
    return a is not None and b is not None and a.repo == b.repo and a.head == b.head


def _message(exc: BaseException) -> str:
    text = getattr(exc, "message", None) or str(exc).strip()
    return text or type(exc).__name__


def _pass_error(exc: BaseException) -> str:
    """One line saying why a pass stopped (a locked database gets its own sentence)."""
    text = _message(exc)
    if "database is locked" in text or "database is busy" in text:
        return ("the database is busy: another process holds a write lock; the pass stopped "
                "(batches already written stay written) — try again")
    return text

