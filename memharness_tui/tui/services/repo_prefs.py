"""This database's repos (the app's ``repos``): given, saved, looked up, or chosen.

Repos saved for the database, else given in the options, are known at once; otherwise the
default is the git repo around the current folder (saved for the database once found, so a
start from another folder and ``doctor`` find it too), and finding it imports pygit2
(~0.1–0.2 s), so that lookup runs on a thread after the first results are painted (or when
the Staleness tab is first shown). The app holds one :class:`ReposPreferences` as
``app.repo_prefs``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from memharness_tui.tui.state import StalenessOptions

Warn = Callable[[str, str], None]
"""Says a warning to the user: (text, title) (the app's ``notify``)."""


class ReposPreferences:
    """Settles the repos once and saves the ones chosen, handing each list to ``set_repos``.
    ``options``: the app's pass options now (an embedder may replace them before the open)."""

    def __init__(self, options: Callable[[], StalenessOptions], config_dir: Path,
                 set_repos: Callable[[tuple[str, ...]], None], warn: Warn) -> None:
        self._options = options
        self._config_dir = config_dir
        self._set_repos = set_repos
        self._warn = warn
        self._lookup: asyncio.Future[list[str]] | None = None
        self._settled = False  # repos given, saved, looked up or chosen
        self._db_path: str | None = None
        self._repos: tuple[str, ...] = ()

    def settle_known(self, db_path: str) -> None:
        """Take the repos saved for ``db_path`` or, none saved, those given in the options.

        Saved wins: a list is saved only when the person chose it (or the repo around cwd
        was first used), and the options' list (the demo's own repo) is a starting point."""
        from memharness_tui.tui.repos import repos_file_problem, saved_repos

        self._db_path = db_path
        problem = repos_file_problem(self._config_dir)
        if problem is not None:  # kept as it is; say so rather than silently use defaults
            self._warn(problem, "repos not loaded")
        opts = self._options()
        known = saved_repos(self._config_dir, db=db_path)
        if known is None and opts.repos is not None:
            known = list(opts.repos)
        if known is not None:
            self._settle(tuple(known))

    async def known(self) -> None:
        """Return once the repos are settled, looking for the repo around cwd if need be."""
        if self._settled:
            return
        if self._lookup is None:
            from memharness_tui.tui.repos import default_repos

            self._lookup = asyncio.ensure_future(
                asyncio.to_thread(default_repos, self._options().cwd))
        found = await asyncio.shield(self._lookup)
        if not self._settled:  # not chosen in the meantime
            self._settle(tuple(found))
            if found:  # saved for the database: the next start elsewhere (and doctor) see it
                self._save(quiet=True)

    def choose(self, repos: list[str]) -> None:
        """Use ``repos`` for this database from now on (remembered under its path)."""
        self._settle(tuple(dict.fromkeys(repos)))
        self._save(quiet=False)

    def _save(self, *, quiet: bool) -> None:
        """Save the repos for the database (not one in memory). ``quiet``: a damaged repos
        file was already reported at start and is kept as it is, so say nothing again."""
        from memharness_tui.tui.repos import save_repos

        if self._db_path is None or self._db_path == ":memory:":
            return
        try:
            save_repos(list(self._repos), self._config_dir, db=self._db_path)
        except OSError as exc:
            if not quiet:
                self._warn(f"Repos changed but not saved: {exc}", "")

    def _settle(self, repos: tuple[str, ...]) -> None:
        self._settled = True
        self._repos = repos
        self._set_repos(repos)
