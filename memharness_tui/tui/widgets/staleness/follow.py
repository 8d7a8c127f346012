"""Follow mode: watch the repos' HEADs from the dashboard and say when a pass is due.

The same rule as ``staleness --watch`` (:mod:`memharness_tui.staleness.watch`): a HEAD that
moves restarts a settle timer; ``settle`` seconds after the last move, if any HEAD differs from
the last one reported, a pass is due. :class:`Follower` only decides; the dashboard polls it
on a timer and runs the pass. Probes read HEAD with a couple of small file reads, on the
thread that polls (the UI's), which is the only thread that uses them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from rich.text import Text
from textual.message import Message

from memharness_tui.tui.render import clean
from memharness_tui.tui.services.git import open_probes
from memharness_tui.tui.widgets.staleness.repo_bar import RepoBar

if TYPE_CHECKING:
    from textual.timer import Timer

    from memharness_tui.tui.services.git import HeadSource
    from memharness_tui.tui.widgets.dashboard import StalenessDashboard
    from memharness_tui.tui.widgets.staleness.controller import PassState

__all__ = ["FollowMode", "Followed", "Follower", "open_probes"]


class Followed(Message):
    """Follow mode's line for a pass it started (from the report's thread worker)."""

    bubble = False

    def __init__(self, line: str) -> None:
        super().__init__()
        self.line = line


class Follower:
    """Decides when HEAD changes have settled (poll :meth:`due` as often as you like): the
    rule of ``staleness --watch`` (:class:`~memharness_tui.staleness.watch.SettledHeads`)."""

    def __init__(self, sources: Sequence[HeadSource], settle: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        from memharness_tui.tui.services.passes import SettledHeads

        self.heads = SettledHeads(sources, settle, due_on_move=settle <= 0)
        self.clock = clock

    @property
    def sources(self) -> list[HeadSource]:
        return self.heads.sources

    def due(self) -> list[tuple[str, str]] | None:
        """The (new HEAD, its subject) per repo that moved, once settled; else None."""
        return self.heads.due(self.clock()) or None


class FollowMode:
    """Follow mode for the staleness dashboard (held as ``dash.follow``): ``l`` toggles it; a
    timer polls the :class:`Follower`; a due change starts a pass, and when that pass ends its
    stale facts are triaged in a worker and one line says what changed (a toast and the log)."""

    def __init__(self, dash: StalenessDashboard) -> None:
        self._dash = dash
        self.follower: Follower | None = None
        self._timer: Timer | None = None
        self._run: tuple[int, list[tuple[str, str]]] | None = None

    def ended(self, st: PassState) -> None:
        """Called when a pass ends: a pass follow mode started gets its summary line."""
        if self._run is not None and self._run[0] == st.run:
            changes = self._run[1]
            self._run = None
            self._dash.run_worker(partial(self._report, st, changes), thread=True,
                                  exclusive=True, group="follow-report", exit_on_error=False)

    @property
    def following(self) -> bool:
        return self.follower is not None

    def toggle(self) -> None:
        if self.following:
            self._stop()
            self._dash.log_line(Text("— follow off", style="bold"))
            return
        self._start()

    def _start(self) -> None:
        dash = self._dash
        probes, errors = open_probes(list(dash.repos))
        for e in errors:
            dash.log_line(Text(f"  follow: {clean(e, single_line=True)}", style="italic"))
        if not probes:
            dash.mapp.notify("Follow needs a repo to watch: press g to add one.",
                             severity="warning", timeout=4)
            return
        opts = dash.options
        self.follower = Follower(probes, opts.follow_settle)
        self._timer = dash.set_interval(opts.follow_poll, self._tick)
        heads = ", ".join((p.read() or "no HEAD")[:7] for p in probes)
        dash.log_line(Text(f"— following {len(probes)} repo{'s' if len(probes) != 1 else ''} "
                           f"(HEAD {heads}): a pass runs {opts.follow_settle:g} s after HEAD "
                           "settles (l stops)", style="bold"))
        dash.query_one(RepoBar).following = True

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = None
        self.follower = None
        self._dash.query_one(RepoBar).following = False

    def _tick(self) -> None:
        dash = self._dash
        if self.follower is None:
            return
        if dash.running:  # a pass is on: look again once it is over
            return
        changes = self.follower.due()
        if not changes:
            return
        if dash.begin_pass() and dash.state is not None:
            self._run = (dash.state.run, changes)

    def _report(self, st: PassState, changes: list[tuple[str, str]]) -> None:
        """Triage the pass's stale facts (this thread's own Triager) and say what changed."""
        from memharness_tui.tui.services.passes import change_line, counts_line, triage_report

        dash = self._dash
        report = st.spass.report
        info = dash.mapp.info
        items = triage_report(report, dash.mapp.service.own_connection(), list(dash.repos)) \
            if info is not None and not st.check_only else []
        line = change_line(changes, counts_line(report, items))
        dash.post_message(Followed(line))  # the dashboard hands it to :meth:`followed`

    def followed(self, line: str) -> None:
        self._dash.mapp.notify(line, title="follow", timeout=8)  # the app's door: literal text
        self._dash.log_line(Text(f"— {clean(line, single_line=True)}", style="bold"))

    def repos_changed(self, _repos: object = None) -> None:
        if self.following:  # watch the new list
            self._stop()
            self._start()
