"""The staleness dashboard: composes the repo bar, pass counters, flagged table and verdict log,
and routes the tab's keys. The pass itself runs in :class:`PassController` (a thread worker);
its messages come back here and are shown by the small widgets."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive

from memharness_tui.tui import tcss
from memharness_tui.tui.messages import ConfirmWanted, OpenFact, ReposWanted, StoreChanged
from memharness_tui.tui.render import clean
from memharness_tui.tui.repos import display_path
from memharness_tui.tui.state import SessionNews, StalenessOptions, StalenessSession
from memharness_tui.tui.widgets.base import WorkerErrorsToApp
from memharness_tui.tui.widgets.results_table import ResultsTable
from memharness_tui.tui.widgets.staleness.controller import (
    PassController,
    PassCounted,
    PassFailed,
    PassProgressed,
    PassState,
    Prechecked,
    is_current,
)
from memharness_tui.tui.widgets.staleness.counters import PassCounters
from memharness_tui.tui.widgets.staleness.flagged import FlaggedPanel
from memharness_tui.tui.widgets.staleness.follow import Followed, FollowMode
from memharness_tui.tui.widgets.staleness.repo_bar import RepoBar
from memharness_tui.tui.widgets.staleness.triage import bulk_on_targets, reverify_elsewhere
from memharness_tui.tui.widgets.staleness.verdict_log import VerdictLog

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp
    from memharness_tui.tui.services.passes import PassProgress, WorkItem

# disabled (shown so) on a read-only store; n runs and says why (editing.py refuses it)
WRITE_ACTIONS = {"bulk_still_true", "bulk_downgrade", "bulk_elsewhere", "retract"}

__all__ = ["PassFailed", "PassProgressed", "StalenessDashboard", "StalenessOptions"]


def options_for(app: Any) -> StalenessOptions:
    opts = getattr(app, "staleness_options", None)
    return opts if isinstance(opts, StalenessOptions) else StalenessOptions()


class StalenessDashboard(WorkerErrorsToApp, Vertical):
    DEFAULT_CSS = tcss.rules(__file__)
    BINDINGS = [
        Binding("s", "start", "Start pass", id="staleness.start",
                tooltip="Start a staleness pass against the repos (live counts and log)"),
        Binding("c", "cancel_pass", "Cancel", id="staleness.cancel",
                tooltip="Cancel the running pass after its current batch"),
        Binding("k", "toggle_check_only", "Check-only", show=False, id="staleness.check_only",
                tooltip="Check-only: passes compute verdicts but write nothing"),
        Binding("g", "repos", "Repos", show=False, id="staleness.repos",
                tooltip="Repos a pass checks for this database: add or remove (remembered)"),
        Binding("e", "revise", "Revise", id="staleness.revise",
                tooltip="Revise the highlighted fact (also Enter): pin, diff, four fixes"),
        Binding("space,m", "mark", "Mark ↓", id="staleness.mark",
                tooltip="Mark / unmark the highlighted fact for bulk triage, then move down "
                        "(Space Space… marks a run of rows)"),
        Binding("y", "bulk_still_true", "Still true", show=False, id="staleness.still_true",
                tooltip="Still true at HEAD: re-pin the marked (or highlighted) facts"),
        Binding("w", "bulk_downgrade", "Downgrade", show=False, id="staleness.downgrade",
                tooltip="Downgrade the marked (or highlighted) facts: confidence × factor"),
        Binding("E", "bulk_elsewhere", "Re-verify elsewhere", show=False,
                id="staleness.elsewhere",
                tooltip="Select every matching fact whose file changed only elsewhere (no "
                        "changed line mentions it) and re-verify them all at HEAD (asks first)"),
        Binding("l", "toggle_follow", "Follow", show=False, id="staleness.follow",
                tooltip="Follow: watch the repos' HEADs and run a pass a few seconds after "
                        "each commit, checkout, pull or rebase"),
        Binding("delete", "retract", "Retract", show=False, id="staleness.retract",
                tooltip="Retract the highlighted fact (asks first; r is Reload here)"),
        Binding("n", "new_fact", "New fact", show=False, id="staleness.new",
                tooltip="New fact"),
        Binding("i", "open_detail", "Detail", show=False, id="staleness.detail",
                tooltip="Open the highlighted fact's detail and chain"),
    ]

    # State for the children (data-bound) and watchers; the dashboard itself draws nothing, so
    # a change must not repaint its whole region (every child under it) — ``k`` during a pass.
    as_of: reactive[str | None] = reactive(None, init=False, repaint=False)
    store_revision: reactive[int] = reactive(0, init=False, repaint=False)
    readonly: reactive[bool] = reactive(False, init=False, repaint=False)
    repos: reactive[tuple[str, ...]] = reactive((), init=False, repaint=False)
    check_only: reactive[bool] = reactive(False, init=False, repaint=False)
    session: reactive[StalenessSession] = reactive(StalenessSession, init=False, repaint=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.controller = PassController(self)
        self.follow = FollowMode(self)

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    @property
    def options(self) -> StalenessOptions:
        return options_for(self.app)

    @property
    def panel(self) -> FlaggedPanel:
        return self.query_one(FlaggedPanel)

    @property
    def state(self) -> PassState | None:
        return self.controller.state

    @property
    def running(self) -> bool:
        return self.controller.running

    def short(self, repo: str) -> str:
        return display_path(repo, self.options.cwd)

    # ----- layout and state from above ----------------------------------------------------
    def compose(self) -> ComposeResult:
        opts = self.options
        self.controller.timer = opts.timer
        yield RepoBar(self.short, id="dash-repos").data_bind(
            StalenessDashboard.repos, StalenessDashboard.check_only, StalenessDashboard.readonly)
        yield PassCounters(id="dash-pass")
        yield FlaggedPanel(self.short, opts.drift_delay, id="dash-flagged").data_bind(
            StalenessDashboard.repos, StalenessDashboard.as_of, StalenessDashboard.session)
        yield VerdictLog(self.short, id="dash-log")

    def on_mount(self) -> None:
        self.watch(self, "repos", self.follow.repos_changed, init=False)  # follow the new list
        self.controller.prepare_batch = self.panel.follower.prepare  # the list's work, as it comes
        self.panel.follower.on_ahead = self._pins_ahead  # the pass process reads the pins too
        self.log_line(Text("s start a pass · Enter revise · Space mark, then y still true / "
                           "w downgrade · ? all keys", style="dim"))

    def on_show(self) -> None:
        opts = self.options
        if opts.clock is None and opts.throttle is None:  # a test's pass stays in-process
            # once the list is shown: the pass process imports, the pass's rows are read
            self.panel.follower.look_ahead(then=self.controller.warm)

    def _pins_ahead(self) -> None:
        info = self.mapp.info
        if info is not None and info.path != ":memory:" and not self.readonly \
                and self.mapp.service.has_file():
            self.controller.read_ahead(self.mapp.service.own_connection())

    def on_unmount(self) -> None:
        self.controller.close()

    def watch_store_revision(self) -> None:
        # The list follows the store as the header's counts do, a pass's batches included;
        # meanwhile git judges only rows new to it (the pass's end judges them all again).
        self.panel.follower.invalidate(judge_all=not self.running)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in WRITE_ACTIONS and self.readonly:
            return None  # shown disabled in the footer
        return True

    def log_line(self, text: Text) -> None:
        self.query_one(VerdictLog).line(text)

    # ----- the pass ----------------------------------------------------------------------
    def action_start(self) -> None:
        refused = ("A pass is already running (c cancels it)." if self.running else None
                   if self.mapp.service.has_file() else "Nothing to check: this store has no "
                   "facts yet.")
        if refused is None:
            self._guarded_start()
        else:
            self.mapp.notify(refused, severity="warning" if self.running else "information")

    def _guarded_start(self) -> None:
        """Before a pass writes: if fewer than half of the pins are in the repos, ask first
        (the precheck reads them in a worker, which answers with :class:`Prechecked`)."""
        info = self.mapp.info
        if info is None or self.check_only or self.readonly or not self.repos \
                or info.path == ":memory:":
            self.begin_pass()
            return
        opts = self.options
        self.controller.precheck_worker(self.mapp.service.own_connection(), list(self.repos),
                                        opts.batch_size,
                                        self.controller.can_use_child(opts.clock, opts.throttle))

    def on_prechecked(self, message: Prechecked) -> None:
        cov = message.coverage
        if cov is None:
            self.begin_pass()  # the pass itself says what is wrong with the repo
            return
        if not cov.wrong_repo:
            # the pins just read: the pass need not read them again
            self.begin_pass(message.work, prechecked=message.prechecked)
            return
        sentence = cov.sentence([self.short(r) for r in message.repos])

        def answered(ok: bool | None) -> None:
            if ok:
                self.begin_pass()
            else:
                self.log_line(Text(f"— pass not started: {clean(sentence, single_line=True)}",
                                   style="bold"))

        self.post_message(ConfirmWanted(  # the screen opens the confirmation
            sentence,
            "A pass records every pin it cannot find as \"unresolved\", replacing the verdicts "
            "it has now. Check the repos (g), run check-only (k), or write anyway.",
            answered, confirm="Write anyway", danger=True))

    def prepare_pass(self, work: list[WorkItem] | None = None) -> PassState | None:
        """Check what a pass needs and show it starting; None (and why) when it cannot run.

        ``work``: the work list the wrong-repo precheck read just now (else the pass reads it).
        """
        from memharness_tui.tui.services.passes import StalenessPass

        info = self.mapp.info
        if info is None:
            return None
        if not self.repos:
            self._fail(None, "no repo to check against: press g to add one")
            return None
        if info.path == ":memory:":
            self._fail(None, "an in-memory database cannot be checked by a pass")
            return None
        check_only = self.check_only
        if self.readonly and not check_only:
            check_only = True
            self.mapp.notify("Read-only store: running check-only (nothing will be written).",
                             severity="warning", timeout=4)
        opts = self.options
        spass = StalenessPass(self.mapp.service.own_connection(), list(self.repos),
                              check_only=check_only,
                              batch_size=opts.batch_size, clock=opts.clock, work=work)
        st = self.controller.prepare(spass, check_only)
        self.mapp.service.passing(not check_only)  # the header counts its commits less often
        self.post_message(SessionNews(new_pass=True))  # the app replaces its session
        self.panel.from_pass.started(self.repos)
        self.panel.follower.started(not check_only, work)
        self.query_one(PassCounters).starting()
        self.log_line(Text(f"— pass {st.run} started{' (check-only)' if check_only else ''}"
                           f" against {', '.join(self.short(r) for r in self.repos)}",
                           style="bold"))
        return st

    def begin_pass(self, work: list[WorkItem] | None = None, *, prechecked: bool = False) -> bool:
        st = self.prepare_pass(work)
        if st is None:
            return False
        st.prechecked = prechecked
        self.controller.start(st, self.options.throttle)
        return True

    def on_pass_progressed(self, message: PassProgressed) -> None:
        st = self.state
        if st is not None and is_current(st, message.run):
            self.apply(st, message.event)

    def on_pass_counted(self, message: PassCounted) -> None:
        """The pass process read the header counts after the pass's last commit: the header
        shows them at once (while the log stands where they were read), and the panes hear
        of the pass's writes only now, so the header's refresh need not read every row."""
        if message.counts is not None:
            self.mapp.service.counted_elsewhere(message.counts)
        if is_current(self.state, message.run):  # not a newer pass's: it counts less often
            self.mapp.service.passing(False)  # until its own counts came
        if message.wrote:
            self.app.post_message(StoreChanged())

    def on_pass_failed(self, message: PassFailed) -> None:
        st = self.state
        if st is not None and is_current(st, message.run) and not st.done:  # ended: stays so
            self._fail(st, message.error)

    def apply(self, st: PassState, ev: PassProgress) -> None:
        """Show one progress event (and every verdict buffered since the last one)."""
        verdicts, prepared = st.take_prepared()
        st.last = ev
        self.controller.elapsed(st)
        if verdicts:
            self.post_message(SessionNews(reasons={v.fact_id: v.reason for v in verdicts}))
            self.panel.follower.batch(verdicts, prepared)  # committed: the list takes them in
        self.query_one(VerdictLog).verdicts(verdicts, len(self.repos) > 1)
        counters = self.query_one(PassCounters)
        counters.progress(st, ev)
        if ev.done:
            self._finished(st, ev)

    def _finished(self, st: PassState, ev: PassProgress) -> None:
        st.done = True
        if not st.counted:  # else once the pass process's counts came (on_pass_counted)
            self.mapp.service.passing(False)
        summary, took = self.query_one(PassCounters).finished(st, ev)
        self.query_one(VerdictLog).pass_ended(st, ev, summary, took)
        self.panel.follower.ended(reload=True)  # unless the list holds every row written
        if not st.check_only and not st.counted:  # else once its counts came (on_pass_counted)
            self.app.post_message(StoreChanged())
        self.follow.ended(st)

    def _fail(self, st: PassState | None, error: str) -> None:
        """End the pass (if one ran) and say why; the dashboard is ready for another."""
        written = False
        self.mapp.service.passing(False)
        self.panel.follower.ended(reload=False)
        if st is not None:
            st.done = True
            st.error = error
            written = bool(st.last is not None and st.last.checked and not st.check_only)
        self.query_one(PassCounters).failed(error, written)
        bad = "bold red"
        tail = "batches already written stay written" if written else "nothing was written"
        self.log_line(Text(f"✗ pass failed: {clean(error, single_line=True)} — {tail}",
                           style=bad))
        self.mapp.notify(error, title="staleness pass failed", severity="error", timeout=8)
        if written:
            self.app.post_message(StoreChanged())

    def action_cancel_pass(self) -> None:
        if not self.controller.cancel():
            self.mapp.notify("No pass is running.", timeout=2)
            return
        self.log_line(Text("  cancelling after the current batch…", style="italic"))

    def on_followed(self, message: Followed) -> None:
        self.follow.followed(message.line)

    def action_toggle_follow(self) -> None:
        self.follow.toggle()

    def action_toggle_check_only(self) -> None:
        self.check_only = not self.check_only

    def action_repos(self) -> None:
        def chosen(repos: list[str] | None) -> None:
            if repos is not None:
                self.mapp.repo_prefs.choose(repos)  # comes back down as ``repos``

        self.post_message(ReposWanted(list(self.repos), chosen))  # the screen opens the editor

    # ----- actions on the highlighted / marked facts ----------------------------------------
    def action_revise(self) -> None:
        from memharness_tui.tui.editing import revise

        f = self.panel.current_fact()
        if f is not None:
            revise(self.mapp, f, list(self.repos), factor=self.options.factor)

    def action_open_detail(self) -> None:
        f = self.panel.current_fact()
        if f is not None:
            self.post_message(OpenFact(f.id))

    def action_new_fact(self) -> None:
        from memharness_tui.tui.editing import new_fact

        f = self.panel.current_fact()
        new_fact(self.mapp, subject=f.subject if f is not None else "", repos=list(self.repos))

    def action_retract(self) -> None:
        from memharness_tui.tui.editing import retract

        f = self.panel.current_fact()
        if f is not None:
            retract(self.mapp, f.id, f.fact)

    def action_mark(self) -> None:
        self.panel.action_mark()

    def action_bulk_still_true(self) -> None:
        self._bulk("still_true")

    def action_bulk_downgrade(self) -> None:
        self._bulk("downgrade")

    def _bulk(self, kind: str) -> None:
        bulk_on_targets(self, kind)

    def action_bulk_elsewhere(self) -> None:
        reverify_elsewhere(self)

    @on(ResultsTable.RowSelected, "#flagged-table")
    def _selected(self, event: ResultsTable.RowSelected) -> None:
        event.stop()
        self.action_revise()
