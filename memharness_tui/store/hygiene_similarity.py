"""The reference's near-duplicate similarity (``nearDuplicates`` in its core's memory.ts).

Token Jaccard over ``tokenSet`` (lower-cased runs of ``[a-z0-9]`` of at least three
characters, minus a 31-word stop list), folded with cosine similarity (the max of the two)
when both rows carry an embedding of the same dimension. The cosine is what sqlite-vec's
``vec_distance_cosine`` returns, turned into a similarity as the reference does
(``max(0, min(1, 1 - dist))``): float32 products summed one after another in float32, then
``1 - dot / (sqrt(|a|²) · sqrt(|b|²))`` in double, rounded to float32, so the numbers match
to the last bit.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "MIN_SIMILARITY",
    "STOPWORDS",
    "SUBJECT_CAP",
    "SimilarFact",
    "cosine_distance",
    "cosine_similarity",
    "jaccard",
    "token_set",
    "unpack_embedding",
]

#: The reference's default ``minSimilarity``.
MIN_SIMILARITY = 0.5
#: The reference reads at most this many current rows of a subject (``LIMIT @cap``).
SUBJECT_CAP = 1000

STOPWORDS: frozenset[str] = frozenset((
    "the", "and", "for", "are", "was", "but", "not", "you", "all", "any", "can", "her",
    "his", "its", "our", "out", "use", "with", "this", "that", "from", "into", "than",
    "then", "they", "them", "your", "have", "has", "had", "will",
))

# A maximal run of [a-z0-9] of length >= 3 is exactly a piece of text.split(/[^a-z0-9]+/)
# that survives the reference's length filter.
_TOKEN = re.compile(r"[a-z0-9]{3,}")


def token_set(text: str) -> set[str]:
    """``tokenSet(text)``: the significant tokens (JS ``toLowerCase`` and Python's ``lower``
    agree on every character that lower-cases into ASCII)."""
    tokens = set(_TOKEN.findall(text.lower()))
    tokens -= STOPWORDS
    return tokens


def jaccard(a: set[str] | frozenset[str], b: set[str] | frozenset[str]) -> float:
    """``jaccard(a, b)``: 0 when either set is empty."""
    if not a or not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def unpack_embedding(blob: bytes | None, dim: int | None) -> tuple[float, ...] | None:
    """A stored little-endian float32 vector, or None when the row has none (or it is damaged)."""
    if blob is None or not dim or len(blob) != 4 * dim:
        return None
    return struct.unpack(f"<{dim}f", blob)


_F32 = struct.Struct("<f")


def _f32(x: float) -> float:
    """Round a double to the nearest float32 (as a C ``float`` assignment does)."""
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def cosine_distance(a: Iterable[float], b: Iterable[float]) -> float | None:
    """sqlite-vec's ``distance_cosine_float``: float accumulators, one product at a time.

    None where SQLite would hand back NULL: a zero vector makes it 0/0, and SQLite turns a
    NaN result into NULL.
    """
    f = _f32
    dot = a_mag = b_mag = 0.0
    for x, y in zip(a, b, strict=True):
        dot = f(dot + f(x * y))
        a_mag = f(a_mag + f(x * x))
        b_mag = f(b_mag + f(y * y))
    # sqrt() is the double one: the quotient and the subtraction run in double, then the
    # function returns a float.
    denom = math.sqrt(a_mag) * math.sqrt(b_mag)
    if denom == 0.0:
        return None  # 0/0 in C: NaN, which SQLite returns as NULL
    return f(1.0 - dot / denom)


def cosine_similarity(a: tuple[float, ...], b: tuple[float, ...]) -> float | None:
    """The reference's folded cosine ``max(0, min(1, 1 - dist))``; None when the dimensions
    differ (the reference never compares those).

    A NULL distance (a zero vector) is ``1 - null`` = 1 in JavaScript: similarity 1.
    """
    if len(a) != len(b) or not a:
        return None
    dist = cosine_distance(a, b)
    return 1.0 if dist is None else max(0.0, min(1.0, 1.0 - dist))


@dataclass(frozen=True, slots=True)
class SimilarFact:
    """One ``nearDuplicates`` answer: ``{id, fact, similarity}``."""

    id: int
    fact: str
    similarity: float

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "fact": self.fact, "similarity": self.similarity}
