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
    reported = [s.read() for s in sources]
    seen = list(reported)
    moved_at: float | None = None
    passes = 0
    polls = 0
    while max_polls is None or polls < max_polls:
        sleep(poll)
        polls += 1
        now = clock()
        current = [s.read() for s in sources]
        if current != seen:
            seen = current
            moved_at = now
            continue
        if moved_at is None or now - moved_at < settle:
            continue
        moved_at = None
        if current == reported:
            continue  # moved away and back (a checkout and return): nothing new
        changes = [
            (sha, src.subject(sha))
            for src, sha, before in zip(sources, current, reported, strict=True)
            if sha is not None and sha != before
        ]
        reported = current
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
