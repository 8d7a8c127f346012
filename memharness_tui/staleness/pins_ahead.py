"""The pins read ahead in the pass process, for the precheck of the next pass.

The pass process reads every pin (the pass's work list, and the pinned commits the wrong-repo
precheck counts) while nobody waits — the app asks when its Staleness tab has loaded — and the
precheck takes them instead of reading them between the start key and the pass, but only while
the store file stands exactly where it stood as they were read (:func:`file_state`).

No connection stays open between reads: one kept open across a tool deleting the ``-wal`` and
``-shm`` would, at its close, put the old log back over the commits made since (SQLite keeps
one log index per database file in a process, and every later connection there would share
that old one).
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["PinsAhead", "file_state"]

#: bytes of the wal-index header (both copies: each commit moves its change counter and last
#: frame, a restarted log its salts) and of the database header (its change counter, page
#: count) that say whether anything was committed
_SHM_HEADER = 96
_DB_HEADER = (24, 8)


def file_state(db_path: str) -> object | None:
    """Where the store file stands: which files the database, its ``-wal`` and its ``-shm``
    are, and their headers' change counters. Equal twice: nothing was committed in between,
    by anyone (None: the database file is not there).

    Read with descriptors of its own, so only while this process has no connection to the
    file open: closing a descriptor drops every POSIX lock the process holds on that file,
    SQLite's included. The pass process holds none between requests."""
    state: list[object] = []
    for suffix, (offset, size) in (("", _DB_HEADER), ("-wal", (0, 0)),
                                   ("-shm", (0, _SHM_HEADER))):
        try:
            fd = os.open(db_path + suffix, os.O_RDONLY)
        except FileNotFoundError:
            if not suffix:
                return None
            state.append(None)
            continue
        try:
            st = os.fstat(fd)  # its size and time too: with no log (every connection closed)
            # a commit checkpointed at once changes no header the database keeps in WAL mode
            state.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
                          os.pread(fd, size, offset) if size else b""))
        finally:
            os.close(fd)
    return tuple(state)



class PinsAhead:
    """The pins read last (``held``: the store file as it stood, work, commits; None: none)."""

    def __init__(self) -> None:
        self.held: tuple[object, list[Any], list[str]] | None = None

    def drop(self) -> None:
        self.held = None

    def read(self, db_path: str) -> None:
        """Read the pins of ``db_path`` now, unless those read last are still the store's; kept
        only if nothing was committed during the read."""
        from memharness_tui.store import Store

        from .work import work_list

        if self.now(db_path) is not None:
            return
        self.held = None
        try:
            before = file_state(db_path)  # with no connection of ours open
            store = Store.open(db_path, readonly=True)
            try:
                store.without_memory_map()  # a truncated file: an error, never SIGBUS
                commits: list[str] = []
                work = work_list(store, commits)
            finally:
                store.close()
            if before is not None and file_state(db_path) == before:  # no commit meanwhile
                self.held = (before, work, commits)
        except Exception:  # noqa: BLE001 - read ahead only: the precheck reads them itself
            self.held = None

    def now(self, db_path: str) -> tuple[list[Any], list[str]] | None:
        """The pins read ahead (work, commits), if the store file still stands as it did when
        they were read (no commit since, nor another file at the path or beside it)."""
        held = self.held
        if held is None:
            return None
        try:
            if file_state(db_path) != held[0]:
                return None
        except Exception:  # noqa: BLE001 - not knowable: read them again
            return None
        return held[1], held[2]
