"""The scanning reads' answers, remembered per snapshot of the file (exact, never stale)."""

from __future__ import annotations

from typing import Any

from . import sql
from .rows import StorePart


class Remembered(StorePart):
    """Remember an answer under what this connection can see; reuse it while that holds.
    The answers are kept on the file (``StoreFile.answers``), which forgets them when it
    lets go of its connection."""

    def snapshot(self) -> tuple[int, int, int]:
        """What this connection can see, as a key that moves whenever that may have changed.

        ``PRAGMA data_version`` moves when another connection (another process, or another
        Store on the same file) commits; ``total_changes`` counts every row this connection
        itself changed (raw SQL on ``store.conn`` included, rolled back or not). Both are
        cheap, so a header refresh with nothing new costs two pragmas instead of a table scan.
        """
        conn = self.conn
        version = int(conn.execute(sql.DATA_VERSION).fetchone()[0])
        return id(conn), version, int(conn.total_changes)

    def recalled(self, name: str, args: Any, now: str | None = None) -> tuple[bool, Any, Any]:
        """(hit, answer, snapshot) for a remembered answer of ``name`` with these ``args``.

        A "now"-dependent answer (``now`` given) was computed at some instant t and holds for
        every now' with t <= now' < the earliest future valid_from it saw (nothing became
        current in between) — so it is reused exactly, never approximately.
        """
        snap = self.snapshot()
        held = self.file.answers.get(name)
        if held is None or held[0] != snap or held[1] != args:
            return False, None, snap
        if now is not None:
            t, until = held[3], held[4]
            if now < t or (until is not None and now >= until):
                return False, None, snap
        return True, held[2], snap

    def remember(self, name: str, snap: Any, args: Any, answer: Any,
                         now: str | None = None, until: str | None = None) -> None:
        self.file.answers[name] = (snap, args, answer, now, until)
