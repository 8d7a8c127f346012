"""Hybrid recall's SQL and the embedding columns (the reference's ``hybridRecallQuery``,
``SET_EMBEDDING``, ``EMBED_TARGETS``, ``COUNT_EMBEDDED``), kept apart from sql.py.

A vector is stored as the reference stores it: little-endian float32, one after another,
with its dimension in ``embedding_dim`` and the model's name in ``embedding_model``.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from .sql import COLS, DECAY, FRESHNESS_FACTOR, IMPORTANCE_BOOST, LIMIT, run_time

SET_EMBEDDING = (
    "UPDATE facts SET embedding = :embedding, embedding_dim = :dim, embedding_model = :model "
    "WHERE id = :id"
)
COUNT_EMBEDDED = "SELECT COUNT(*) FROM facts WHERE embedding IS NOT NULL"
EMBED_TARGETS = f"""SELECT id, subject, predicate, fact FROM facts
WHERE embedding IS NULL OR embedding_model IS NULL OR embedding_model != :model
ORDER BY id {LIMIT}"""
COUNT_EMBED_TARGETS = """SELECT COUNT(*) FROM facts
WHERE embedding IS NULL OR embedding_model IS NULL OR embedding_model != :model"""
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
