"""App settings of our own (theme, recent repos): the platformdirs config dir, never beside the DB.

``MEMHARNESS_TUI_CONFIG_DIR`` overrides the folder (tests point it at a temp dir).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from memharness_tui.paths import cache_dir, config_dir

__all__ = ["SettingsFileDamaged", "Settings", "atomic_write_text", "cache_dir", "config_dir",
           "database_key", "load_database_entry", "per_database", "save_database_entry", "load_settings",
           "read_config_bytes", "readable_json", "save_settings", "settings_file_problem",
           "user_themes_dir"]

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
    reports it the same way (one sentence: which file, what is wrong, what to do).
    ``reason`` is the middle part alone ("is not valid JSON (line 1, column 5)")."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path} {reason}; it was left as it is and nothing was saved over it "
                         "— fix or remove it")
        self.path = path
        self.reason = reason

    def __str__(self) -> str:
        return str(self.args[0])


MAX_CONFIG_BYTES = 1024 * 1024
"""The most a settings, repos or theme file may hold: they are a few hundred bytes by hand."""


def read_config_bytes(path: Path, *, limit: int = MAX_CONFIG_BYTES) -> bytes | None:
    """The bytes of the regular file ``path``, at most ``limit`` of them; None when it does
    not exist.

    A file under the config folder is data: a FIFO, a device (a symlink to ``/dev/zero``), a
    folder, a file larger than ``limit`` or one that cannot be read raises
    :class:`SettingsFileDamaged`. The open never blocks (``O_NONBLOCK``: a FIFO with no writer)
    and nothing past ``limit`` is read, whatever the file claims or grows to.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SettingsFileDamaged(path, f"cannot be read ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SettingsFileDamaged(path, "is not a regular file")
        if st.st_size > limit:
            raise SettingsFileDamaged(path, f"is larger than {_size(limit)}")
        chunks: list[bytes] = []
        got = 0
        while got <= limit:
            chunk = os.read(fd, min(65536, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:  # it grew while being read
            raise SettingsFileDamaged(path, f"is larger than {_size(limit)}")
        return b"".join(chunks)
    except OSError as exc:
        if isinstance(exc, SettingsFileDamaged):
            raise
        raise SettingsFileDamaged(path, f"cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def _size(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB" if n % (1024 * 1024) == 0 else f"{n:,} bytes"


def readable_json(path: Path) -> object | None:
    """The parsed JSON in ``path``; None when it does not exist.

    A file that exists but cannot be used — not a regular file, too large, not UTF-8, not
    valid JSON, nested too deeply to parse — raises :class:`SettingsFileDamaged`: the caller
    must neither use defaults in its place when saving nor replace it — that would wipe what
    the user had in it.
    """
    data = read_config_bytes(path)
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SettingsFileDamaged(path, "is not UTF-8 text") from None
    try:
        return json.loads(text)
    except RecursionError:
        raise SettingsFileDamaged(path, "is nested too deeply to read") from None
    except ValueError as exc:
        where = (f" (line {exc.lineno}, column {exc.colno})"
                 if isinstance(exc, json.JSONDecodeError) else "")
        raise SettingsFileDamaged(path, f"is not valid JSON{where}") from None


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
        raw = readable_json(path)
    except OSError:
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


def settings_file_problem(folder: Path | None = None) -> str | None:
    """One sentence when the settings file exists but cannot be used (the app then runs on
    the defaults and never saves over it); None when it is fine or absent."""
    try:
        readable_json((folder or config_dir()) / SETTINGS_FILE)
    except OSError as exc:
        return str(exc)
    return None


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


def per_database(path: Path, *, strict: bool, replaced_list: bool = False) -> dict[str, object]:
    """Every database's entry in a ``{database path: value}`` file. A file that cannot be
    parsed reads as empty — or, ``strict`` (before a save), raises SettingsFileDamaged: saving
    over it would wipe the other databases' entries. ``replaced_list``: a bare JSON list is an
    old format this file replaces (read as empty, saved over)."""
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
        if strict and not (replaced_list and isinstance(raw, list)):
            raise SettingsFileDamaged(path, "does not hold a JSON object of database paths")
        return {}
    return {k: v for k, v in raw.items() if isinstance(k, str)}


def load_database_entry(name: str, db: str | os.PathLike[str] | None,
                        folder: Path | None = None) -> dict[str, object]:
    """Database ``db``'s entry (a JSON object) in the settings file ``name``; {} when none."""
    value = per_database((folder or config_dir()) / name, strict=False).get(database_key(db))
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
        saved = per_database(path, strict=True)
        saved[database_key(db)] = entry
        atomic_write_text(path, json.dumps(saved, indent=2, sort_keys=True,
                                           ensure_ascii=False) + "\n")
    return path
