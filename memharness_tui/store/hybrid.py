"""Hybrid recall's SQL and the embedding columns (the reference's ``hybridRecallQuery``,
``SET_EMBEDDING``, ``EMBED_TARGETS``, ``COUNT_EMBEDDED``), kept apart from sql.py.

A vector is stored as the reference stores it: little-endian float32, one after another,
with its dimension in ``embedding_dim`` and the model's name in ``embedding_model``.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

from .errors import MemharnessError
from .sql import COLS, DECAY, FRESHNESS_FACTOR, IMPORTANCE_BOOST, LIMIT, run_time

SET_EMBEDDING = (
    "UPDATE facts SET embedding = :embedding, embedding_dim = :dim, embedding_model = :model "
    "WHERE id = :id"
)
COUNT_EMBEDDED = "SELECT COUNT(*) FROM facts WHERE embedding IS NOT NULL"
# Facts lacking a usable vector from the model: none, another model's or an unnamed one, or a
# damaged one (a blob that does not hold embedding_dim float32 numbers; see DAMAGED_AT_DIM).
_NEEDS_VECTOR = """embedding IS NULL OR embedding_model IS NULL OR embedding_model != :model
  OR embedding_dim IS NULL OR length(embedding) != 4 * embedding_dim"""
EMBED_TARGETS = f"""SELECT id, subject, predicate, fact FROM facts
WHERE {_NEEDS_VECTOR}
ORDER BY id {LIMIT}"""
COUNT_EMBED_TARGETS = f"""SELECT COUNT(*) FROM facts
WHERE {_NEEDS_VECTOR}"""
# The rows the vector leg reads (embedding_dim = the query's) whose blob is not that many
# float32 numbers: sqlite-vec refuses the whole query on any one of them.
DAMAGED_AT_DIM = """SELECT id FROM facts
WHERE embedding IS NOT NULL AND embedding_dim = :dim AND length(embedding) != 4 * :dim
ORDER BY id LIMIT 11"""
# The dimensions at which the vector leg would meet a damaged vector (one scan, as the leg's).
DAMAGED_DIMS = """SELECT DISTINCT embedding_dim FROM facts
WHERE embedding IS NOT NULL AND typeof(embedding_dim) = 'integer' AND embedding_dim > 0
  AND length(embedding) != 4 * embedding_dim
ORDER BY 1"""


class DamagedVectors(MemharnessError):
    """Stored vectors of the query's dimension whose blob does not hold that many numbers:
    sqlite-vec refuses the hybrid recall (the reference's recall fails on them the same way)."""

    code = "DAMAGED_VECTORS"


def damaged_vectors(conn: Any, dim: int) -> DamagedVectors | None:
    """The one-sentence error for a vector leg that failed, if damaged vectors explain it."""
    ids = [int(r[0]) for r in conn.execute(DAMAGED_AT_DIM, {"dim": dim})]
    if not ids:
        return None
    shown = ", ".join(f"#{i}" for i in ids[:10]) + (" and more" if len(ids) > 10 else "")
    return DamagedVectors(
        f"hybrid recall cannot run: the stored vector of {shown} is not {dim} numbers as its "
        "embedding_dim says, and sqlite-vec refuses the query (the agent's hybrid recall "
        "fails on it too); `memharness-tui reembed` replaces damaged vectors")
# Vector coverage and model mix (doctor, reembed's note): (model, dim, count) per pair.
MODEL_MIX = """SELECT embedding_model, embedding_dim, COUNT(*) FROM facts
WHERE embedding IS NOT NULL GROUP BY embedding_model, embedding_dim ORDER BY 3 DESC, 1, 2"""


def to_blob(vector: Sequence[float]) -> tuple[bytes, int]:
    """The vector as the reference packs it (``Float32Array``: little-endian float32), and its length."""
    values = [float(v) for v in vector]
    return struct.pack(f"<{len(values)}f", *values), len(values)


def hybrid_recall_query(*, fts: bool, vec: bool, filters: list[str]) -> str:
    """RRF-fuse the FTS rank list and the vector-KNN rank list, then confidence × importance ×
    decay × freshness: the reference's ``hybridRecallQuery``, term for term, so scores are the
    same doubles. Either leg may be absent. The candidate CTEs are the reference's; the outer
    query looks the (at most ``2 × cap``) candidates up by id instead of scanning ``facts``,
    which selects the same rows."""
    ctes: list[str] = []
    if fts:
        ctes.append(
            "fts AS MATERIALIZED (SELECT rowid AS id, row_number() OVER (ORDER BY rank) AS r "
            f"FROM facts_fts WHERE facts_fts MATCH :match ORDER BY rank LIMIT {run_time('cap')})"
        )
    if vec:
        ctes.append(
            "vec AS MATERIALIZED (SELECT id, row_number() OVER "
            "(ORDER BY vec_distance_cosine(embedding, :query_vec)) AS r "
            "FROM facts WHERE embedding IS NOT NULL AND embedding_dim = :query_dim "
            f"ORDER BY vec_distance_cosine(embedding, :query_vec) LIMIT {run_time('cap')})"
        )
    fts_rrf = "(CASE WHEN fts.id IS NULL THEN 0 ELSE 1.0/(:rrf_k + fts.r) END)" if fts else "0"
    vec_rrf = "(CASE WHEN vec.id IS NULL THEN 0 ELSE 1.0/(:rrf_k + vec.r) END)" if vec else "0"
    legs = [name for name, on in (("fts", fts), ("vec", vec)) if on]
    candidates = " UNION ".join(f"SELECT id FROM {leg}" for leg in legs)
    joins = " ".join(f"LEFT JOIN {leg} ON {leg}.id = f.id" for leg in legs)
    where = " AND ".join([f"f.id IN ({candidates})", *filters])
    with_ctes = ",\n".join(ctes)
    return f"""WITH {with_ctes}
SELECT {COLS}, {"fts.r" if fts else "NULL"} AS fts_rank, {"vec.r" if vec else "NULL"} AS vec_rank,
  ({fts_rrf} + {vec_rrf}) * f.confidence * {IMPORTANCE_BOOST} * {DECAY} * {FRESHNESS_FACTOR} AS score
FROM facts f {joins}
WHERE {where}
ORDER BY score DESC, f.tx_at DESC, f.id DESC
{LIMIT}"""
