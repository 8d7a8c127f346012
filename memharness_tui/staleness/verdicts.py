"""Pure verdict classification (SPEC §8): git facts in, (freshness, reason) out.

The git checker gathers a :class:`GitFacts` per pin; everything here is a pure
function of it, so every row of the verdict table is testable without a repo.
Unknown is never current and never stale.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

from .pins import short_sha

__all__ = [
    "CURRENT",
    "STALE",
    "UNRESOLVED",
    "GitFacts",
    "Resolution",
    "Verdict",
    "choose_facts",
    "classify",
    "classify_many",
]

CURRENT = "current"
STALE = "stale"
UNRESOLVED = "unresolved"

Resolution = Literal["commit", "unknown", "ambiguous", "not_commit", "invalid"]


class GitFacts(NamedTuple):
    """What one repo says about one pin. Gathered by ``GitChecker.facts``.

    ``path_at_pin`` / ``path_at_head`` are the entry ids (blob or tree) at the
    path, or None when the path is absent there. They are only meaningful when
    the pin resolved to an ancestor of HEAD and a path was given. ``error`` is
    set when git could not answer (objects missing in a partial clone, a corrupt
    pack): the pin is then unresolved with that reason.

    A NamedTuple (immutable, like a frozen dataclass) because a pass builds one per pin:
    it costs a fifth of a frozen dataclass to create.
    """

    pin: str
    resolution: Resolution
    head: str
    commit: str | None = None  # full SHA when resolution == "commit"
    object_type: str | None = None  # e.g. "blob" when resolution == "not_commit"
    is_head: bool = False
    is_ancestor: bool = False
    path: str | None = None
    path_at_pin: str | None = None
    path_at_head: str | None = None
    path_is_folder: bool = False
    shallow: bool = False
    repo: str = ""
    error: str | None = None


class Verdict(NamedTuple):
    """One judged fact. ``commit``/``path`` are the pin as judged (stored or backfilled).

    Immutable and cheap to create (a NamedTuple: a pass makes one per pin)."""

    fact_id: int
    freshness: str
    reason: str
    commit: str
    path: str | None
    repo: str
    checked_head: str
    resolved: str | None = None  # the full commit SHA the pin resolved to
    backfilled: bool = False  # the pass adopted this pin (or, with path_only, its path)
    path_only: bool = False  # already pinned: only the path came from source_ref

    @property
    def pin(self) -> str:
        """The pin as SPEC §9 shows it: ``PATH@SHA7`` (or ``SHA7`` without a path)."""
        sha = short_sha(self.commit)
        return f"{self.path}@{sha}" if self.path else sha

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.fact_id,
            "pin": self.pin,
            "freshness": self.freshness,
            "reason": self.reason,
            "commit": self.commit,
            "path": self.path,
            "resolved": self.resolved,
            "repo": self.repo,
            "checked_head": self.checked_head,
            "backfilled": self.backfilled,
            "backfilled_path_only": self.path_only,
        }


def _shown_path(f: GitFacts) -> str:
    return f"{f.path}/" if f.path_is_folder and f.path else (f.path or "")


def classify(f: GitFacts) -> tuple[str, str]:
    """The SPEC §8 verdict table, with a reason a person can read."""
    sha = short_sha(f.pin)
    if f.error:
        return UNRESOLVED, f.error
    if f.resolution == "invalid":
        return UNRESOLVED, f"{f.pin.strip()!r} is not a commit SHA (need 7-40 hex digits)"
    if f.resolution == "ambiguous":
        return UNRESOLVED, f"{sha} is ambiguous in this repo (several objects start with it)"
    if f.resolution == "not_commit":
        kind = f.object_type or "object"
        article = "an" if kind[:1] in "aeiou" else "a"
        return UNRESOLVED, f"{sha} is {article} {kind}, not a commit"
    if f.resolution == "unknown" or f.commit is None:
        if f.shallow:
            return UNRESOLVED, (
                f"{sha} is not in this repo (shallow clone: history beyond the "
                "boundary is missing; `git fetch --unshallow` to check it)"
            )
        return UNRESOLVED, f"{sha} is not in this repo"
    if not f.is_head and not f.is_ancestor:
        if f.shallow:
            return UNRESOLVED, (
                f"{sha} is not reachable from HEAD in this shallow clone "
                "(on another branch, or beyond the boundary)"
            )
        return UNRESOLVED, f"{sha} is on a branch HEAD does not contain"
    return classify_reached(sha, f.is_head, f.path, _shown_path(f), f.path_at_pin,
                            f.path_at_head)


def classify_reached(sha: str, is_head: bool, path: str | None, shown: str,
                     at_pin: str | None, at_head: str | None) -> tuple[str, str]:
    """The rest of the table, for a pin that is HEAD or one of its ancestors: ``path`` (None:
    a whole-repo pin) and its object at the pin and at HEAD (None: absent there); ``shown`` is
    the path as the reason names it (a folder ends in ``/``). ``GitChecker.judged`` calls this
    directly for the common pin, without building the facts."""
    if path is None:
        if is_head:
            return CURRENT, f"{sha} is HEAD"
        return STALE, f"HEAD has moved past {sha}"
    if at_pin is None:
        return UNRESOLVED, f"{path} did not exist at {sha}"
    if at_head is None:
        return STALE, f"{shown} was deleted since {sha}"
    if at_pin == at_head:
        if is_head:
            return CURRENT, f"{sha} is HEAD"
        return CURRENT, f"{shown} unchanged since {sha}"
    return STALE, f"{shown} changed since {sha}"


_RANK = {"commit": 0, "ambiguous": 1, "not_commit": 2, "invalid": 3, "unknown": 4}


def choose_facts(candidates: Sequence[GitFacts]) -> GitFacts:
    """Pick the repo a pin belongs to when a pass spans several repos.

    A pin is judged in the repo where its commit exists, preferring one whose
    HEAD contains it (two clones of one project on different branches), then
    the first repo that knows the commit; a repo where git could answer wins
    over one where objects were missing. If none knows it, the most specific
    failure is kept (ambiguous, then not-a-commit, then unknown).
    """
    if not candidates:
        raise ValueError("choose_facts needs at least one candidate")
    for f in candidates:
        if f.resolution == "commit" and (f.is_head or f.is_ancestor) and not f.error:
            return f
    return min(candidates, key=lambda f: (_RANK[f.resolution], f.error is not None))


def classify_many(candidates: Sequence[GitFacts]) -> tuple[GitFacts, str, str]:
    """Choose the repo, then classify; the reason says when no repo knew the pin."""
    chosen = choose_facts(candidates)
    freshness, reason = classify(chosen)
    if len(candidates) > 1 and chosen.resolution == "unknown":
        reason = f"{short_sha(chosen.pin)} is not in any of the {len(candidates)} repos"
        if any(c.shallow for c in candidates):
            reason += " (some are shallow clones: history beyond the boundary is missing)"
    return chosen, freshness, reason
