"""The recall score (SPEC §7) as a pure function: the Python mirror of the SQL expression."""

from __future__ import annotations

import math

from .timeutil import parse_ms
from .types import RankingSettings

MS_PER_DAY = 86_400_000
# SQLite keeps julian days as integer milliseconds (iJD) and julianday() returns
# iJD / 86400000.0; the Unix epoch is iJD 210866760000000.
_UNIX_EPOCH_IJD = 210_866_760_000_000


def half_life(kind: str, importance: int, r: RankingSettings) -> float:
    base = r.kind_half_life_days.get(kind, r.half_life_days) if kind != "semantic" else r.half_life_days
    return base * max(r.min_half_life_factor, 1.0 + r.importance_half_life_weight * (importance - 5))


def julianday(ts: str) -> float:
    """SQLite's julianday() of a canonical timestamp, bit for bit."""
    return (parse_ms(ts) + _UNIX_EPOCH_IJD) / 86_400_000.0


def age_days(now: str, last_accessed_at: str | None, tx_at: str) -> float:
    """max(0, julianday(now) - julianday(COALESCE(last_accessed_at, tx_at))), as the SQL computes it."""
    ref = last_accessed_at if last_accessed_at is not None else tx_at
    return max(0.0, julianday(now) - julianday(ref))


def freshness_factor(freshness: str | None, r: RankingSettings) -> float:
    if freshness == "stale":
        return r.stale_weight
    if freshness == "unresolved":
        return r.unresolved_weight
    return 1.0


def score(
    *,
    fts_rank: int | None,
    confidence: float,
    importance: int,
    kind: str,
    age: float,
    freshness: str | None,
    r: RankingSettings,
) -> float:
    """rrf × confidence × importance boost × 0.5^(age/hl) × freshness factor."""
    rrf = 1.0 if fts_rank is None else 1.0 / (r.rrf_k + fts_rank)
    boost = 1.0 + r.importance_weight * (importance - 5)
    decay = math.pow(0.5, age / half_life(kind, importance, r))
    return rrf * confidence * boost * decay * freshness_factor(freshness, r)
