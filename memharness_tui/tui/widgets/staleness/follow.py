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

from memharness_tui.staleness.watch import HeadSource

__all__ = ["Follower", "open_probes"]


def open_probes(repos: Sequence[str]) -> tuple[list[HeadSource], list[str]]:
    """A HEAD probe per repo that opens, and one line per repo that does not."""
    from memharness_tui.staleness.git import HeadProbe, RepoError

    probes: list[HeadSource] = []
    errors: list[str] = []
    for r in repos:
        try:
            probes.append(HeadProbe(r))
        except RepoError as exc:
            errors.append(str(exc))
    return probes, errors


class Follower:
    """Decides when HEAD changes have settled (poll :meth:`due` as often as you like)."""

    def __init__(self, sources: Sequence[HeadSource], settle: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.sources = list(sources)
        self.settle = settle
        self.clock = clock
        self.reported = [s.read() for s in self.sources]
        self.seen = list(self.reported)
        self.moved_at: float | None = None

    def due(self) -> list[tuple[str, str]] | None:
        """The (new HEAD, its subject) per repo that moved, once settled; else None."""
        now = self.clock()
        current = [s.read() for s in self.sources]
        if current != self.seen:
            self.seen = current
            self.moved_at = now
            if self.settle > 0:
                return None
        if self.moved_at is None or now - self.moved_at < self.settle:
            return None
        self.moved_at = None
        if current == self.reported:
            return None  # moved away and back: nothing new
        changes = [(sha, src.subject(sha))
                   for src, sha, before in zip(self.sources, current, self.reported, strict=True)
                   if sha is not None and sha != before]
        self.reported = current
        return changes or None
