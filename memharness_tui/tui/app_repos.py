"""This database's repos (the app's ``repos``): given, saved, looked up, or chosen.

A mixin of :class:`~memharness_tui.tui.app.MemharnessApp` (it uses the app's ``options``,
``config_dir``, ``info``, ``repos`` and ``notify``), kept apart so the app class stays about
one job. Repos given in the options or saved for the database are known at once; otherwise
the default is the git repo around the current folder, and finding it imports pygit2
(~0.1–0.2 s), so that lookup runs on a thread after the first results are painted (or when
the Staleness tab is first shown).
"""

from __future__ import annotations

import asyncio
from typing import Any


class ReposChoice:
    _repos_lookup: asyncio.Future[list[str]] | None
    _repos_settled: bool
    repos: Any
    options: Any
    config_dir: Any
    info: Any

    def _settle_known_repos(self, db_path: str) -> None:
        """Take the repos given in the options or saved for ``db_path``, if any."""
        from memharness_tui.tui.repos import repos_file_problem, saved_repos

        problem = repos_file_problem(self.config_dir)
        if problem is not None:  # kept as it is; say so rather than silently use defaults
            self.notify(problem, title="repos not loaded",  # type: ignore[attr-defined]
                        severity="warning", timeout=10)
        opts = self.options
        known = list(opts.repos) if opts.repos is not None else saved_repos(
            self.config_dir, db=db_path)
        if known is not None:
            self._repos_settled = True
            self.repos = tuple(known)

    async def repos_known(self) -> None:
        """Return once ``repos`` is settled, looking for the repo around cwd if need be."""
        if self._repos_settled:
            return
        if self._repos_lookup is None:
            from memharness_tui.tui.repos import default_repos

            self._repos_lookup = asyncio.ensure_future(
                asyncio.to_thread(default_repos, self.options.cwd))
        found = await asyncio.shield(self._repos_lookup)
        if not self._repos_settled:  # not chosen in the meantime
            self._repos_settled = True
            self.repos = tuple(found)

    def choose_repos(self, repos: list[str]) -> None:
        """Use ``repos`` for this database from now on (remembered under its path)."""
        from memharness_tui.tui.repos import save_repos

        self._repos_settled = True
        self.repos = tuple(dict.fromkeys(repos))
        if self.info is None:
            return
        try:
            save_repos(list(self.repos), self.config_dir, db=self.info.path)
        except OSError as exc:
            self.notify(f"Repos changed but not saved: {exc}",  # type: ignore[attr-defined]
                        severity="warning")
