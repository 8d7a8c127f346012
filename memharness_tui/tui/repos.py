"""The repos a staleness pass checks, remembered per database in the platformdirs config dir.

Stored in ``staleness-repos.json`` beside (never inside) ``settings.json`` as a JSON object
``{resolved database path: [repo, …]}``: a list saved while looking at one database never
overrides another's. With nothing saved for a database, the default is the git repo around
the current folder. (An old file holding a bare list — one global setting — is ignored.)
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from memharness_tui.config import (
    SettingsFileDamaged,
    atomic_write_text,
    config_dir,
    database_key,
    folder_lock,
    per_database,
)
from memharness_tui.tui.services.git import find_repo_around, work_tree

__all__ = ["REPOS_FILE", "SettingsFileDamaged", "db_key", "repos_file_problem", "default_repos", "display_path", "load_repos", "save_repos",
           "saved_repos", "work_tree"]

REPOS_FILE = "staleness-repos.json"


def default_repos(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    """The git repo around ``cwd`` (or the current folder), or nothing."""
    try:
        found = find_repo_around(cwd)
    except Exception:  # noqa: BLE001 - an odd cwd just means "no default"
        return []
    return [found] if found is not None else []


db_key = database_key  # the key a database's repos are saved under: its resolved path


def _read(path: Path, *, strict: bool = False) -> dict[str, list[str]]:
    """Every database's saved list. A file that cannot be parsed reads as nothing saved —
    or, ``strict`` (before a save), raises :class:`SettingsFileDamaged`: saving over it
    would wipe the other databases' lists."""
    raw = per_database(path, strict=strict, replaced_list=True)
    out: dict[str, list[str]] = {}
    for key, value in raw.items():
        if isinstance(key, str) and isinstance(value, list):
            out[key] = list(dict.fromkeys(r for r in value if isinstance(r, str) and r.strip()))
    return out


def repos_file_problem(folder: Path | None = None) -> str | None:
    """One sentence when the repos file exists but cannot be used (then nothing saved in it
    is read, and it is never saved over); None when it is fine or absent."""
    try:
        _read((folder or config_dir()) / REPOS_FILE, strict=True)
    except SettingsFileDamaged as exc:
        return str(exc)
    return None


def saved_repos(folder: Path | None = None, *,
                db: str | os.PathLike[str] | None = None) -> list[str] | None:
    """The repos saved for database ``db``; None when none were saved."""
    return _read((folder or config_dir()) / REPOS_FILE).get(db_key(db))


def load_repos(folder: Path | None = None, *, db: str | os.PathLike[str] | None = None,
               cwd: str | os.PathLike[str] | None = None) -> list[str]:
    """The repos saved for database ``db``; the repo around ``cwd`` when none were saved."""
    saved = saved_repos(folder, db=db)
    return saved if saved is not None else default_repos(cwd)


def save_repos(repos: list[str], folder: Path | None = None, *,
               db: str | os.PathLike[str] | None = None) -> Path:
    """Save ``db``'s repos atomically (unique temp file + rename), keeping other databases'
    lists. A file that exists but cannot be parsed is kept and not saved over
    (:class:`SettingsFileDamaged`, an OSError whose text says which file and what to do)."""
    target = folder or config_dir()
    target.mkdir(parents=True, exist_ok=True)
    path = target / REPOS_FILE
    with folder_lock(target):  # another process's save between our read and write is kept
        saved = _read(path, strict=True)
        saved[db_key(db)] = list(dict.fromkeys(repos))
        atomic_write_text(path, json.dumps(saved, indent=2, sort_keys=True) + "\n")
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
