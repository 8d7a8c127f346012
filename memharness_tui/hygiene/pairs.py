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
from itertools import chain, count

from memharness_tui.store.hygiene_similarity import cosine_similarity, token_set

__all__ = ["block_pairs", "clusters", "cosine_pairs", "jaccard_pairs"]

Pair = tuple[int, int, float]  # (index a, index b, similarity), a < b


def _prefix_len(n: int, t: float) -> int:
    # a hair under t*n: a longer prefix is always safe, a shorter one could miss a pair
    return n - math.ceil(t * n - 1e-9) + 1


def jaccard_pairs(sets: Sequence[set[str] | frozenset[str]], threshold: float) -> dict[tuple[int, int], float]:
    """Every ``(a, b)`` (a < b, indexes into ``sets``) with Jaccard >= ``threshold`` > 0.

    AllPairs: rows are visited shortest first; a row probes the index with its first
    ``n - ceil(t·n) + 1`` tokens and is indexed under only its first ``n - ceil(2t/(1+t)·n) + 1``
    (a longer later row needs an overlap of at least ``2t/(1+t)`` of the shorter one).
    """
    freq = Counter(chain.from_iterable(sets))
    # any fixed order is correct; rarest first keeps the candidate lists short
    rank = dict(zip(sorted(freq, key=freq.__getitem__), count(), strict=False))
    by_rank = rank.__getitem__
    mid = 2 * threshold / (1 + threshold)
    index: dict[str, list[int]] = {}
    out: dict[tuple[int, int], float] = {}
    order = sorted((i for i in range(len(sets)) if sets[i]), key=lambda i: len(sets[i]))
    for i in order:
        s = sets[i]
        n = len(s)
        toks = sorted(s, key=by_rank)
        seen: set[int] = set()
        probe, keep = _prefix_len(n, threshold), _prefix_len(n, mid)  # keep <= probe
        for k, tok in enumerate(toks[:probe]):
            posting = index.get(tok)
            if posting is None:
                if k < keep:
                    index[tok] = [i]
            else:
                seen.update(posting)
                if k < keep:
                    posting.append(i)
        if not seen:
            continue
        lo = threshold * n - 1e-9  # earlier rows are no longer; one under t·n cannot reach t
        for j, m, inter in [(j, len(sets[j]), len(s & sets[j])) for j in seen]:
            if m >= lo and inter / (n + m - inter) >= threshold:
                out[(j, i) if j < i else (i, j)] = inter / (n + m - inter)
    return out


def block_pairs(facts: Sequence[str], threshold: float) -> dict[tuple[int, int], float]:
    """``jaccard_pairs`` of the texts' token sets (what a worker process runs per subject)."""
    return jaccard_pairs([token_set(f) for f in facts], threshold)


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
