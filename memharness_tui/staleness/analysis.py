"""Triage as a service: lazy, cached analysis of stale facts against repos.

:class:`Triager` is what a UI or the headless command holds: ask it about one
fact at a time (a table asks only for rows on screen) and it diffs each
(pin, path) once per HEAD, finds renames once per pin, and extracts each fact's
terms once. Like :class:`~.git.GitChecker` it wraps libgit2 objects, so keep
one Triager per thread.

:func:`repin_moved` is *still true* for a moved fact: the same text, pinned at
HEAD on the new path.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from .git import GitChecker, RepoError
from .git_changes import find_renames, path_change
from .pins import normalize_sha, parse_source_ref, short_sha
from .terms import Term, extract_terms
from .triage import MOVED, UNKNOWN, PathChange, Triage, triage

if TYPE_CHECKING:
    from memharness_tui.store import Store

__all__ = ["PinnedFact", "Triager", "analyse", "moved_ref", "moved_revision", "repin_moved"]


class PinnedFact(Protocol):
    """What triage reads from a fact (``store.types.Fact`` has all of it)."""

    fact: str
    source_commit: str | None
    source_path: str | None


@lru_cache(maxsize=4096)
def _terms(text: str) -> tuple[Term, ...]:
    return extract_terms(text)


class Triager:
    """Lazy triage of facts against one or more repos' HEADs (one instance per thread)."""

    def __init__(self, repos: Sequence[str | os.PathLike[str] | GitChecker]) -> None:
        self.checkers: list[GitChecker] = []
        self.errors: list[str] = []
        for r in repos:
            if isinstance(r, GitChecker):
                self.checkers.append(r)
                continue
            try:
                self.checkers.append(GitChecker(r))
            except RepoError as e:
                self.errors.append(str(e))
        self._where: dict[str, GitChecker | None] = {}
        self._renames: dict[tuple[str, str], dict[str, tuple[str, int]]] = {}
        self._changes: dict[tuple[str, str, str], PathChange] = {}
        self._results: dict[tuple[str, str, str, str], Triage] = {}

    def checker(self, pin: str) -> GitChecker | None:
        """The repo the pin belongs to (HEAD contains it first, else any that knows it)."""
        key = normalize_sha(pin)
        if key in self._where:
            return self._where[key]
        found: GitChecker | None = None
        for ch in self.checkers:
            _, commit, _ = ch.resolve(key)
            if commit is None:
                continue
            if commit.id in ch.ancestors:
                found = ch
                break
            found = found or ch
        self._where[key] = found
        return found

    def change(self, pin: str, path: str) -> PathChange | None:
        """The path's diff pin → HEAD, cached per (commit, path, HEAD); None: pin unknown."""
        ch = self.checker(pin)
        if ch is None:
            return None
        _, commit, _ = ch.resolve(pin)
        assert commit is not None
        cid = str(commit.id)
        key = (cid, path, ch.head)
        hit = self._changes.get(key)
        if hit is None:
            rkey = (cid, ch.head)

            def renames() -> dict[str, tuple[str, int]]:  # once per (pin, HEAD), if needed
                if rkey not in self._renames:
                    self._renames[rkey] = find_renames(ch, cid)
                return self._renames[rkey]

            hit = path_change(ch, cid, path, renames=renames)
            self._changes[key] = hit
        return hit

    def analyse(self, fact: str, pin: str | None, path: str | None) -> Triage:
        """Triage one fact text pinned at ``pin`` (and ``path``) against HEAD."""
        if not pin:
            return Triage(UNKNOWN, "not pinned to a commit",
                          terms=tuple(t.label for t in _terms(fact)))
        ch = self.checker(pin)
        head = ch.head if ch is not None else ""
        key = (fact, normalize_sha(pin), path or "", head)
        hit = self._results.get(key)
        if hit is not None:
            return hit
        terms = _terms(fact)
        if ch is None:
            result = Triage(UNKNOWN, f"{short_sha(pin)} is not in any repo checked",
                            terms=tuple(t.label for t in terms), path=path)
        elif not path:
            result = triage(fact, None, terms=terms)
        else:
            change = self.change(pin, path)
            result = triage(fact, change, terms=terms)
        self._results[key] = result
        return result

    def analyse_fact(self, fact: PinnedFact) -> Triage:
        """Triage a stored fact by its own pin (``source_commit`` / ``source_path``)."""
        commit, path = fact.source_commit, fact.source_path
        if not commit:
            pin = parse_source_ref(getattr(fact, "source_ref", "") or "")
            if pin is not None:
                commit, path = pin.commit, path or pin.path
        return self.analyse(fact.fact, commit, path)

    def head_for(self, pin: str) -> str | None:
        ch = self.checker(pin)
        return ch.head if ch is not None else None


def analyse(repo: str | os.PathLike[str] | GitChecker, fact: PinnedFact) -> Triage:
    """One-off triage of a fact against one repo (a UI keeps a :class:`Triager` instead)."""
    return Triager([repo]).analyse_fact(fact)


def moved_ref(source_ref: str, new_commit: str, old_path: str | None, new_path: str) -> str:
    """``name@OLD:auth.py`` → ``name@NEW:auth/session.py``; a ref holding no pin is kept.

    The SHA keeps its written width (a full one stays full); the path is replaced
    only where the ref names the old path right after the SHA.
    """
    pin = parse_source_ref(source_ref)
    if pin is None:
        return source_ref
    m = re.search(re.escape(pin.commit), source_ref, re.IGNORECASE)
    if m is None:
        return source_ref
    width = len(m.group(0))
    sha = new_commit if width >= 40 else new_commit[: max(width, 7)]
    rest = source_ref[m.end():]
    if old_path and rest.startswith(":"):
        tail = re.match(r":(\S*)", rest)
        if tail is not None:
            rest = f":{new_path}" + rest[tail.end():]
    return source_ref[: m.start()] + sha + rest


def moved_revision(fact: Any, result: Triage, head: str, *, source_agent: str = "human"
                   ) -> dict[str, Any]:
    """The ``store.revise`` arguments for *still true* on a moved fact (no I/O).

    Same text, confidence, importance and kind; pinned at ``head`` on the new path;
    a ref that named the old pin names the new one. Raises ValueError when the
    triage is not a move. A UI that writes through its own store thread calls
    ``store.revise(fact.id, **moved_revision(...))`` there.
    """
    if result.outcome != MOVED or not result.new_path:
        raise ValueError("only a moved fact can be re-pinned to its new path")
    return {
        "new_fact": fact.fact,
        "confidence": fact.confidence,
        "importance": fact.importance,
        "kind": fact.kind,
        "source_ref": moved_ref(fact.source_ref, head, fact.source_path, result.new_path),
        "source_agent": source_agent,
        "source_commit": head,
        "source_path": result.new_path,
    }


def repin_moved(
    store: Store,
    fact_id: int,
    result: Triage,
    head: str,
    *,
    source_agent: str = "human",
    checker: GitChecker | None = None,
) -> int:
    """*Still true* on a moved fact: revise it with the same text pinned at HEAD on the new path.

    The verdict recorded on the new row is ``current`` (the pin is HEAD and the
    path exists there; ``checker`` confirms it when given). Returns the new row's
    id. Raises ValueError when the triage is not a move or the new path is not at
    HEAD, and the store's error when the fact is not live.
    """
    old = store.get(fact_id)
    values = moved_revision(old, result, head, source_agent=source_agent)
    if checker is not None and checker.judge(head, values["source_path"])[0] != "current":
        raise ValueError(f"{values['source_path']} is not at HEAD {short_sha(head)}")
    new_fact = values.pop("new_fact")
    _, new_id, _ = store.revise(old.id, new_fact, **values)
    store.set_staleness(new_id, "current", store.now(), head)
    return new_id
