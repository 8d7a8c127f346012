"""``Store.near_duplicates``: the reference's ``nearDuplicates``, a pure read (SPEC-free: the
read half of the agent's write-path dedup gate). A part of ``Store`` like ``browse.py``."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

from .errors import InvalidInput
from .hygiene_similarity import (
    MIN_SIMILARITY,
    SUBJECT_CAP,
    SimilarFact,
    cosine_distance,
    jaccard,
    token_set,
    unpack_embedding,
)
from .rows import StorePart, _guarded
from .validation import require_text

# The reference's CURRENT_SUBJECT_FACTS: no ORDER BY, so the cap keeps the rows SQLite meets
# first (idx_facts_subject: the lowest ids). Same text, same plan, same rows.
CURRENT_SUBJECT_FACTS = """SELECT f.id, f.fact FROM facts f
WHERE f.valid_from <= :now AND f.valid_to IS NULL AND f.superseded_by IS NULL
  AND f.retracted_at IS NULL AND f.subject = :subject
LIMIT :cap + 0"""

# The vector leg's candidates: every current same-subject row with an embedding of the query's
# dimension (the reference orders them by distance and keeps the nearest ``cap``).
SUBJECT_EMBEDDED = """SELECT f.id, f.embedding FROM facts f
WHERE f.valid_from <= :now AND f.valid_to IS NULL AND f.superseded_by IS NULL
  AND f.retracted_at IS NULL AND f.subject = :subject
  AND f.embedding IS NOT NULL AND f.embedding_dim = :dim"""


def _check_vector(query_vector: Sequence[float] | None) -> tuple[float, ...] | None:
    if query_vector is None:
        return None
    try:
        vec = tuple(float(x) for x in query_vector)
    except (TypeError, ValueError):
        raise InvalidInput("query_vector must be a sequence of numbers") from None
    if not vec:
        return None
    try:  # the reference packs it as a Float32Array
        return struct.unpack(f"<{len(vec)}f", struct.pack(f"<{len(vec)}f", *vec))
    except (OverflowError, struct.error):
        raise InvalidInput("query_vector must hold float32 numbers") from None


class NearDuplicateReads(StorePart):
    """``Store``'s near-duplicate read (no reinforce, no write, no timestamp consumed)."""

    @_guarded(writing=False)
    def near_duplicates(
        self,
        subject: str,
        text: str,
        query_vector: Sequence[float] | None = None,
        limit: int = 5,
        min_similarity: float = MIN_SIMILARITY,
    ) -> list[SimilarFact]:
        """Current beliefs under ``subject`` similar to ``text``, most similar first.

        As the reference computes it: token Jaccard against the first 1,000 current rows of
        the subject; with a ``query_vector``, the max with the cosine similarity of rows whose
        embedding has its dimension (among the nearest 1,000). Ties keep the rows' read order
        (JavaScript's sort is stable).
        """
        subject = require_text(subject, "subject")
        text = require_text(text, "text")
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise InvalidInput(f"limit must be an integer, got {limit!r}")
        vec = _check_vector(query_vector)
        if limit < 1:
            raise InvalidInput(f"limit must be a positive integer, got {limit}")
        now = self.clock.peek()  # a pure read: consume no timestamp (the reference's peek)
        params = {"now": now, "subject": subject, "cap": SUBJECT_CAP}
        query = token_set(text)
        sims: dict[int, list[Any]] = {}
        for fid, fact in self.conn.execute(CURRENT_SUBJECT_FACTS, params):
            sims[fid] = [fact, jaccard(query, token_set(fact))]
        if vec is not None:
            # ORDER BY dist LIMIT cap: a NULL distance sorts first (and folds in as 1).
            nearest: list[tuple[bool, float, int]] = []
            for fid, blob in self.conn.execute(SUBJECT_EMBEDDED, {**params, "dim": len(vec)}):
                other = unpack_embedding(blob, len(vec))
                if other is None:
                    continue
                dist = cosine_distance(vec, other)
                nearest.append((dist is not None, dist or 0.0, fid))
            nearest.sort(key=lambda n: (n[0], n[1]))
            for has_dist, dist, fid in nearest[:SUBJECT_CAP]:
                cur = sims.get(fid)
                if cur is not None:
                    cos = max(0.0, min(1.0, 1.0 - dist)) if has_dist else 1.0
                    cur[1] = max(cur[1], cos)
        out = [SimilarFact(id=fid, fact=v[0], similarity=v[1]) for fid, v in sims.items()
               if v[1] >= min_similarity]
        out.sort(key=lambda s: -s.similarity)
        return out[:limit]
