"""Passes that run themselves: watch repos' HEADs, run a pass once HEAD settles.

The loop only polls (reading HEAD is a couple of small file reads) and takes
its clock, sleep and output as arguments, so tests drive it without waiting on
the wall clock. A HEAD that keeps moving (a rebase replaying commits) restarts
the settle timer; one pass runs per settled change.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Protocol

from .pins import short_sha
from .text import plain

__all__ = ["HeadSource", "StopWatching", "change_line", "watch"]


class StopWatching(Exception):
    """Raised by a pass that can never succeed again (the database is gone): the watch ends
    with this error instead of printing it and going on."""


class HeadSource(Protocol):
    """One repo's HEAD (``git_head.HeadProbe`` is the real one)."""

    def read(self) -> str | None: ...

    def subject(self, sha: str) -> str: ...


class SettledHeads:
    """The rule both ``watch`` and the app's follow mode use: a HEAD that moves restarts the
    settle timer; ``settle`` s after the last move, the HEADs that differ from the last ones
    reported are due (once). Poll :meth:`due` as often as you like."""

    def __init__(self, sources: Sequence[HeadSource], settle: float, *,
                 due_on_move: bool = False) -> None:
        self.sources = list(sources)
        self.settle = settle
        #: a move is due at the poll that sees it when nothing needs to settle (follow mode
        #: with ``settle`` 0); ``watch`` always lets one poll pass first
        self.due_on_move = due_on_move
        self.reported = [s.read() for s in self.sources]
        self.seen = list(self.reported)
        self.moved_at: float | None = None

    def due(self, now: float) -> list[tuple[str, str]] | None:
        """The (new HEAD, its subject) per repo that moved, once settled ([] when the only
        change is a HEAD gone); None while nothing is due."""
        current = [s.read() for s in self.sources]
        if current != self.seen:
            self.seen = current
            self.moved_at = now
            if not self.due_on_move:
                return None
        if self.moved_at is None or now - self.moved_at < self.settle:
            return None
        self.moved_at = None
        if current == self.reported:
            return None  # moved away and back (a checkout and return): nothing new
        changes = [
            (sha, src.subject(sha))
            for src, sha, before in zip(self.sources, current, self.reported, strict=True)
            if sha is not None and sha != before
        ]
        self.reported = current
        return changes


def change_line(changes: Sequence[tuple[str, str]], counts: str) -> str:
    """``after a1b2c3d 'split auth module': 3 stale, 1 moved``."""
    heads = ", ".join(f"{short_sha(sha)} '{plain(subject)}'" if subject else short_sha(sha)
                      for sha, subject in changes)
    return f"after {heads}: {counts}"


def watch(
    sources: Sequence[HeadSource],
    run_pass: Callable[[], str],
    out: Callable[[str], None],
    *,
    poll: float = 1.0,
    settle: float = 3.0,
    clock: Callable[[], float] | None = None,
    sleep: Callable[[float], None] | None = None,
    max_polls: int | None = None,
) -> int:
    """Poll HEADs every ``poll`` s; ``settle`` s after the last move, run a pass and print.

    ``run_pass`` returns the counts part of the line (``3 stale, 1 moved``); an
    exception from it is printed as one line and watching goes on (:class:`StopWatching`
    ends the watch: it propagates). Returns the
    number of passes run (when ``max_polls`` ends the loop; Ctrl+C propagates).
    """
    clock = clock or time.monotonic  # looked up at call time (tests replace them)
    sleep = sleep or time.sleep
    heads = SettledHeads(sources, settle)
    passes = 0
    polls = 0
    while max_polls is None or polls < max_polls:
        sleep(poll)
        polls += 1
        changes = heads.due(clock())
        if changes is None:
            continue
        try:
            counts = run_pass()
        except StopWatching:
            raise
        except Exception as e:  # the watch goes on; the next HEAD change retries
            counts = f"pass failed: {' '.join(str(e).split()) or type(e).__name__}"
        passes += 1
        if changes:
            out(change_line(changes, counts))
    return passes
