"""Similar by meaning: the current facts nearest one fact by cosine over the stored vectors.

No model is needed: the fact's own stored embedding is compared with every current fact's
embedding of the same dimension (sqlite-vec's ``vec_distance_cosine`` when it is loaded,
else the same float32 arithmetic in Python over a bounded number of rows). Similarity is the
reference's fold, ``max(0, min(1, 1 - distance))``. A pure read (no timestamp consumed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .hygiene_similarity import cosine_distance, unpack_embedding

__all__ = ["PYTHON_CAP", "Neighbour", "Neighbours", "nearest"]

#: Without sqlite-vec the comparison runs in Python; it reads at most this many rows.
PYTHON_CAP = 5000

# A damaged vector (a blob that is not embedding_dim float32 numbers) is passed over: sqlite-vec
# would refuse the whole query on it (doctor names such rows).
_CURRENT = ("f.valid_from <= :now AND f.valid_to IS NULL AND f.superseded_by IS NULL "
            "AND f.retracted_at IS NULL")
_ANY_VECTOR = "SELECT 1 FROM facts WHERE embedding IS NOT NULL LIMIT 1"
_OWN = "SELECT embedding, embedding_dim FROM facts WHERE id = :id"
_NEAREST_SQL = f"""SELECT f.id, f.subject, f.fact,
  vec_distance_cosine(f.embedding, :vec) AS dist FROM facts f
WHERE {_CURRENT} AND f.embedding IS NOT NULL AND f.embedding_dim = :dim AND f.id != :id
  AND length(f.embedding) = 4 * :dim
ORDER BY dist IS NULL, dist, f.id LIMIT :limit"""
_CANDIDATES = f"""SELECT f.id, f.subject, f.fact, f.embedding FROM facts f
WHERE {_CURRENT} AND f.embedding IS NOT NULL AND f.embedding_dim = :dim AND f.id != :id
ORDER BY f.id LIMIT :cap"""


@dataclass(frozen=True, slots=True)
class Neighbour:
    """One near fact: its id, subject, text and cosine similarity (0…1)."""

    id: int
    subject: str
    fact: str
    similarity: float


@dataclass(frozen=True)
class Neighbours:
    """The answer for one fact. ``has_vector`` False: the fact carries no stored embedding
    (nothing to compare). ``capped``: without sqlite-vec only the first ``PYTHON_CAP``
    candidates were compared. ``store_has_vectors`` (read when the fact has none): whether any
    fact in the store carries one."""

    fact_id: int
    has_vector: bool
    dim: int | None = None
    items: list[Neighbour] = field(default_factory=list)
    capped: bool = False
    store_has_vectors: bool = True


def _similarity(dist: float | None) -> float:
    return 1.0 if dist is None else max(0.0, min(1.0, 1.0 - dist))


def nearest(conn: Any, fact_id: int, *, now: str, limit: int, vec_loaded: bool) -> Neighbours:
    """The ``limit`` current facts nearest ``fact_id`` (itself left out), nearest first."""
    row = conn.execute(_OWN, {"id": fact_id}).fetchone()
    if row is None:
        from .errors import NotFound

        raise NotFound(f"fact #{fact_id} does not exist")
    blob, dim = row
    vec = unpack_embedding(blob, dim)
    if vec is None:
        any_vector = conn.execute(_ANY_VECTOR).fetchone() is not None
        return Neighbours(fact_id, has_vector=False, store_has_vectors=any_vector)
    params = {"id": fact_id, "dim": dim, "now": now, "limit": limit}
    if vec_loaded:
        items = [Neighbour(i, s, f, _similarity(d))
                 for i, s, f, d in conn.execute(_NEAREST_SQL, {**params, "vec": blob})]
        return Neighbours(fact_id, True, dim, items)
    scored: list[tuple[float, int, str, str]] = []
    n = 0
    for i, s, f, other_blob in conn.execute(_CANDIDATES, {**params, "cap": PYTHON_CAP + 1}):
        n += 1
        if n > PYTHON_CAP:
            break
        other = unpack_embedding(other_blob, dim)
        if other is not None:
            scored.append((_similarity(cosine_distance(vec, other)), i, s, f))
    scored.sort(key=lambda t: (-t[0], t[1]))
    items = [Neighbour(i, s, f, sim) for sim, i, s, f in scored[:limit]]
    return Neighbours(fact_id, True, dim, items, capped=n > PYTHON_CAP)
