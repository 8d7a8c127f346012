"""The repos a staleness pass checks, remembered in the platformdirs config dir.

Stored as a JSON list in ``staleness-repos.json`` beside (never inside) ``settings.json`` so
this feature never rewrites the settings another part of the app owns. With nothing saved,
the default is the git repo around the current folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from memharness_tui.config import config_dir

__all__ = ["REPOS_FILE", "default_repos", "display_path", "load_repos", "save_repos",
           "work_tree"]

REPOS_FILE = "staleness-repos.json"


def work_tree(found: str | os.PathLike[str]) -> Path:
    """``/x/repo/.git`` → ``/x/repo`` (what a person recognises); bare repos stay as they are."""
    p = Path(found)
    if p.name == ".git":
        p = p.parent
    return p


def default_repos(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    """The git repo around ``cwd`` (or the current folder), or nothing."""
    from memharness_tui.staleness.git import find_repo

    try:
        found = find_repo(Path(cwd) if cwd is not None else Path.cwd())
    except Exception:  # noqa: BLE001 - an odd cwd just means "no default"
        return []
    return [str(work_tree(found))] if found is not None else []


def load_repos(folder: Path | None = None, *, cwd: str | os.PathLike[str] | None = None) -> list[str]:
    """Saved repos (a JSON list of paths); the default when nothing usable was saved."""
    path = (folder or config_dir()) / REPOS_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return default_repos(cwd)
    if not isinstance(raw, list):
        return default_repos(cwd)
    repos = [r for r in raw if isinstance(r, str) and r.strip()]
    return list(dict.fromkeys(repos))


def save_repos(repos: list[str], folder: Path | None = None) -> Path:
    """Write the list atomically (temp file + rename); returns the path written."""
    target = folder or config_dir()
    target.mkdir(parents=True, exist_ok=True)
    path = target / REPOS_FILE
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(list(dict.fromkeys(repos)), indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def display_path(path: str | os.PathLike[str], cwd: str | os.PathLike[str] | None = None) -> str:
    """A short form for the screen: relative under the current folder, ``~/…`` under home."""
    p = Path(path)
    here = Path(cwd) if cwd is not None else Path.cwd()
    try:
        rel = p.relative_to(here)
        return str(rel) if str(rel) != "." else f"{p.name} (here)"
    except ValueError:
        pass
    try:
        return "~/" + str(p.relative_to(Path.home()))
    except (ValueError, RuntimeError):
        return str(p)
