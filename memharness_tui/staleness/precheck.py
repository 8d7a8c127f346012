"""Before a pass writes: do the chosen repos hold the pins at all?

A pass against the wrong repo would turn correct verdicts into "unresolved" without a word.
So when fewer than half of the pinned facts' commits resolve in the chosen repos, the pass
must not write until someone confirms (the app asks; the headless command wants ``--force``).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .git import GitChecker
    from .work import WorkItem

__all__ = ["PinCoverage", "coverage", "coverage_and_work", "coverage_and_work_with", "coverage_in",
           "pin_coverage"]


@dataclass(frozen=True)
class PinCoverage:
    """How many pinned facts' commits the repos hold (``pins`` = pinned live facts).

    ``resolved`` is exact whenever :attr:`wrong_repo` is true (the only case that is shown);
    otherwise counting may stop as soon as half of the pins are known to resolve.
    """

    pins: int
    resolved: int

    @property
    def wrong_repo(self) -> bool:
        """Fewer than half of the pins resolve: probably the wrong repo."""
        return self.pins > 0 and 2 * self.resolved < self.pins

    def sentence(self, repos: Sequence[str]) -> str:
        where = ", ".join(repos) if repos else "no repo"
        noun = "pin is" if self.pins == 1 else "pins are"
        return f"{self.resolved} of {self.pins} {noun} in {where} — wrong repo?"


def coverage(commits: Iterable[str], resolves: Callable[[str], bool]) -> PinCoverage:
    """Count the pins whose commit ``resolves`` finds (pure: the caller says how to look one up).

    Each distinct commit is looked up once, the most pinned first, and the lookups stop once
    half of the pins resolve: the answer (not the wrong repo) cannot change after that. A
    store of thousands of pins in the right repo is decided after a few hundred lookups.
    """
    counts = Counter(commits)
    pins = sum(counts.values())
    resolved = 0
    for commit, n in counts.most_common():
        if 2 * resolved >= pins:
            break
        if resolves(commit):
            resolved += n
    return PinCoverage(pins, resolved)


def pin_coverage(db_path: str | os.PathLike[str],
                 repos: Sequence[str | os.PathLike[str]]) -> PinCoverage:
    """Read the live pins (read-only) and look each commit up in the repos.

    Raises RepoError for a repo that cannot be opened (the pass would refuse it too).
    """
    return coverage_and_work(db_path, repos)[0]


def coverage_and_work(db_path: str | os.PathLike[str],
                      repos: Sequence[str | os.PathLike[str]],
                      ) -> tuple[PinCoverage, list[WorkItem]]:
    """:func:`pin_coverage`, plus the pass's work list read on the way (same pages).

    A pass that starts right after (``StalenessPass(..., work=...)``) then need not read
    every pin a second time.
    """
    from memharness_tui.staleness.git import GitChecker

    return coverage_and_work_with([GitChecker(Path(r)) for r in repos], db_path)


def coverage_and_work_with(checkers: Sequence[GitChecker], db_path: str | os.PathLike[str],
                           ) -> tuple[PinCoverage, list[WorkItem]]:
    """:func:`coverage_and_work` with the repos already open (the pass process keeps them for
    the pass that follows: the commits looked up here stay resolved)."""
    from memharness_tui.staleness.work import work_list
    from memharness_tui.store import Store

    commits: list[str] = []
    store = Store.open(str(db_path), readonly=True)
    try:
        work = work_list(store, commits)
    finally:
        store.close()
    return coverage_in(checkers, commits), work


def coverage_in(checkers: Sequence[GitChecker], commits: Iterable[str]) -> PinCoverage:
    """:func:`coverage` of the pinned ``commits`` in the open repos (a commit in any one)."""

    def resolves(commit: str) -> bool:
        return any(ch.resolve(commit)[0] == "commit" for ch in checkers)

    return coverage(commits, resolves)
