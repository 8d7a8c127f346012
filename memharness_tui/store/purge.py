"""``Store.purge_rows``: rewrite the text of rows in place so what they held is gone from the
file (the reference's ``EDGE-CASES.md`` E5: rows are never deleted, ids stay, links stay).

One write transaction (``BEGIN IMMEDIATE``, with ``secure_delete`` on so SQLite zeroes what it
frees) rewrites each row's text, clears its vector and rebuilds the FTS index from the table
(an external-content FTS5 table keeps a deleted row's terms in its segments until they merge).
Then, outside it: the -wal is checkpointed (TRUNCATE), the file is VACUUMed (no free page
keeps an old copy) and checkpointed again, and the migration backups beside the file
(``FILE.vN-backup-*``) get the same rewrite. ``purge_leftovers`` reads the raw bytes of every file of
the database for the strings that were to go. A part of ``Store`` like ``writes.py``.
"""

from __future__ import annotations

import contextlib
import glob
from collections.abc import Iterable
from dataclasses import dataclass, field

from .driver import sqlite3
from .errors import InvalidInput, NotFound
from .rows import StorePart, _guarded

__all__ = ["PurgeOutcome", "Purger", "Rewrite", "database_files"]


@dataclass(frozen=True, slots=True)
class Rewrite:
    """Row ``id``'s text ``old`` (as previewed) becomes ``new``."""

    id: int
    old: str
    new: str


@dataclass
class PurgeOutcome:
    changed: list[int] = field(default_factory=list)
    backups_purged: list[str] = field(default_factory=list)
    #: one line each: a step after the commit that could not finish (another reader, a
    #: backup that would not open); the rows are rewritten either way
    notes: list[str] = field(default_factory=list)


_GET_TEXT = "SELECT f.fact FROM facts f WHERE f.id = ?"
_REWRITE = ("UPDATE facts SET fact = :new, embedding = NULL, embedding_dim = NULL, "
            "embedding_model = NULL WHERE id = :id")
_FTS_REBUILD = "INSERT INTO facts_fts(facts_fts) VALUES ('rebuild')"
_HAS_FTS = "SELECT 1 FROM sqlite_master WHERE name = 'facts_fts'"
_BACKUP_REWRITE = ("UPDATE facts SET fact = :new, embedding = NULL WHERE id = :id "
                   "AND fact = :old")
_BACKUP_REPLACE = ("UPDATE facts SET fact = replace(fact, :secret, :marker), embedding = NULL "
                   "WHERE instr(fact, :secret) > 0")


def database_files(path: str) -> list[str]:
    """The database's files that exist: the file, its -wal and -shm, its migration backups."""
    names = [path, path + "-wal", path + "-shm", *sorted(glob.glob(glob.escape(path) +
                                                                    ".v*-backup-*"))]
    out = []
    for name in names:
        with contextlib.suppress(OSError):
            open(name, "rb").close()
            out.append(name)
    return out


def _finish(conn: sqlite3.Connection, where: str, notes: list[str]) -> None:
    """Checkpoint (TRUNCATE), VACUUM, checkpoint again; a step another process blocks is a
    note, not a failure (the rows are already rewritten)."""
    for step in ("PRAGMA wal_checkpoint(TRUNCATE)", "VACUUM", "PRAGMA wal_checkpoint(TRUNCATE)"):
        try:
            row = conn.execute(step).fetchone()
        except sqlite3.Error as exc:
            notes.append(f"{where}: {step} did not run ({exc}); run purge again when no "
                         "other process is using the store")
            return
        if row is not None and step.startswith("PRAGMA") and row[0]:
            notes.append(f"{where}: another process is reading, so the -wal could not be "
                         "emptied; run purge again when it is done")
            return


class Purger(StorePart):
    """``Store``'s purge: rewrites in place, then the file tidied so nothing old is left."""

    @_guarded(writing=True)
    def purge_rows(self, rewrites: Iterable[Rewrite], strings: Iterable[str], *,
                   marker: str) -> PurgeOutcome:
        """Rewrite each row's text (``old`` must still be its text: else nothing is written and
        the error says which row changed since the preview), clear its vector, rebuild the FTS
        index; then tidy the file and the backups beside it. ``strings``: what is to be gone
        (each backup's copies are replaced by ``marker``)."""
        todo = list(rewrites)
        gone = [s for s in dict.fromkeys(strings) if s]
        out = PurgeOutcome()
        conn = self.conn
        previous = conn.execute("PRAGMA secure_delete").fetchone()[0]
        conn.execute("PRAGMA secure_delete = ON")
        try:
            if todo:
                with self.file.write() as wconn:
                    for rw in todo:
                        row = wconn.execute(_GET_TEXT, (rw.id,)).fetchone()
                        if row is None:
                            raise NotFound(f"no fact with id {rw.id}; nothing was written")
                        if row[0] != rw.old:
                            raise InvalidInput(
                                f"fact #{rw.id} changed since the preview; nothing was "
                                "written — preview the purge again")
                        wconn.execute(_REWRITE, {"id": rw.id, "new": rw.new})
                    wconn.execute(_FTS_REBUILD)
                out.changed = [rw.id for rw in todo]
            else:
                self.file.writable()
            self._answers_changed()
            _finish(conn, "the store", out.notes)
        finally:
            with contextlib.suppress(sqlite3.Error):
                conn.execute(f"PRAGMA secure_delete = {int(previous)}")
        for backup in database_files(self.path)[1:]:
            if ".v" in backup[len(self.path):] and self._purge_backup(backup, todo, gone,
                                                                         marker, out.notes):
                out.backups_purged.append(backup)
        return out

    def _answers_changed(self) -> None:
        """The remembered answers (counts, subjects) are stale after raw writes."""
        self.file.answers.clear()

    def _purge_backup(self, path: str, todo: list[Rewrite], gone: list[str], marker: str,
                      notes: list[str]) -> bool:
        """The same rewrite in a migration backup (an older schema; rows by the same ids)."""
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            notes.append(f"{path}: could not be read ({exc.strerror}); purge it by hand or "
                         "delete it")
            return False
        if not any(s.encode() in data or s.lower().encode() in data for s in gone) and \
                not todo:
            return False
        try:
            conn = sqlite3.connect(path, isolation_level=None, timeout=5)
        except sqlite3.Error as exc:
            notes.append(f"{path}: could not be opened ({exc}); it may still hold the "
                         "purged text — delete it")
            return False
        try:
            conn.execute("PRAGMA secure_delete = ON")
            conn.execute("BEGIN IMMEDIATE")
            for rw in todo:
                conn.execute(_BACKUP_REWRITE, {"id": rw.id, "new": rw.new, "old": rw.old})
            for s in gone:
                conn.execute(_BACKUP_REPLACE, {"secret": s, "marker": marker})
            if conn.execute(_HAS_FTS).fetchone():
                conn.execute(_FTS_REBUILD)
            conn.execute("COMMIT")
            _finish(conn, path, notes)
            return True
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            notes.append(f"{path}: could not be purged ({exc}); it may still hold the purged "
                         "text — delete it")
            return False
        finally:
            conn.close()

    def purge_leftovers(self, strings: Iterable[str]) -> list[tuple[str, int]]:
        """(file, index into ``strings``) for each string whose bytes (as written, or lower
        case as the FTS index keeps terms) are still in a file of the database."""
        wanted = list(strings)
        found: list[tuple[str, int]] = []
        for name in database_files(self.path):
            try:
                with open(name, "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            for k, s in enumerate(wanted):
                if s and (s.encode() in data or s.lower().encode() in data):
                    found.append((name, k))
        return found
