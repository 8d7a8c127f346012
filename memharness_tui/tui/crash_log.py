"""crash.log in the cache folder: the traceback of an internal error, kept within a size.

Each crash is appended to ``crash.log``; when the next one would take it past
``MAX_LOG_BYTES`` the file becomes ``crash.log.1`` (replacing the older one) and a new
``crash.log`` starts, so the two together never pass twice that. One crash longer than
``MAX_ENTRY_BYTES`` (a huge exception message) keeps its beginning and its end.
"""

from __future__ import annotations

import os
import traceback
from datetime import UTC, datetime
from pathlib import Path

MAX_LOG_BYTES = 256 * 1024
MAX_ENTRY_BYTES = 64 * 1024
LOG_NAME = "crash.log"


def _entry(error: BaseException) -> bytes:
    text = f"--- {datetime.now(UTC).isoformat()}\n" + "".join(traceback.format_exception(error))
    data = text.encode("utf-8", "backslashreplace")
    if len(data) <= MAX_ENTRY_BYTES:
        return data
    half = MAX_ENTRY_BYTES // 2 - 64
    cut = len(data) - 2 * half
    return data[:half] + f"\n[… {cut} bytes cut …]\n".encode() + data[-half:]


def write_crash_log(error: BaseException, folder: Path | None = None) -> Path | None:
    """Append ``error``'s traceback to crash.log in ``folder`` (the cache folder by default);
    the log's path, or None if it cannot be written."""
    try:
        if folder is None:
            from memharness_tui.paths import cache_dir

            folder = cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        log = folder / LOG_NAME
        entry = _entry(error)
        try:
            size = log.stat().st_size
        except FileNotFoundError:
            size = 0
        if size and size + len(entry) > MAX_LOG_BYTES:
            os.replace(log, folder / f"{LOG_NAME}.1")
        with log.open("ab") as out:
            out.write(entry)
        return log
    except OSError:
        return None
