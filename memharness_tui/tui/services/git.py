"""The UI's one door to git: pins judged, drift and diffs read, through the staleness package.

A :class:`GitView` opens libgit2 handles in the thread that creates it and must only be used
there (libgit2 objects are not shared across threads); the async helpers below create one in a
worker thread per question, so callers on the event loop never block on git.

Those threads are daemon threads of their own, not the event loop's executor: asyncio joins its
executor's threads when the app's loop ends, so a slow git question (a huge diff, a hung network
folder) used to hold the quit behind a blank screen. A question whose caller is cancelled (the
modal closed, the app quitting) is told to stop at its next step, and nobody waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from memharness_tui.staleness.analysis import Triager
    from memharness_tui.staleness.git import Drift, GitChecker
    from memharness_tui.staleness.triage import Triage
    from memharness_tui.staleness.watch import HeadSource

T = TypeVar("T")

__all__ = ["GitView", "Judged", "RevisePicture", "RowAnalysis", "StillTrue", "Stopped",
           "check_repo", "find_repo_around", "judge", "judge_facts", "off_loop", "open_probes",
           "open_triager", "pin_commit", "repos_head", "revise_picture", "still_true_plan",
           "work_tree"]
#: The staleness engine's types the UI shows, imported from here on first use (they bring
#: the engine's modules; the app starts without them).
_LATER = {"Drift": "git", "HeadSource": "watch", "TermSpan": "triage", "Triage": "triage",
          "TriageHunk": "triage"}


def __getattr__(name: str) -> Any:
    module = _LATER.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"memharness_tui.staleness.{module}"), name)


# ----- repos: finding one, checking one, watching HEADs ------------------------------------


def work_tree(found: str | os.PathLike[str]) -> Path:
    """``/x/repo/.git`` → ``/x/repo`` (what a person recognises); bare repos stay as they are."""
    p = Path(found)
    if p.name == ".git":
        p = p.parent
    return p


def find_repo_around(cwd: str | os.PathLike[str] | None = None) -> str | None:
    """The work tree of the git repo around ``cwd`` (or the current folder), or None. Runs git."""
    from memharness_tui.staleness.git import find_repo

    found = find_repo(Path(cwd) if cwd is not None else Path.cwd())
    return str(work_tree(found)) if found is not None else None


def check_repo(path: str) -> tuple[str | None, str | None]:
    """(work tree, None) for a usable repo, or (None, the reason it is not). Runs git."""
    from memharness_tui.staleness.git import GitChecker, RepoError

    p = Path(path).expanduser()
    try:
        ch = GitChecker(p)
    except RepoError as exc:
        return None, str(exc)
    return str(work_tree(ch.path)), None


def open_probes(repos: Sequence[str]) -> tuple[list[HeadSource], list[str]]:
    """A HEAD probe per repo that opens, and one line per repo that does not."""
    from memharness_tui.staleness.git import RepoError
    from memharness_tui.staleness.git_head import HeadProbe

    probes: list[HeadSource] = []
    errors: list[str] = []
    for r in repos:
        try:
            probes.append(HeadProbe(r))
        except RepoError as exc:
            errors.append(str(exc))
    return probes, errors


class Stopped(Exception):
    """The caller went away (cancelled): the question stops at its next step."""


async def off_loop(fn: Callable[[threading.Event], T]) -> T:
    """``fn(stop)`` in a daemon thread; awaiting it never delays the app's exit.

    When the awaiting task is cancelled, ``stop`` is set (``fn`` checks it between steps and
    may raise :class:`Stopped`) and the thread is left to finish on its own."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()
    stop = threading.Event()

    def settle(result: Any, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)

    def run() -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            result = fn(stop)
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
            error = exc
        with contextlib.suppress(RuntimeError):  # a closed loop: the app has gone
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name="memharness-git", daemon=True).start()
    try:
        return await done
    except asyncio.CancelledError:
        stop.set()
        raise


def _check(stop: threading.Event) -> None:
    if stop.is_set():
        raise Stopped


@dataclass(frozen=True)
class Judged:
    """What git says about one pin right now (SPEC §8 verdict and its reason)."""

    freshness: str
    reason: str
    repo: str  # work tree of the repo the pin was judged in
    head: str  # that repo's HEAD
    resolved: bool  # the pin is a commit in that repo (drift and diff are possible)


class GitView:
    """Checkers for a list of repos, opened in (and only used from) the creating thread.

    Repos that cannot be opened are listed in ``errors`` instead of failing the view.
    """

    def __init__(self, repos: Sequence[str]) -> None:
        from memharness_tui.staleness.git import GitChecker, RepoError

        self.checkers: list[GitChecker] = []
        self.errors: list[str] = []
        seen: set[str] = set()
        for r in repos:
            try:
                ch = GitChecker(r)
            except RepoError as exc:
                self.errors.append(str(exc))
                continue
            if str(ch.path) not in seen:
                seen.add(str(ch.path))
                self.checkers.append(ch)

    def __bool__(self) -> bool:
        return bool(self.checkers)

    def _checker(self, repo: str) -> GitChecker | None:
        for ch in self.checkers:
            if str(ch.path) == repo:
                return ch
        return None

    def judge(self, commit: str, path: str | None) -> Judged | None:
        """Classify a pin against the repos (the repo whose history holds it wins)."""
        from memharness_tui.staleness.verdicts import classify, classify_many

        if not self.checkers:
            return None
        if len(self.checkers) == 1:
            facts = self.checkers[0].facts(commit, path)
            freshness, reason = classify(facts)
        else:
            facts, freshness, reason = classify_many([c.facts(commit, path) for c in self.checkers])
        return Judged(freshness, reason, facts.repo, facts.head, facts.resolution == "commit")

    def _ask(self, repo: str, question: Callable[[GitChecker], T]) -> T | None:
        """Ask one repo's checker; an unusable repo or missing objects answer None."""
        from memharness_tui.staleness.git import RepoError

        ch = self._checker(repo)
        if ch is None:
            return None
        try:
            return question(ch)
        except RepoError:
            return None

    def drift(self, commit: str, path: str | None, repo: str) -> Drift | None:
        return self._ask(repo, lambda ch: ch.drift(commit, path))

    def diff(self, commit: str, path: str | None, repo: str) -> str | None:
        return self._ask(repo, lambda ch: ch.diff_text(commit, path))

    def head_of(self, repo: str) -> str | None:
        ch = self._checker(repo)
        return ch.head if ch is not None else None


def open_triager(repos: Sequence[str]) -> Triager:
    """A :class:`~memharness_tui.staleness.analysis.Triager` for ``repos``, for the calling
    thread only (it holds libgit2 objects: one per thread)."""
    from memharness_tui.staleness.analysis import Triager

    return Triager(list(repos))


@dataclass(frozen=True)
class RowAnalysis:
    """One flagged row's git questions, asked in a worker thread: drift and/or triage."""

    fact_id: int
    text: str
    commit: str | None
    path: str | None
    repo: str | None
    want_drift: bool
    want_triage: bool

    def triage(self, triager: Triager) -> Triage:
        """Does the change since the pin touch what the fact says? (never raises)"""
        from memharness_tui.staleness.git import RepoError
        from memharness_tui.staleness.triage import UNKNOWN, Triage

        try:
            return triager.analyse(self.text, self.commit, self.path)
        except (RepoError, ValueError, KeyError, OSError) as exc:
            return Triage(UNKNOWN, f"git could not say: {' '.join(str(exc).split())}")


async def judge(repos: Sequence[str], commit: str | None, path: str | None) -> Judged | None:
    """One pin judged in a worker thread (None: no pin or no repo)."""
    if not commit or not repos:
        return None
    return await off_loop(lambda stop: GitView(repos).judge(commit, path))


async def judge_facts(repos: Sequence[str], facts: Iterable[Any]) -> dict[int, Judged | None]:
    """Every pinned fact judged now, by id, in one worker thread."""
    items = [(f.id, f.source_commit, f.source_path) for f in facts]

    def run(stop: threading.Event) -> dict[int, Judged | None]:
        view = GitView(repos)
        out: dict[int, Judged | None] = {}
        for fid, commit, path in items:
            _check(stop)
            out[fid] = view.judge(commit, path) if (view and commit) else None
        return out

    return await off_loop(run)


@dataclass(frozen=True)
class RevisePicture:
    """What the revise screen shows about a pin: its verdict now, drift, the diff, and the
    triage (does the change touch what the fact says; matching hunks first)."""

    judged: Judged | None
    drift: Drift | None
    diff: str | None
    errors: list[str]
    triage: Triage | None = None


async def revise_picture(repos: Sequence[str], commit: str | None, path: str | None,
                         text: str = "") -> RevisePicture:
    def gather(stop: threading.Event) -> RevisePicture:
        view = GitView(repos)
        if not view or not commit:
            return RevisePicture(None, None, None, view.errors)
        judged = view.judge(commit, path)
        if judged is None or not judged.resolved:
            return RevisePicture(judged, None, None, view.errors)
        result = None
        if text and path:
            _check(stop)
            result = RowAnalysis(0, text, commit, path, judged.repo, False, True).triage(
                open_triager(repos))
        _check(stop)
        drift = view.drift(commit, path, judged.repo)
        _check(stop)
        return RevisePicture(judged, drift, view.diff(commit, path, judged.repo), view.errors,
                             result)

    return await off_loop(gather)


@dataclass
class StillTrue:
    """One fact's plan for *still true*: the HEAD, what git says there, or why not."""

    fact: Any
    head: str
    judged: Judged | None
    problem: str | None = None
    moved: dict[str, Any] | None = None  # store.revise arguments re-pinning a moved fact


async def still_true_plan(repos: Sequence[str], facts: Sequence[Any], *,
                          source_agent: str) -> list[StillTrue]:
    """Where each fact stands at HEAD, asked in one worker thread (one view, one triager):
    true there as pinned, true at the path git says it moved to (``moved`` holds that
    revision, written as ``source_agent``), or not true (``problem`` says why)."""

    def plan(stop: threading.Event) -> list[StillTrue]:
        from memharness_tui.staleness.analysis import moved_revision
        from memharness_tui.staleness.triage import MOVED

        view = GitView(repos)
        triager = open_triager(repos) if view else None
        out: list[StillTrue] = []
        for f in facts:
            _check(stop)
            where = view.judge(f.source_commit or "", f.source_path) if view else None
            if where is None:
                out.append(StillTrue(f, "", None, "; ".join(view.errors) or "no usable repo"))
                continue
            now = view.judge(where.head, f.source_path)
            if now is not None and now.freshness == "current":
                out.append(StillTrue(f, where.head, now))
                continue
            if triager is not None and f.source_path and where.resolved:
                t = RowAnalysis(f.id, f.fact, f.source_commit, f.source_path, where.repo,
                                False, True).triage(triager)
                if t.outcome == MOVED and t.new_path:
                    there = view.judge(where.head, t.new_path)
                    if there is not None and there.freshness == "current":
                        values = moved_revision(f, t, where.head, source_agent=source_agent)
                        out.append(StillTrue(f, where.head, there, moved=values))
                        continue
            why = now.reason if now is not None else "cannot check at HEAD"
            out.append(StillTrue(f, where.head, now, f"not true at HEAD ({why})"))
        return out

    return await off_loop(plan)


async def repos_head(repos: Sequence[str]) -> str | None:
    """HEAD of the first of ``repos`` that opens (the commit a new pin starts from), or None."""
    if not repos:
        return None
    return await off_loop(lambda stop: next((ch.head for ch in GitView(repos).checkers), None))


async def pin_commit(repos: Sequence[str], commit: str) -> tuple[str | None, str]:
    """``commit`` (full or abbreviated) as the full SHA a pin stores: ``(sha, "")``, or
    ``(None, why not)``. With no usable repo, only a full 40-character SHA is taken."""
    from memharness_tui.staleness.git import RepoError

    typed = commit.strip().lower()

    def resolve(stop: threading.Event) -> tuple[str | None, str]:
        view = GitView(repos)
        if not view:
            if len(typed) == 40 and all(c in "0123456789abcdef" for c in typed):
                return typed, ""
            return None, ("no repo to look the commit up in: give its full 40-character SHA, "
                          "or add its repo in the Staleness tab (g)")
        outcomes: list[str] = []
        for ch in view.checkers:
            _check(stop)
            try:
                resolution, found, kind = ch.resolve(typed)
            except RepoError as exc:
                outcomes.append(str(exc))
                continue
            if found is not None:
                return str(found.id), ""
            outcomes.append({"invalid": "is not a commit SHA",
                             "ambiguous": "names more than one object: type more of it",
                             "not_commit": f"is a {kind}, not a commit"}.get(resolution, ""))
        why = next((o for o in outcomes if o), "is in none of the repos")
        return None, f"{typed} {why}"

    return await off_loop(resolve)

