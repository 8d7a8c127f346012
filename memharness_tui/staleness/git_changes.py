"""What happened to a pinned path from its pin to HEAD, read from git for triage (``.triage``):
git's renames, and the hunks of a file, a moved file or a folder."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import cast

import pygit2

from .git import (
    MAX_DIFF_BYTES,
    MAX_DIFF_LINES,
    GitChecker,
    MissingObjects,
    RepoError,
    _missing,
    _one_line,
    bounded_patch,
)
from .pins import normalize_path, short_sha
from .triage import DiffHunk, DiffLine, PathChange

__all__ = ["find_renames", "path_change"]


def find_renames(checker: GitChecker, pin: str, *, threshold: int = 50) -> dict[str, tuple[str, int]]:
    """``{old path: (new path, similarity %)}`` for files git finds renamed from ``pin`` to HEAD.

    One whole-tree diff with rename detection (``git diff -M``); callers cache it
    per pin. Raises RepoError when the pin is not a commit, MissingObjects when
    objects are missing.
    """
    commit = checker._commit_or_error(pin)
    try:
        diff = checker.repo.diff(commit.tree, checker.head_commit.tree)  # type: ignore[call-overload]  # stubs omit Trees
        diff.find_similar(
            flags=pygit2.enums.DiffFind.FIND_RENAMES, rename_threshold=threshold
        )
        out: dict[str, tuple[str, int]] = {}
        for delta in diff.deltas:
            if delta.status == pygit2.enums.DeltaStatus.RENAMED:
                out[delta.old_file.path] = (delta.new_file.path, int(delta.similarity))
        return out
    except (pygit2.GitError, KeyError) as e:
        raise MissingObjects(_missing(str(commit.id))) from e


def path_change(
    checker: GitChecker,
    pin: str,
    path: str,
    *,
    context_lines: int = 3,
    renames: Callable[[], Mapping[str, tuple[str, int]]] | None = None,
) -> PathChange:
    """What happened to ``path`` from ``pin`` to HEAD, as hunks for :func:`.triage.triage`.

    A file is diffed blob to blob (cheap: no tree walk). A path gone at HEAD is
    looked up in what ``renames()`` returns (called only then; default:
    :func:`find_renames`, computed here); a folder is diffed as a subtree. Never raises for a missing path or objects:
    those come back as status ``error`` with the reason.
    """
    norm = normalize_path(path) or ""
    try:
        commit = checker._commit_or_error(pin)
        e_pin = checker.entry(commit, norm) if norm else None
        if e_pin is None:
            return PathChange(norm, "error", error=f"{norm or path!r} did not exist at {short_sha(pin)}")
        e_head = checker.entry(checker.head_commit, norm)
        if e_head is not None and e_head[0] == e_pin[0]:
            return PathChange(norm, "unchanged")
        sub = checker.submodule_change(commit, norm)
        if sub is not None:  # its commits are in its own repo: say what this one knows
            return PathChange(norm, "error", error=sub)
        repo = checker.repo
        if e_head is None:
            moves = renames() if renames is not None else find_renames(checker, pin)
            hit = moves.get(norm)
            if hit is None:
                return PathChange(norm, "deleted")
            new_path, similarity = hit
            e_new = checker.entry(checker.head_commit, new_path)
            if e_new is None:  # pragma: no cover - git just listed it
                return PathChange(norm, "deleted")
            new_blob = cast("pygit2.Blob", repo[e_new[0]])  # a file entry: a blob
            bp = bounded_patch(repo, e_pin[0], e_new[0], context_lines=context_lines)
            if bp.patch.delta.is_binary:
                return PathChange(norm, "binary", new_path=new_path, similarity=similarity)
            budget = _Budget()
            hunks = _hunks(bp.patch, new_path, budget)
            return PathChange(
                norm,
                "moved",
                hunks,
                new_path=new_path,
                similarity=similarity,
                # the new file's text is searched for the fact's terms: bounded like the diff
                new_text=new_blob.data[:MAX_DIFF_BYTES].decode("utf-8", "replace"),
                note=_note(bp.note, budget),
            )
        if e_pin[1] or e_head[1]:  # a folder: diff the subtrees
            old, new = repo[e_pin[0]], repo[e_head[0]]
            if not (isinstance(old, pygit2.Tree) and isinstance(new, pygit2.Tree)):
                return PathChange(norm, "error", error=f"{norm} changed between file and folder")
            found: list[DiffHunk] = []
            budget = _Budget()
            notes: list[str] = []
            diff = repo.diff(old, new, context_lines=context_lines)  # type: ignore[call-overload]  # stubs omit Trees
            for delta in diff.deltas:  # each file by itself: a huge one is diffed over its start
                if delta.is_binary or _COMMIT in (delta.old_file.mode, delta.new_file.mode):
                    continue  # a submodule inside the folder: its commits are not in this repo
                name = delta.new_file.path or delta.old_file.path
                bp = bounded_patch(repo, _oid(delta.old_file.id), _oid(delta.new_file.id),
                                   context_lines=context_lines, old_path=name, new_path=name)
                if bp.patch.delta.is_binary:
                    continue
                if bp.note:
                    notes.append(f"{norm}/{name}: {bp.note}")
                found.extend(_hunks(bp.patch, f"{norm}/{name}", budget))
            return PathChange(norm, "modified", tuple(found),
                              note=_note("; ".join(notes) or None, budget))
        bp = bounded_patch(repo, e_pin[0], e_head[0], context_lines=context_lines)
        if bp.patch.delta.is_binary:
            return PathChange(norm, "binary")
        budget = _Budget()
        hunks_ = _hunks(bp.patch, norm, budget)
        return PathChange(norm, "modified", hunks_, note=_note(bp.note, budget))
    except RepoError as e:
        return PathChange(norm, "error", error=str(e))
    except (pygit2.GitError, KeyError) as e:
        return PathChange(norm, "error", error=f"git cannot diff {norm}: {_one_line(e)}")


class _Budget:
    """How many more diff lines a triage reads (:data:`MAX_DIFF_LINES` in all), and how many
    it left out."""

    def __init__(self, lines: int | None = None) -> None:
        self.left = MAX_DIFF_LINES if lines is None else lines
        self.skipped = 0
        self.total = 0


def _note(note: str | None, budget: _Budget) -> str | None:
    if budget.skipped:
        cut = f"read the first {budget.total - budget.skipped:,} of {budget.total:,} diff lines"
        return f"{note}; {cut}" if note else f"diff too large: {cut}"
    return note


_COMMIT = pygit2.enums.FileMode.COMMIT


def _oid(oid: pygit2.Oid) -> str | None:
    """A side's blob id, None for the side a file is absent from (git's all-zero id)."""
    text = str(oid)
    return None if text.strip("0") == "" else text


def _hunks(patch: pygit2.Patch, file: str, budget: _Budget | None = None) -> tuple[DiffHunk, ...]:
    budget = budget or _Budget()
    out = []
    _, adds, dels = patch.line_stats
    for h in patch.hunks:
        if budget.left <= 0:
            break
        lines = tuple(
            DiffLine(
                ln.origin,
                ln.old_lineno if ln.old_lineno >= 0 else None,
                ln.new_lineno if ln.new_lineno >= 0 else None,
                ln.content.rstrip("\r\n"),
            )
            for ln in h.lines[: budget.left]
            if ln.origin in "+- "
        )
        budget.left -= len(lines)
        out.append(DiffHunk(file, h.header.strip(), lines))
    read = sum(1 for h in out for ln in h.lines if ln.origin != " ")
    budget.total += adds + dels
    budget.skipped += max(adds + dels - read, 0)
    return tuple(out)
