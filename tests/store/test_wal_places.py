"""Opening a read-only Store beside an open one keeps this process's locks on the file
(store/places.py): reading the file's header with open() and close() would drop every POSIX
lock the process holds on it, and another process closing its connection would then take
itself for the last one — checkpoint, and delete the -wal and -shm this process still uses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from memharness_tui.store import Store


def test_another_process_closing_leaves_the_log_of_the_open_stores(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    writer = Store.open(path)
    writer.remember("s", "a first fact")
    reader = Store.open(path, readonly=True)  # the app's read-only twin opens after its store
    try:
        before = reader.data_version()
        code = ("import sqlite3, sys\n"
                "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                "c.execute('PRAGMA busy_timeout = 5000')\n"
                "c.execute(\"UPDATE facts SET source_ref = 'other' WHERE id = 1\")\n"
                "c.close()\n")
        subprocess.run([sys.executable, "-c", code, path], check=True, timeout=60)
        assert os.path.exists(path + "-wal") and os.path.exists(path + "-shm")
        assert reader.data_version() != before
        assert reader.get(1).source_ref == "other"
        writer.remember("s", "a second fact")
        assert reader.counts().total == 2
    finally:
        reader.close()
        writer.close()
