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
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work

from memharness_tui.tui.render import clean
from memharness_tui.tui.services.git import open_probes
from memharness_tui.tui.widgets.staleness.repo_bar import RepoBar

if TYPE_CHECKING:
    from textual.timer import Timer

    from memharness_tui.tui.services.git import HeadSource
    from memharness_tui.tui.widgets.staleness.controller import PassState

__all__ = ["Follower", "FollowsHeads", "open_probes"]


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


class FollowsHeads:
    """Follow mode for the staleness dashboard (mixed in): ``l`` toggles it; a timer polls
    the :class:`Follower`; a due change starts a pass, and when that pass ends its stale facts
    are triaged in a worker and one line says what changed (a toast and the log)."""

    follower: Follower | None = None
    _follow_timer: Timer | None = None
    _follow_run: tuple[int, list[tuple[str, str]]] | None = None
    follow_lines: list[str]
    repos: Any
    options: Any
    mapp: Any
    app: Any

    def follow_ended(self, st: PassState) -> None:
        """Called when a pass ends: a pass follow mode started gets its summary line."""
        if self._follow_run is not None and self._follow_run[0] == st.run:
            changes = self._follow_run[1]
            self._follow_run = None
            self._follow_report(st, changes)

    @property
    def following(self) -> bool:
        return self.follower is not None

    def action_toggle_follow(self) -> None:
        if self.following:
            self._stop_following()
            self.log_line(Text("— follow off", style="bold"))
            return
        self._start_following()

    def _start_following(self) -> None:
        probes, errors = open_probes(list(self.repos))
        for e in errors:
            self.log_line(Text(f"  follow: {clean(e, single_line=True)}", style="italic"))
        if not probes:
            self.mapp.notify("Follow needs a repo to watch: press g to add one.",
                             severity="warning", timeout=4)
            return
        opts = self.options
        self.follower = Follower(probes, opts.follow_settle)
        self._follow_timer = self.set_interval(opts.follow_poll, self._follow_tick)
        heads = ", ".join((p.read() or "no HEAD")[:7] for p in probes)
        self.log_line(Text(f"— following {len(probes)} repo{'s' if len(probes) != 1 else ''} "
                           f"(HEAD {heads}): a pass runs {opts.follow_settle:g} s after HEAD "
                           "settles (l stops)", style="bold"))
        self.query_one(RepoBar).following = True

    def _stop_following(self) -> None:
        if self._follow_timer is not None:
            self._follow_timer.stop()
        self._follow_timer = None
        self.follower = None
        self.query_one(RepoBar).following = False

    def _follow_tick(self) -> None:
        if self.follower is None:
            return
        if self.running:  # a pass is on: look again once it is over
            return
        changes = self.follower.due()
        if not changes:
            return
        if self.begin_pass() and self.state is not None:
            self._follow_run = (self.state.run, changes)

    @work(thread=True, exclusive=True, group="follow-report", exit_on_error=False)
    def _follow_report(self, st: PassState, changes: list[tuple[str, str]]) -> None:
        """Triage the pass's stale facts (this thread's own Triager) and say what changed."""
        from memharness_tui.tui.services.passes import change_line, counts_line, triage_report

        report = st.spass.report
        info = self.mapp.info
        items = triage_report(report, self.mapp.service.own_connection(), list(self.repos)) \
            if info is not None and not st.check_only else []
        line = change_line(changes, counts_line(report, items))
        self.app.call_from_thread(self._followed, line)

    def _followed(self, line: str) -> None:
        self.follow_lines.append(line)
        self.mapp.notify(line, title="follow", timeout=8)  # the app's door: literal text
        self.log_line(Text(f"— {clean(line, single_line=True)}", style="bold"))

    def watch_repos(self) -> None:
        if self.following:  # watch the new list
            self._stop_following()
            self._start_following()
