"""What a staleness pass judges (SPEC §8): the live pinned rows, plus backfill candidates whose
source_ref parses as a pin, read from the store in pages, oldest first."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, NamedTuple

from .pins import Pin, is_sha_like, normalize_path, normalize_sha, parse_source_ref

if TYPE_CHECKING:
    from memharness_tui.store import Store
    from memharness_tui.store.types import StalenessTarget

__all__ = ["WorkItem", "work_list"]

_PAGE = 2000


class WorkItem(NamedTuple):
    """One fact to judge: its stored pin, or a pin parsed from source_ref (backfill).

    ``backfill``: the pass adopts this pin (``path_only``: the row is already
    pinned and only its missing path is filled in from source_ref).
    """

    fact_id: int
    commit: str
    path: str | None
    backfill: bool
    path_only: bool = False


def work_list(store: Store, pinned_commits: list[str] | None = None) -> list[WorkItem]:
    """SPEC §8 targets plus backfill candidates whose source_ref parses, oldest first.

    A target pinned without a path whose source_ref names the same commit with
    a path is judged with that path, and the path is filled in (as the
    reference bin does). ``pinned_commits``, when given, also receives every
    target's stored commit as stored (the wrong-repo precheck counts those).
    """
    items: list[WorkItem] = []
    after = 0
    while True:
        page = store.staleness_targets(_PAGE, after_id=after)
        if pinned_commits is not None:
            pinned_commits.extend(t.source_commit for t in page if t.source_commit)
        for t in page:
            commit = (t.source_commit or "").strip()
            path = _ref_path_for(t) if t.source_path is None and t.source_ref else None
            # positional, as tuple.__new__ takes them: one WorkItem per pin
            if path is not None:
                items.append(_new_item(WorkItem, (t.id, commit, path, True, True)))
            else:
                items.append(_new_item(WorkItem, (t.id, commit, t.source_path, False, False)))
        if len(page) < _PAGE:
            break
        after = page[-1].id
    after = 0
    while True:
        page = store.backfill_candidates(_PAGE, after_id=after)
        for t in page:
            pin = parse_source_ref(t.source_ref)
            if pin is not None:
                items.append(WorkItem(t.id, pin.commit, _backfill_path(t, pin), True))
        if len(page) < _PAGE:
            break
        after = page[-1].id
    items.sort(key=_fact_id)  # two runs already in id order
    return items


def _backfill_path(t: StalenessTarget, pin: Pin) -> str | None:
    """A candidate's own source_path wins over the path parsed from source_ref."""
    own = normalize_path(t.source_path) if t.source_path else None
    return own or pin.path


def _ref_path_for(t: StalenessTarget) -> str | None:
    """The path source_ref gives a pinned row that has none, when it names the same commit.

    Commits match case-insensitively, and an abbreviated SHA on either side
    matches the full one it starts. Otherwise None (the row is judged without a path).
    """
    stored = normalize_sha(t.source_commit or "")
    if not is_sha_like(stored):
        return None
    pin = parse_source_ref(t.source_ref)
    if pin is None or pin.path is None:
        return None
    if pin.commit.startswith(stored) or stored.startswith(pin.commit):
        return pin.path
    return None


_new_item = tuple.__new__  # a WorkItem from its five fields, without NamedTuple's __new__
_fact_id = operator.itemgetter(0)
