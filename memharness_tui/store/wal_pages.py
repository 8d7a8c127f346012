"""Which rows another connection's commits touched, read from the write-ahead log (WAL).

SQLite says *that* another connection committed (``PRAGMA data_version``), never *what*.
The WAL says it: every commit appends the new image of each page it changed, and a changed
row always rewrites the table b-tree leaf that holds it. So the rowids on the leaf images
appended since a known point cover every row inserted or updated since then (this module
reads only the file formats SQLite documents: https://www.sqlite.org/fileformat2.html §4,
https://www.sqlite.org/walformat.html §2).

``rowids_since`` answers with the rowids on the table leaves committed after a mark, or
``None`` — "cannot say", and the caller scans every row — whenever the answer
could be incomplete:

- a commit since the mark is in none of the frames read. The wal-index header counts the
  commits (``iChange``, one more at every commit; a checkpoint leaves it alone), and every
  commit ends with a frame marked as one: when the marked frames read fall short of the
  count, some were lost — the log restarted (its salts moved) after frames the reader never
  read, or was truncated. A restart after frames the reader *did* read loses nothing: the
  new log's frames, and what is left of the old log after the mark (its salts, its
  checksums chained from the mark's frame), hold every commit since;
- a frame holds a page that is not a b-tree page and not on the freelist now (an overflow
  page carries a row's tail without its rowid: a row's change may be there alone);
- the wal-index header is being rewritten as it is read (its two copies differ, its checksum
  fails), or a frame's salts are not the log's;
- not a WAL database, no ``-shm`` file, too many frames to read cheaply;
- no ``/proc/self/fd`` (not Linux), or SQLite holds none of the three files open here.

The files are read only through the descriptors SQLite itself holds open in this process,
with ``os.pread``; never opened and closed here: closing *any* descriptor of a file drops
every POSIX lock the process holds on it (https://www.sqlite.org/howtocorrupt.html §2.2) —
SQLite's own read locks on the ``-shm`` included, and a writer elsewhere then restarts the
log under this process's readers (measured: the app stopped seeing later commits).

What the rowids cannot show is a row *deleted* from a leaf (the new image lacks it) or a leaf
freed whole; the caller checks for deletions itself (the total row count).
"""

from __future__ import annotations

import os
import struct
import sys
from dataclasses import dataclass

WAL_HEADER = 32
FRAME_HEADER = 24
SHM_HEADER = 48  # one copy of the wal-index header (two copies follow each other)
SHM_VERSION = 3007000
TABLE_LEAF = 0x0D
BTREE_PAGES = frozenset({0x02, 0x05, 0x0A, 0x0D})  # index/table, interior/leaf
#: More new frames than this and a scan of every row is about as cheap as reading them.
MAX_FRAMES = 4000
#: The most frames of a restarted log's predecessor read after the mark (each one's
#: checksum is computed here: ~0.1 ms a page); more and every row is read instead.
MAX_OLD_FRAMES = 400


@dataclass(frozen=True)
class WalMark:
    """A point in the log: its salts (they change when the log restarts), its last committed
    frame, the commits counted by then (``iChange``) and that frame's running checksum."""

    salts: bytes
    frames: int
    commits: int
    cksum: tuple[int, int]
    page_size: int
    big_endian: bool  # the checksums' byte order


def _checksum(data: bytes, big_endian: bool,
              start: tuple[int, int] = (0, 0)) -> tuple[int, int]:
    """SQLite's WAL checksum (walChecksumBytes) of ``data`` (a multiple of 8 bytes), going on
    from ``start``."""
    words = struct.unpack((">" if big_endian else "<") + f"{len(data) // 4}I", data)
    s1, s2 = start
    for i in range(0, len(words), 2):
        s1 = (s1 + words[i] + s2) & 0xFFFFFFFF
        s2 = (s2 + words[i + 1] + s1) & 0xFFFFFFFF
    return s1, s2


@dataclass(frozen=True)
class ShmHeader:
    page_size: int
    frames: int  # mxFrame: the last committed frame
    salts: bytes
    commits: int  # iChange: one more at every commit
    cksum: tuple[int, int]  # aFrameCksum: the running checksum of frame ``frames``
    big_endian: bool  # bigEndCksum

    def mark(self) -> WalMark:
        return WalMark(self.salts, self.frames, self.commits, self.cksum, self.page_size,
                       self.big_endian)


class SqliteFiles:
    """The database, its ``-wal`` and ``-shm``, read through SQLite's own descriptors."""

    SUFFIXES = ("", "-wal", "-shm")

    def __init__(self, db_path: str) -> None:
        self.fds: dict[str, int] = {}
        self.ids: dict[str, tuple[int, int]] = {}
        wanted: dict[tuple[int, int], str] = {}
        for suffix in self.SUFFIXES:
            try:
                st = os.stat(db_path + suffix)
            except OSError:
                continue
            self.ids[suffix] = (st.st_dev, st.st_ino)
            wanted[(st.st_dev, st.st_ino)] = suffix
        try:
            names = os.listdir("/proc/self/fd")
        except OSError:
            return
        for name in names:
            try:
                fd = int(name)
                st = os.fstat(fd)
            except (OSError, ValueError):
                continue
            found = wanted.get((st.st_dev, st.st_ino))
            if found is not None and found not in self.fds:
                self.fds[found] = fd

    def read(self, suffix: str, offset: int, size: int) -> bytes:
        fd = self.fds.get(suffix)
        if fd is None:
            raise OSError(f"no descriptor of the database's {suffix or 'main'} file")
        return os.pread(fd, size, offset)

    def still_theirs(self) -> bool:
        """Every descriptor read still names the file it did (none closed and reused)."""
        for suffix, fd in self.fds.items():
            try:
                st = os.fstat(fd)
            except OSError:
                return False
            if (st.st_dev, st.st_ino) != self.ids.get(suffix):
                return False
        return True


def read_shm_header(files: SqliteFiles) -> ShmHeader | None:
    """The wal-index header as a reader would take it, or None when it cannot be trusted."""
    try:
        raw = files.read("-shm", 0, 2 * SHM_HEADER)
    except OSError:
        return None
    if len(raw) < 2 * SHM_HEADER or raw[:SHM_HEADER] != raw[SHM_HEADER:]:
        return None
    native = "<" if sys.byteorder == "little" else ">"
    version, _unused, change, is_init, big, size, mx_frame, _npage, c1, c2 = struct.unpack(
        native + "IIIBBHIIII", raw[:32])
    if version != SHM_VERSION or not is_init:
        return None
    stored = struct.unpack(native + "II", raw[40:48])
    if _checksum(raw[:40], sys.byteorder == "big") != stored:
        return None
    page_size = 65536 if size == 1 else size
    return ShmHeader(page_size=page_size, frames=mx_frame, salts=raw[32:40], commits=change,
                     cksum=(c1, c2), big_endian=bool(big))


def _varint(buf: bytes, at: int) -> tuple[int, int]:
    """An SQLite varint at ``at``: (value, offset after it)."""
    value = 0
    for i in range(8):
        byte = buf[at + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    return (value << 8) | buf[at + 8], at + 9


def leaf_rowids(page: bytes, page_no: int) -> list[int] | bool:
    """A page image: the rowids of a table leaf with cells, ``True`` for any other b-tree
    page or an empty leaf, ``False`` for a page that is not a b-tree page."""
    start = 100 if page_no == 1 else 0
    kind = page[start]
    if kind not in BTREE_PAGES:
        return False
    if kind != TABLE_LEAF:
        return True
    cells = struct.unpack(">H", page[start + 3:start + 5])[0]
    if not cells:
        return True
    rowids = []
    pointers = start + 8
    for at in struct.unpack(f">{cells}H", page[pointers:pointers + 2 * cells]):
        _size, at = _varint(page, at)
        rowid, _ = _varint(page, at)
        rowids.append(rowid - (1 << 64) if rowid >= 1 << 63 else rowid)
    return rowids


def mark_now(db_path: str) -> WalMark | None:
    """Where the log ends now (read *before* the rows it stands for are read)."""
    files = SqliteFiles(db_path)
    head = read_shm_header(files)
    if head is None or not files.still_theirs():
        return None
    return head.mark()


def rowids_since(db_path: str, mark: WalMark) -> tuple[WalMark, set[int]] | None:
    """The rowids on every table leaf committed after ``mark`` (any table's: a superset of
    the facts rows inserted or updated since) and the new mark, or None when they might not
    cover every such row (see the module docstring)."""
    files = SqliteFiles(db_path)
    head = read_shm_header(files)
    if head is None or (mark.frames and head.page_size != mark.page_size):
        return None  # (an empty log's header has no page size yet)
    if head.salts == mark.salts:
        if head.frames < mark.frames:
            return None
        older: list[bytes] = []
        first = mark.frames
    else:  # a new log since the mark: what is left of the mark's log after it, then all
        older = _rest_of_log(files, mark)
        first = 0
    if head.frames - first + len(older) > MAX_FRAMES:
        return None
    newer = _frames(files, head, first)
    if newer is None:
        return None
    frames = older + newer
    if _commits(frames) != (head.commits - mark.commits) % (1 << 32):
        return None  # a commit since the mark is in no frame read: the log restarted after it
    rowids: set[int] = set()
    other: set[int] = set()  # pages that are no b-tree page: free now, or else "cannot say"
    for data in frames:
        page_no = struct.unpack(">I", data[:4])[0]
        found = leaf_rowids(data[FRAME_HEADER:], page_no)
        if found is False:
            other.add(page_no)
        elif isinstance(found, list):
            rowids.update(found)
    if other and not other <= (free_pages(files, head) or set()):
        return None  # an overflow page (a row's tail, without its rowid) may have changed
    again = read_shm_header(files)
    if again is None or again.salts != head.salts or again.frames < head.frames:
        return None  # the log restarted while it was read: its frames may be another's
    if not files.still_theirs():
        return None
    return head.mark(), rowids


def _frames(files: SqliteFiles, head: ShmHeader, first: int) -> list[bytes] | None:
    """The committed frames of the log after its first ``first``, each checked to be this
    log's (its salts)."""
    if head.frames <= first:
        return []
    frame_size = FRAME_HEADER + head.page_size
    want = (head.frames - first) * frame_size
    try:
        top = files.read("-wal", 0, WAL_HEADER)
        data = files.read("-wal", WAL_HEADER + first * frame_size, want)
    except OSError:
        return None
    if len(top) < WAL_HEADER or top[16:24] != head.salts or len(data) != want:
        return None
    frames = [data[at:at + frame_size] for at in range(0, want, frame_size)]
    if any(f[8:16] != head.salts for f in frames):
        return None
    return frames


def _rest_of_log(files: SqliteFiles, mark: WalMark) -> list[bytes]:
    """The frames the mark's log still holds after the mark, where a new log has not yet
    written over them: each with the mark's salts and a checksum chained from the frame
    before (the mark's own, then each read). It stops at the first frame that is not, or
    at ``MAX_OLD_FRAMES``; what it misses, the caller's count of commits shows."""
    if mark.frames == 0:
        return []  # no frame to chain from (and a new log starts where its frames were)
    frame_size = FRAME_HEADER + mark.page_size
    at = WAL_HEADER + mark.frames * frame_size
    cksum = mark.cksum
    out: list[bytes] = []
    while len(out) < MAX_OLD_FRAMES:
        try:
            data = files.read("-wal", at, frame_size)
        except OSError:
            break
        if len(data) != frame_size or data[8:16] != mark.salts:
            break
        cksum = _checksum(data[FRAME_HEADER:], mark.big_endian,
                          _checksum(data[:8], mark.big_endian, cksum))
        if cksum != struct.unpack(">II", data[16:24]):
            break  # written over (or being written) by the new log: the count tells
        out.append(data)
        at += frame_size
    return out


def _commits(frames: list[bytes]) -> int:
    """How many commits end in ``frames``: frames marked as a commit (a database size in
    their header), a frame repeating the commit frame before it not counted again (SQLite
    pads a synced commit to a sector boundary with copies of its last frame). A count never
    above the commits the frames hold: equal to the wal-index's count, none is missing."""
    n = 0
    before = b""
    for data in frames:
        if data[4:8] == b"\0\0\0\0":
            before = b""
            continue
        same = bool(before) and data[:8] == before[:8] and data[FRAME_HEADER:] == before[FRAME_HEADER:]
        if not same:
            n += 1
        before = data
    return n


class _Pages:
    """Each page's latest image as of the log's last commit ``head.frames``: from its last
    frame in the log, else from the database file."""

    def __init__(self, files: SqliteFiles, head: ShmHeader) -> None:
        self.files = files
        self.size = head.page_size
        self.latest: dict[int, int] = {}
        frame = FRAME_HEADER + head.page_size
        for i in range(head.frames):
            self.latest[struct.unpack(">I", files.read("-wal", WAL_HEADER + i * frame, 4))[0]] = i

    def image(self, page_no: int) -> bytes:
        frame = self.latest.get(page_no)
        if frame is not None:
            data = self.files.read(
                "-wal", WAL_HEADER + frame * (FRAME_HEADER + self.size) + FRAME_HEADER, self.size)
        else:
            data = self.files.read("", (page_no - 1) * self.size, self.size)
        if len(data) != self.size:
            raise OSError(f"page {page_no} is past the end of the file")
        return data


def free_pages(files: SqliteFiles, head: ShmHeader) -> set[int] | None:
    """Every page on the freelist (trunks and leaves) as of ``head``, or None when it cannot be
    read whole (https://www.sqlite.org/fileformat2.html §1.5)."""
    try:
        pages = _Pages(files, head)
        first = pages.image(1)
        trunk, total = struct.unpack(">II", first[32:40])
        free: set[int] = set()
        while trunk:
            if trunk in free or len(free) > total:
                return None
            free.add(trunk)
            image = pages.image(trunk)
            trunk, leaves = struct.unpack(">II", image[:8])
            if leaves > (len(image) - 8) // 4:
                return None
            free.update(struct.unpack(f">{leaves}I", image[8:8 + 4 * leaves]))
    except (OSError, struct.error):
        return None
    return free if len(free) == total else None
