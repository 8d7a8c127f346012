"""One hygiene scan over the beliefs (current, or as of a time): every flag, in one read.

Rows stream in id order (one pass, no sort: SQLite walks an index it already has). The row
rules (code map, compound, over-limit, pins) run on each row as it passes. For near-duplicates
each subject keeps its first 1,000 rows by id — the rows the reference's ``nearDuplicates``
reads; a subject's block is compared (tokenised) as soon as it is full and dropped, the rest at
the end, so memory holds at most 1,000 texts per subject. The report names the subjects that
had more.

``scan`` runs on the thread that owns ``store``; a UI calls ``scan_path`` from a worker thread
(its own read-only Store), with ``progress`` and ``cancel``. Nothing here writes.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memharness_tui.store.hygiene_similarity import (
    MIN_SIMILARITY,
    SUBJECT_CAP,
    unpack_embedding,
)
from memharness_tui.store.timeutil import normalize_iso

from .content import scan_content
from .pairs import block_pairs, clusters, cosine_pairs
from .rules import MAX_FACT_CHARS, atomicity_rule, js_length, looks_like_code_map, subject_key
from .types import (
    CapNote,
    ChainAnomaly,
    CodeMapFlag,
    CompoundFlag,
    DuplicateGroup,
    Fragment,
    HygieneReport,
    PinFlag,
)

if TYPE_CHECKING:
    from memharness_tui.store import Store

__all__ = ["ScanCancelled", "scan", "scan_path"]

Progress = Callable[[int, int], None]
"""Told ``(rows read, rows to read)`` every few thousand rows and at the end."""

#: Rows between progress reports and cancel checks.
PROGRESS_EVERY = 5_000
#: A table this big is compared in worker processes (about 0.2 s to start one).
PARALLEL_FROM_ROWS = 200_000
MAX_WORKERS = 2
#: Blocks handed to workers and not yet answered, at most (each up to 1,000 texts).
MAX_PENDING = 8
#: Pairs of embedded rows compared by cosine per subject at most (pure Python, ~20 µs a pair
#: at 384 dimensions); a subject with more is named in the report (``cosine_skipped``).
COSINE_PAIR_BUDGET = 20_000


class ScanCancelled(Exception):  # noqa: N818 - a signal, not an error
    """The caller's ``cancel`` was set; the scan stopped (nothing was written)."""


class _Comparer:
    """Compares subject blocks inline, or (a big table on several cores) in worker processes
    while this one keeps reading; at most ``MAX_PENDING`` blocks wait, so memory stays bounded."""

    def __init__(self, store: Store, report: HygieneReport, threshold: float,
                 workers: int) -> None:
        self.store, self.report, self.threshold = store, report, threshold
        self.pending: deque[tuple[_Block, list[int], list[str], list[int | None], Future[Any]]]
        self.pending = deque()
        self.pool: ProcessPoolExecutor | None = None
        if workers > 0:
            ctx = multiprocessing.get_context("spawn")  # safe from a thread (the app's worker)
            self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx)

    def submit(self, b: _Block) -> None:
        ids, facts, dims = b.ids, b.facts, b.dims
        b.done = True
        b.ids, b.facts, b.dims = [], [], []
        if len(ids) < 2:
            return
        if self.pool is None or len(ids) < 50:
            _record(self.store, b.subject, ids, facts, dims,
                    block_pairs(facts, self.threshold), self.report, self.threshold)
            return
        fut = self.pool.submit(block_pairs, facts, self.threshold)
        self.pending.append((b, ids, facts, dims, fut))
        while len(self.pending) > MAX_PENDING:
            self._collect_one()

    def _collect_one(self) -> None:
        b, ids, facts, dims, fut = self.pending.popleft()
        _record(self.store, b.subject, ids, facts, dims, fut.result(), self.report,
                self.threshold)

    def drain(self) -> None:
        while self.pending:
            self._collect_one()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


@dataclass
class _Block:
    subject: str
    count: int = 0
    ids: list[int] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    dims: list[int | None] = field(default_factory=list)
    done: bool = False


def scan_path(path: str, *, as_of: str | None = None, progress: Progress | None = None,
              cancel: threading.Event | None = None, min_similarity: float = MIN_SIMILARITY,
              workers: int | None = None) -> HygieneReport:
    """``scan`` on a read-only Store of its own (for a worker thread)."""
    from memharness_tui.store import Store

    with Store.open(path, readonly=True) as store:
        store.without_memory_map()
        return scan(store, as_of=as_of, progress=progress, cancel=cancel,
                    min_similarity=min_similarity, workers=workers)


def scan(store: Store, *, as_of: str | None = None, progress: Progress | None = None,
         cancel: threading.Event | None = None, min_similarity: float = MIN_SIMILARITY,
         workers: int | None = None) -> HygieneReport:
    """Every hygiene flag over the beliefs at ``as_of`` (default: now). Raises ScanCancelled.

    ``workers``: processes comparing subjects while this one reads (None: one per core, at
    most two, once the table has ``PARALLEL_FROM_ROWS`` rows; 0: all inline). The answer is
    the same either way.
    """
    t = normalize_iso(as_of, "as_of") if as_of is not None else None
    total = store.hygiene_row_count()
    if workers is None:
        # this process mostly reads (a fifth of the work at 1M rows): one worker per core
        workers = min(MAX_WORKERS, os.cpu_count() or 1) if total >= PARALLEL_FROM_ROWS else 0
    report = HygieneReport(as_of=t, min_similarity=min_similarity)
    comparer = _Comparer(store, report, min_similarity, workers)
    try:
        _read(store, t, total, report, comparer, progress, cancel)
    finally:
        comparer.close()
    report.chains = _chain_anomalies(store, t)
    scan_content(store, report, t)
    return report


def _read(store: Store, t: str | None, total: int,
          report: HygieneReport, comparer: _Comparer, progress: Progress | None,
          cancel: threading.Event | None) -> None:
    blocks: dict[str, _Block] = {}
    read = 0

    for chunk in store.hygiene_rows(as_of=t, chunk=PROGRESS_EVERY):
        if cancel is not None and cancel.is_set():
            raise ScanCancelled("the hygiene scan was cancelled; nothing was written")
        for fid, subject, fact, commit, freshness, path, dim in chunk:
            block = blocks.get(subject)
            if block is None:
                block = blocks[subject] = _Block(subject)
            block.count += 1
            if not block.done:
                block.ids.append(fid)
                block.facts.append(fact)
                block.dims.append(dim)
                if block.count == SUBJECT_CAP:
                    comparer.submit(block)
            _row_rules(report, fid, subject, fact, commit, freshness, path)
        read += len(chunk)
        if progress is not None:
            progress(read, total)
    by_key: dict[str, list[tuple[str, int]]] = {}
    for block in blocks.values():
        if not block.done:
            comparer.submit(block)
        by_key.setdefault(subject_key(block.subject), []).append((block.subject, block.count))
        if block.count > SUBJECT_CAP:
            report.capped.append(CapNote(block.subject, block.count, SUBJECT_CAP))
    comparer.drain()
    report.capped.sort(key=lambda c: (-c.count, c.subject))
    report.rows = read
    report.fragments = sorted(
        (Fragment(key, sorted(subjects, key=lambda sc: (-sc[1], sc[0])))
         for key, subjects in by_key.items() if len(subjects) > 1),
        key=lambda f: (-sum(c for _, c in f.subjects), f.key),
    )
    report.duplicates.sort(key=lambda g: (-len(g.ids), -g.max_similarity, g.ids[0]))
    if progress is not None:
        progress(read, max(total, read))


def _row_rules(report: HygieneReport, fid: int, subject: str, fact: str,
               commit: str | None, freshness: str | None, path: str | None) -> None:
    n = len(fact) if fact.isascii() else js_length(fact)
    if n > MAX_FACT_CHARS:
        report.over_limit.append(CompoundFlag(fid, subject, "over-limit", n, fact))
    elif (";" in fact and n > 60) or n > 280:
        rule = atomicity_rule(fact)
        if rule is not None:
            report.compound.append(CompoundFlag(fid, subject, rule, n, fact))
    if commit is None and subject.startswith("project:") and n >= 200 \
            and looks_like_code_map(fact):
        report.code_maps.append(CodeMapFlag(fid, subject, n, fact))
    if freshness == "stale" or freshness == "unresolved":
        report.pins.append(PinFlag(fid, subject, freshness, path, fact))


def _record(store: Store, subject: str, ids: list[int], facts: list[str],
            dims: list[int | None], pairs: dict[tuple[int, int], float],
            report: HygieneReport, threshold: float) -> None:
    """Fold in the cosine leg, then add the block's groups to the report."""
    embedded = [i for i, d in enumerate(dims) if d]
    if len(embedded) > 1:
        n = len(embedded)
        if n * (n - 1) // 2 > COSINE_PAIR_BUDGET:
            report.cosine_skipped.append(CapNote(subject, n, 0))
        else:
            vectors: list[tuple[float, ...] | None] = [None] * len(ids)
            wanted = {ids[i]: i for i in embedded}
            for fid, blob in store.hygiene_embeddings(list(wanted)):
                i = wanted[fid]
                vectors[i] = unpack_embedding(blob, dims[i])
            for key, cos in cosine_pairs(vectors, threshold).items():
                if cos > pairs.get(key, -1.0):
                    pairs[key] = cos
    if not pairs:
        return
    for group in clusters(len(ids), pairs):
        inside = set(group)
        links = sorted(((ids[x], ids[y], s) for (x, y), s in pairs.items()
                        if x in inside), key=lambda p: (-p[2], p[0], p[1]))
        report.duplicates.append(DuplicateGroup(
            subject=subject, ids=[ids[x] for x in group],
            facts={ids[x]: facts[x] for x in group}, pairs=links))


def _chain_anomalies(store: Store, t: str | None) -> list[ChainAnomaly]:
    """E3: retractions in the middle of a chain, and live heads with a retracted ancestor.

    At ``t`` a row counts only once written (``tx_at <= t``), a retraction only once made.
    """
    def known(row: Any) -> bool:
        return row is not None and (t is None or row[1] <= t)

    out: list[ChainAnomaly] = []
    for rid, subject, retracted_at, succ in store.retracted_links():
        if t is not None and retracted_at > t:
            continue
        row: Any = store.chain_link(succ)
        if not known(row):
            continue  # not yet superseded at t
        if retracted_at > row[1]:
            out.append(ChainAnomaly("mid-chain-retraction", rid, subject, row[0]))
        seen = {rid, row[0]}
        while row[2] is not None:
            nxt: Any = store.chain_link(row[2])
            if not known(nxt) or nxt[0] in seen:
                break
            seen.add(nxt[0])
            row = nxt
        if row[3] is None or (t is not None and row[3] > t):
            out.append(ChainAnomaly("retracted-ancestor", row[0], subject, rid))
    out.sort(key=lambda a: (a.kind, a.id, a.related))
    return out
