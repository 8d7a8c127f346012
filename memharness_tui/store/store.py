"""The Store: the one way the app and the CLI read and write a memharness database.

A facade over named parts, each an object given the open file it works on
(``handle.StoreFile``: the connection, the write transaction, "now") and, where it needs
them, its sibling parts:

- ``_writes``: remember, revise, downgrade, forget (``writes.py``)
- ``_verdicts``: the staleness writer and the pass's work list (``verdict_writer.py``)
- ``_recall``: SPEC §7 (``recall.py``; its age bound, ``age_bound.py``)
- ``_first_screen``: a quick first answer for the scanning recalls (``first_screen.py``)
- ``_browse``: a fact, changes, stats, counts, subjects, pages, the flagged list (``browse.py``)
- ``_scans``: whole-table scans split across cores (``split_scan.py``)
- ``_answers``: answers remembered per snapshot (``remembered.py``)
- ``_embeddings``: the embedding columns and reembed's work list (``embeddings_io.py``)
- ``_hygiene``: near-duplicates of a new fact (``hygiene_reads.py``)
- ``_context``: the SessionStart hook's text, without reinforcing (``session_context.py``)
- ``_review``: what agents wrote after a review mark (``review_reads.py``)
- ``_hygiene_scan``: the hygiene scan's reads (``hygiene_scan_reads.py``)
- ``_fixes``: the hygiene fixes' one write (``hygiene_writes.py``)
- ``_versions``: every version's text, a row's chain, the writers (``hygiene_versions.py``)
- ``_purge``: rewrite rows' text in place so it is gone from the file (``purge.py``)

Every supersede the user did not word (a downgrade, a still-true, a hygiene fix) re-checks
inside its transaction that its row is still a belief (``beliefs.py``).

Each public method below is its part's method (``_part("_recall", RecallReads.recall)``): one
signature, kept with the code, so a type checker follows a call from here to its SQL.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Concatenate, ParamSpec, TypeVar

from .age_bound import AgeBound
from .browse import BrowseReads
from .clock import Clock, SystemClock
from .db import MemharnessDatabase, open_database
from .driver import sqlite3
from .embeddings_io import EmbeddingIO
from .errors import translate_sqlite
from .first_screen import FirstScreenReads
from .handle import StoreFile
from .hygiene_reads import NearDuplicateReads
from .hygiene_scan_reads import HygieneScanReads
from .hygiene_versions import VersionReads
from .hygiene_writes import HygieneWrites
from .models import FactModel
from .neighbours import Neighbours, nearest
from .purge import Purger
from .recall import RecallReads
from .remembered import Remembered
from .review_reads import ReviewReads
from .session_context import ContextReads
from .split_scan import SplitScanner, SplitScans
from .types import RankingSettings
from .verdict_writer import VerdictWriter
from .writes import FactWrites

_P = ParamSpec("_P")
_R = TypeVar("_R")
_Part = TypeVar("_Part")


def _part(name: str, method: Callable[Concatenate[_Part, _P], _R]
          ) -> Callable[Concatenate[Store, _P], _R]:
    """``Store.<method>``: ``method`` called on the Store's part named ``name``."""

    @functools.wraps(method)
    def call(self: Store, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return method(getattr(self, name), *args, **kwargs)

    return call


class Store:
    """A memharness store on one SQLite file. Use one Store per thread.

    A fresh file (absent, or an empty SQLite file) is not touched by opening it: reads
    answer as an empty store (``is_new``), and the first ``remember`` creates the schema
    and its row in one transaction — so a read or a refused write leaves it as it was.
    """

    def __init__(self, file: StoreFile) -> None:
        """The facade over ``file`` (the open file, ``handle.StoreFile``) and its parts; use
        :meth:`open`, which opens the file."""
        self._file = file
        self._answers = Remembered(self._file)
        self._scans = SplitScans(self._file)
        self._browse = BrowseReads(self._file, self._scans, self._answers)
        self._age = AgeBound(self._file)
        self._recall = RecallReads(self._file, self._scans, self._age)
        self._first_screen = FirstScreenReads(self._file, self._recall)
        self._writes = FactWrites(self._file)
        self._verdicts = VerdictWriter(self._file)
        self._embeddings = EmbeddingIO(self._file)
        self._hygiene = NearDuplicateReads(self._file)
        self._context = ContextReads(self._file, self._recall, self._browse)
        self._review = ReviewReads(self._file)
        self._hygiene_scan = HygieneScanReads(self._file)
        self._fixes = HygieneWrites(self._file)
        self._versions = VersionReads(self._file)
        self._purge = Purger(self._file)

    @classmethod
    def open(
        cls,
        path: str | None = None,
        *,
        clock: Clock | None = None,
        ranking: RankingSettings | None = None,
        readonly: bool = False,
        trust_clock: bool = False,
        create_folder: bool | None = None,
    ) -> Store:
        """Open (migrating as needed) the store at ``path`` or the SPEC §1 default.

        ``trust_clock``: "now" is the clock's alone, even when the file holds newer tx_at
        (for ``--now`` audits); by default a writer whose clock runs ahead moves "now".
        ``create_folder``: whether a missing folder may be created on the first write;
        by default only for the default location — an explicit path in a folder that does
        not exist is refused (FolderMissing), since it is most likely a typo.
        A file that cannot be written (read-only file or folder) opens read-only, with
        ``readonly_reason`` saying why.
        """
        if path is None:
            from ..paths import default_db_path

            path = default_db_path()
            if create_folder is None:
                create_folder = True
        path = str(path)
        if path != ":memory:":
            path = os.path.expanduser(path)
        create = bool(create_folder)
        with translate_sqlite(path):
            opened = open_database(path, readonly=readonly, create_folder=create)
        return cls(StoreFile(
            path,
            opened.db,
            schema_version=opened.version,
            clock=clock or SystemClock(),
            ranking=ranking or RankingSettings(),
            readonly=opened.readonly,
            migration_note=opened.note,
            trust_clock=trust_clock,
            fresh=opened.fresh,
            readonly_reason=opened.readonly_reason,
            create_folder=create,
        ))

    def twin_opener(self, pause: Callable[[], bool] | None = None
                    ) -> Callable[[], Store] | None:
        """How to open a second, read-only Store on this file for the scanning reads (call it
        on the thread that will use it; None: no file to share yet, or ``:memory:``).

        The twin has this store's clock and settings, so its answers equal this store's; it
        reads without a memory map (scanning a mapped file keeps every page resident) and
        splits its whole-table scans, the extra range giving way while ``pause()`` is true.
        """
        if not self.on_disk:
            return None
        opener, path, f = type(self).open, self.path, self._file
        clock, ranking, trust_clock = f.clock, f.ranking, f.trust_clock

        def open_twin() -> Store:
            twin = opener(path, readonly=True, clock=clock, ranking=ranking,
                          trust_clock=trust_clock)
            twin.without_memory_map()
            twin.split_scans(pause=pause)
            return twin

        return open_twin

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the file (handle.py) ----------------------------------------------------------

    def close(self) -> None:
        self._file.close()

    def file_problem(self) -> str | None:
        """One sentence when ``path`` no longer names the file this store has open (it was
        deleted, or another file was moved over it); None while it still does. One stat."""
        return self._file.file_problem()

    def check_file(self) -> None:
        """Raise :class:`FileReplaced` (and let go of the old file) when the path no longer
        names the open file: before each write, on the app's poll, before a pass's batch."""
        self._file.check_file()

    def now(self) -> str:
        """A fresh timestamp from the store's clock (consumes one)."""
        return self._file.now()

    def _effective_now(self, clock_now: str) -> str:
        """The later of the clock's now and the newest tx_at in the file."""
        return self._file.effective_now(clock_now)

    @property
    def conn(self) -> sqlite3.Connection:
        return self._file.conn

    def _writable(self) -> None:
        """Refuse (one sentence) a write to a read-only or replaced file."""
        self._file.writable()

    def _write(self, *, creates: bool = False) -> AbstractContextManager[sqlite3.Connection]:
        """The store's write transaction (``StoreFile.write``), for tests that set up rows
        no agent tool writes; the program's writes are the parts' methods."""
        return self._file.write(creates=creates)

    @property
    def on_disk(self) -> bool:
        """Whether the store's file exists with its schema, so another connection (a second,
        read-only Store) can open it: False for ``:memory:`` and a fresh store not yet written."""
        return self._file.on_disk

    @property
    def path(self) -> str:
        return self._file.path

    @property
    def clock(self) -> Clock:
        return self._file.clock

    @clock.setter
    def clock(self, clock: Clock) -> None:
        """Replace the clock every part stamps with (a test's or an audit's)."""
        self._file.clock = clock

    @property
    def ranking(self) -> RankingSettings:
        return self._file.ranking

    @property
    def trust_clock(self) -> bool:
        return self._file.trust_clock

    @property
    def readonly(self) -> bool:
        return self._file.readonly

    @property
    def readonly_reason(self) -> str | None:
        """Why a read-write open fell back to read-only (None when asked for, or writable)."""
        return self._file.readonly_reason

    @property
    def migration_note(self) -> str | None:
        return self._file.migration_note

    @property
    def schema_version(self) -> int:
        return self._file.schema_version

    @property
    def is_new(self) -> bool:
        """The file was absent or empty when opened: the app shows a "new, empty store" notice.
        Stays True for this Store's lifetime (the first write creates the file)."""
        return self._file.is_new

    @property
    def Fact(self) -> type[FactModel]:  # noqa: N802 (the Peewee model's own name)
        return self._file.Fact

    @property
    def _db(self) -> MemharnessDatabase:
        return self._file.db

    @property
    def _splitter(self) -> SplitScanner | None:
        return self._file.splitter

    # --- writes (writes.py) --------------------------------------------------------------

    remember = _part("_writes", FactWrites.remember)
    revise = _part("_writes", FactWrites.revise)
    downgrade = _part("_writes", FactWrites.downgrade)
    forget = _part("_writes", FactWrites.forget)

    # --- the staleness writer (verdict_writer.py) ---------------------------------------

    staleness_targets = _part("_verdicts", VerdictWriter.staleness_targets)
    backfill_candidates = _part("_verdicts", VerdictWriter.backfill_candidates)
    set_staleness = _part("_verdicts", VerdictWriter.set_staleness)
    set_staleness_many = _part("_verdicts", VerdictWriter.set_staleness_many)

    # --- recall (recall.py) -----------------------------------------------------------

    recall = _part("_recall", RecallReads.recall)
    recall_first_screen = _part("_first_screen", FirstScreenReads.recall_first_screen)
    # the SessionStart hook's text, never reinforcing (session_context.py)
    session_context = _part("_context", ContextReads.session_context)
    # what agents wrote after a review mark (review_reads.py)
    review_queue = _part("_review", ReviewReads.review_queue)
    review_count = _part("_review", ReviewReads.review_count)
    review_head = _part("_review", ReviewReads.review_head)
    # the age bound on its own (tests/store/test_age_bound.py checks its cut dates)
    _recent_enough = _part("_age", AgeBound.recent_enough)

    @property
    def vec_enabled(self) -> bool:
        """Whether sqlite-vec is loaded here (else recall is keyword-only, as the server's)."""
        return self._recall.vec_enabled

    # --- vectors (embeddings_io.py) -----------------------------------------------------

    set_embedding = _part("_embeddings", EmbeddingIO.set_embedding)
    set_embeddings = _part("_embeddings", EmbeddingIO.set_embeddings)
    embed_targets = _part("_embeddings", EmbeddingIO.embed_targets)
    count_embed_targets = _part("_embeddings", EmbeddingIO.count_embed_targets)
    embedded_count = _part("_embeddings", EmbeddingIO.embedded_count)
    model_mix = _part("_embeddings", EmbeddingIO.model_mix)
    damaged_vector_dims = _part("_embeddings", EmbeddingIO.damaged_vector_dims)

    # --- hygiene (hygiene_reads.py) -------------------------------------------------------

    near_duplicates = _part("_hygiene", NearDuplicateReads.near_duplicates)
    hygiene_row_count = _part("_hygiene_scan", HygieneScanReads.hygiene_row_count)
    hygiene_rows = _part("_hygiene_scan", HygieneScanReads.hygiene_rows)
    hygiene_embeddings = _part("_hygiene_scan", HygieneScanReads.hygiene_embeddings)
    retracted_links = _part("_hygiene_scan", HygieneScanReads.retracted_links)
    chain_link = _part("_hygiene_scan", HygieneScanReads.chain_link)
    apply_fix = _part("_fixes", HygieneWrites.apply_fix)
    versions_where = _part("_versions", VersionReads.versions_where)
    versions_matching = _part("_versions", VersionReads.versions_matching)
    chain_ids = _part("_versions", VersionReads.chain_ids)
    version_rows = _part("_versions", VersionReads.version_rows)
    writers = _part("_versions", VersionReads.writers)

    # --- purge (purge.py) ----------------------------------------------------------------

    purge_rows = _part("_purge", Purger.purge_rows)
    purge_leftovers = _part("_purge", Purger.purge_leftovers)

    # --- similar by meaning (neighbours.py) ---------------------------------------------

    def similar_by_meaning(self, fact_id: int, limit: int = 8) -> Neighbours:
        """The current facts nearest ``fact_id`` by cosine over stored vectors (neighbours.py)."""
        with translate_sqlite(self.path, writing=False):
            return nearest(self.conn, fact_id, now=self.clock.peek(), limit=limit,
                           vec_loaded=self.vec_enabled)

    # --- browsing (browse.py) ---------------------------------------------------------

    get = _part("_browse", BrowseReads.get)
    why = _part("_browse", BrowseReads.why)
    diff = _part("_browse", BrowseReads.diff)
    stats = _part("_browse", BrowseReads.stats)
    check_integrity = _part("_browse", BrowseReads.check_integrity)
    largest_id = _part("_browse", BrowseReads.largest_id)
    data_version = _part("_browse", BrowseReads.data_version)
    counts = _part("_browse", BrowseReads.counts)
    marked_counts = _part("_browse", BrowseReads.marked_counts)
    subjects = _part("_browse", BrowseReads.subjects)
    list_facts = _part("_browse", BrowseReads.list_facts)
    flagged = _part("_browse", BrowseReads.flagged)
    # the big-subject walk on its own (tests/store/test_as_of_rule.py checks it is taken)
    _newest_of_big_subject = _part("_browse", BrowseReads._newest_of_big_subject)

    # --- how the whole-table scans run (split_scan.py) -----------------------------------

    without_memory_map = _part("_scans", SplitScans.without_memory_map)
    split_scans = _part("_scans", SplitScans.split_scans)

    @property
    def interrupt_check(self) -> Callable[[], bool] | None:
        """What the split scans' worker threads ask to know that the call they serve was
        cancelled (the gateway sets it around a search)."""
        return self._scans.interrupt_check

    @interrupt_check.setter
    def interrupt_check(self, check: Callable[[], bool] | None) -> None:
        self._scans.interrupt_check = check

