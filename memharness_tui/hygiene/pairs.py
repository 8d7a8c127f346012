"""Near-duplicate pairs inside one subject block, and their clusters.

A pair is near-duplicate when the reference's ``nearDuplicates`` would name one row for the
other: token Jaccard >= 0.5, or (both rows embedded with one dimension) the folded cosine.
Comparing every pair of a 1,000-row block is 500,000 Jaccards; instead a prefix filter
(Bayardo et al., "Scaling up all pairs similarity search") finds every pair that can reach the
threshold: order each token set rarest token first; two sets with Jaccard >= t must share a
token among their first ``n - ceil(t·n) + 1``. Only those candidates are measured, exactly as
the reference measures them, so no pair is missed and every number is the reference's.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from itertools import chain

from memharness_tui.store.hygiene_similarity import cosine_similarity

__all__ = ["clusters", "cosine_pairs", "jaccard_pairs"]

Pair = tuple[int, int, float]  # (index a, index b, similarity), a < b


def _prefix_len(n: int, t: float) -> int:
    # a hair under t*n: a longer prefix is always safe, a shorter one could miss a pair
    return n - math.ceil(t * n - 1e-9) + 1


def jaccard_pairs(sets: Sequence[frozenset[str]], threshold: float) -> dict[tuple[int, int], float]:
    """Every ``(a, b)`` (a < b, indexes into ``sets``) with Jaccard >= ``threshold`` > 0."""
    freq = Counter(chain.from_iterable(sets))
    rank = {tok: r for r, tok in enumerate(sorted(freq, key=lambda k: (freq[k], k)))}
    by_rank = rank.__getitem__
    index: dict[str, list[int]] = {}
    out: dict[tuple[int, int], float] = {}
    for i, s in enumerate(sets):
        n = len(s)
        if n == 0:
            continue
        prefix = sorted(s, key=by_rank)[: _prefix_len(n, threshold)]
        seen: set[int] = set()
        for tok in prefix:
            posting = index.get(tok)
            if posting is None:
                index[tok] = [i]
                continue
            seen.update(posting)
            posting.append(i)
        # a set at most t·n or at least n/t long cannot reach t (length filter)
        lo, hi = threshold * n - 1e-9, n / threshold + 1e-9
        for j in seen:
            other = sets[j]
            m = len(other)
            if m < lo or m > hi:
                continue
            inter = len(s & other)
            sim = inter / (n + m - inter)
            if sim >= threshold:
                out[(j, i)] = sim
    return out


def cosine_pairs(
    vectors: Sequence[tuple[float, ...] | None], threshold: float
) -> dict[tuple[int, int], float]:
    """Every ``(a, b)`` whose folded cosine (same dimension only) is >= ``threshold``."""
    out: dict[tuple[int, int], float] = {}
    have = [(i, v) for i, v in enumerate(vectors) if v is not None]
    for x, (i, a) in enumerate(have):
        for j, b in have[x + 1:]:
            cos = cosine_similarity(a, b)
            if cos is not None and cos >= threshold:
                out[(i, j)] = cos
    return out


def clusters(n: int, pairs: dict[tuple[int, int], float]) -> list[list[int]]:
    """Connected components of the pair graph (A~B, B~C → one group), each sorted."""
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = {}
    for a, b in pairs:
        for x in (a, b):
            groups.setdefault(find(x), [])
    for x in {v for p in pairs for v in p}:
        groups[find(x)].append(x)
    return [sorted(g) for g in groups.values()]
