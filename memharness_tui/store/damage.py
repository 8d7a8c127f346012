"""Which files SQLite has reported damaged pages in: a write to one is refused (FileDamaged).

SQLite checks only the pages a statement touches, so a file with damaged pages can refuse a
search and still accept an INSERT whose pages are intact. A full check (``PRAGMA quick_check``)
reads every page: ~0.5 s at 100k facts, far too slow before each write. So "known damaged" is
what SQLite has already said: a store's read or write that failed with SQLITE_CORRUPT (or
NOTADB) marks the file, and from then on writes to it are refused —

* in this process, by (st_dev, st_ino): any Store on the file, the app's scan twin included;
* in later processes (``recall`` fails, then ``remember`` in a new process), through a small
  record in the cache folder (never beside the database) keyed by the resolved path and the
  file's (st_dev, st_ino, size, mtime): a file restored from a backup, or changed at all since
  the damage was seen, no longer matches and is writable again.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

RECORD = "damaged-databases.json"
MAX_RECORDS = 50

_SEEN: set[tuple[int, int]] = set()


def _stat(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]


def _key(path: str) -> str | None:
    try:
        return str(Path(path).resolve())
    except (OSError, ValueError, RuntimeError):
        return None


#: What the cache folder's location is read from (paths.cache_dir, platformdirs).
_LOCATION_VARS = ("MEMHARNESS_TUI_CACHE_DIR", "XDG_CACHE_HOME", "HOME") + (
    ("LOCALAPPDATA", "USERPROFILE") if os.name == "nt" else ())
_RECORD_AT: dict[tuple[str | None, ...], Path] = {}


def _record_path() -> Path:
    """The record's path, remembered per value of the variables it is read from: every write
    asks (``known``), and platformdirs' lookup costs more than the write's own checks."""
    env = os.environ
    key = tuple([env.get(name) for name in _LOCATION_VARS])
    path = _RECORD_AT.get(key)
    if path is None:
        from memharness_tui.paths import cache_dir

        path = _RECORD_AT[key] = cache_dir() / RECORD
    return path


def _read(record: Path) -> dict[str, list[int]]:
    try:
        raw = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def note(path: str) -> None:
    """SQLite reported damaged pages in ``path``: remember it (best effort, never raises)."""
    values, key = _stat(path), _key(path)
    if values is None or key is None:
        return
    _SEEN.add((values[0], values[1]))
    with contextlib.suppress(Exception):
        from memharness_tui.config import atomic_write_text

        record = _record_path()
        record.parent.mkdir(parents=True, exist_ok=True)
        known = _read(record)
        known.pop(key, None)
        known[key] = values
        kept = dict(list(known.items())[-MAX_RECORDS:])
        atomic_write_text(record, json.dumps(kept, indent=1) + "\n")


def known(path: str) -> bool:
    """Whether ``path`` is a file SQLite has reported damaged (this process, or a record of
    another's that still matches the file exactly). A stat, and a small read when a record
    exists."""
    values = _stat(path)
    if values is None:
        return False
    if (values[0], values[1]) in _SEEN:
        return True
    try:
        record = _record_path()
        if not os.path.exists(record):
            return False
    except Exception:  # noqa: BLE001 - no cache folder: nothing recorded
        return False
    key = _key(path)
    return key is not None and _read(record).get(key) == values
