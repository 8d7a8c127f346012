"""A repo's HEAD, read cheaply and often: what ``staleness --watch`` and the app's follow
mode watch."""

from __future__ import annotations

import os
from pathlib import Path

import pygit2

from .git import RepoError, unreadable

__all__ = ["HeadProbe"]


class HeadProbe:
    """Read one repo's HEAD cheaply and often (for ``--watch`` and the follow toggle).

    Keeps the repository open; each :meth:`read` re-reads HEAD and its ref from
    disk (libgit2 does not cache loose refs), so a commit, checkout, pull or
    rebase shows up on the next read. Never raises: an unreadable or unborn HEAD
    reads as None.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        found = pygit2.discover_repository(str(path))
        if not found:
            raise RepoError(unreadable(Path(path)) or f"{path}: not a git repository")
        try:
            self.repo = pygit2.Repository(found)
        except (pygit2.GitError, KeyError, ValueError) as e:
            raise RepoError(f"{path}: cannot open git repository: {e}") from e
        self.path = Path(self.repo.workdir or self.repo.path).resolve()

    def read(self) -> str | None:
        try:
            if self.repo.head_is_unborn:
                return None
            return str(self.repo.head.target)
        except (pygit2.GitError, KeyError, ValueError):
            return None

    def subject(self, sha: str) -> str:
        """The first line of a commit's message ('' when it cannot be read)."""
        try:
            commit = self.repo.get(sha)
        except (pygit2.GitError, KeyError, ValueError):
            return ""
        if not isinstance(commit, pygit2.Commit):
            return ""
        return (commit.message or "").strip().splitlines()[0] if commit.message.strip() else ""
