"""App settings of our own (theme, recent repos): the platformdirs config dir, never beside the DB.

``MEMHARNESS_TUI_CONFIG_DIR`` overrides the folder (tests point it at a temp dir).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from memharness_tui.paths import cache_dir, config_dir

__all__ = ["SettingsFileDamaged", "Settings", "atomic_write_text", "cache_dir", "config_dir",
           "database_key", "load_database_entry", "save_database_entry",
           "load_settings", "readable_json", "save_settings", "user_themes_dir"]

SETTINGS_FILE = "settings.json"
MAX_RECENT_REPOS = 10


def user_themes_dir(folder: Path | None = None) -> Path:
    return (folder or config_dir()) / "themes"


@dataclass
class Settings:
    theme: str | None = None
    recent_repos: list[str] = field(default_factory=list)
    hybrid: bool = False
    """Hybrid recall in the app even without ``MEMHARNESS_HYBRID=1``."""

    def add_recent_repo(self, repo: str) -> None:
        self.recent_repos = [repo, *[r for r in self.recent_repos if r != repo]][:MAX_RECENT_REPOS]


class SettingsFileDamaged(OSError):
    """A settings file that exists but cannot be parsed: kept as it is, never saved over.

    An ``OSError`` so every "saved / not saved" path that already handles a failed save
    reports it the same way (one sentence: which file, what is wrong, what to do)."""


def readable_json(path: Path) -> object | None:
    """The parsed JSON in ``path``; None when it does not exist.

    A file that exists but is not valid JSON (a trailing comma typed by hand, a half-synced
    copy) raises :class:`SettingsFileDamaged`: the caller must neither use defaults in its
    place when saving nor replace it — that would wipe what the user had in it.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise SettingsFileDamaged(
            f"{path} is not UTF-8 text; it was left as it is and nothing was saved over it "
            "— fix or remove it"
        ) from None
    try:
        return json.loads(text)
    except ValueError as exc:
        where = (f" (line {exc.lineno}, column {exc.colno})"
                 if isinstance(exc, json.JSONDecodeError) else "")
        raise SettingsFileDamaged(
            f"{path} is not valid JSON{where}; it was left as it is and nothing was saved "
            "over it — fix or remove it"
        ) from None


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` atomically: a temp file of our own (a unique name, so
    two processes saving at once never write into each other's), flushed, then renamed
    over ``path``. A failure leaves ``path`` as it was and removes the temp file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``folder`` (a read-modify-write of a file in it:
    two processes saving at once then never drop each other's change). No lock file is
    left behind; where ``flock`` is missing (Windows) this is a no-op."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def load_settings(folder: Path | None = None) -> Settings:
    """Read settings; a missing or unreadable file gives defaults (settings are never worth a crash)."""
    path = (folder or config_dir()) / SETTINGS_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Settings()
    if not isinstance(raw, dict):
        return Settings()
    theme = raw.get("theme")
    repos = raw.get("recent_repos")
    return Settings(
        theme=theme if isinstance(theme, str) else None,
        recent_repos=[r for r in repos if isinstance(r, str)] if isinstance(repos, list) else [],
        hybrid=raw.get("hybrid") is True,
    )


def save_settings(settings: Settings, folder: Path | None = None) -> Path:
    """Write settings atomically (unique temp file + rename); returns the path written.

    A settings file that exists but cannot be parsed is kept: :class:`SettingsFileDamaged`.
    """
    target_dir = folder or config_dir()
    target_dir.mkdir(parents=True, exist_ok=True)
    path = target_dir / SETTINGS_FILE
    readable_json(path)  # refuses to save over a file the user must fix first
    atomic_write_text(path, json.dumps(asdict(settings), indent=2) + "\n")
    return path


def database_key(db: str | os.PathLike[str] | None) -> str:
    """The key a database's own settings are saved under: its resolved path."""
    if db is None or str(db) == ":memory:":
        return ":memory:"
    try:
        return str(Path(db).expanduser().resolve())
    except (OSError, RuntimeError):
        return str(db)


def _per_database(path: Path, *, strict: bool) -> dict[str, object]:
    """Every database's entry in a ``{database path: value}`` file. A file that cannot be
    parsed reads as empty — or, ``strict`` (before a save), raises SettingsFileDamaged."""
    try:
        raw = readable_json(path)
    except SettingsFileDamaged:
        if strict:
            raise
        return {}
    except OSError:
        return {}
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        if strict:
            raise SettingsFileDamaged(
                f"{path} does not hold a JSON object of database paths; it was left as it "
                "is and nothing was saved over it — fix or remove it")
        return {}
    return {k: v for k, v in raw.items() if isinstance(k, str)}


def load_database_entry(name: str, db: str | os.PathLike[str] | None,
                        folder: Path | None = None) -> dict[str, object]:
    """Database ``db``'s entry (a JSON object) in the settings file ``name``; {} when none."""
    value = _per_database((folder or config_dir()) / name, strict=False).get(database_key(db))
    return dict(value) if isinstance(value, dict) else {}


def save_database_entry(name: str, db: str | os.PathLike[str] | None,
                        entry: dict[str, object], folder: Path | None = None) -> Path:
    """Replace ``db``'s entry in the settings file ``name`` (atomic, under the folder's lock),
    keeping the other databases' entries. A file that cannot be parsed is kept, never saved
    over (SettingsFileDamaged, an OSError saying which file and what to do)."""
    target = folder or config_dir()
    target.mkdir(parents=True, exist_ok=True)
    path = target / name
    with folder_lock(target):
        saved = _per_database(path, strict=True)
        saved[database_key(db)] = entry
        atomic_write_text(path, json.dumps(saved, indent=2, sort_keys=True,
                                           ensure_ascii=False) + "\n")
    return path
