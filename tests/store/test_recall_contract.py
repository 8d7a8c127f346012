"""Recall's ranking inputs pinned in fast store tests: the FTS candidate cap, the freshness
weights and filter, and the decay's use of ``last_accessed_at`` (SPEC §7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, RankingSettings, Store
from memharness_tui.store import ranking as rk

CLOCK = "2026-03-01T09:00:00.000Z"
CHECKED = "2026-03-01T10:00:00.000Z"


def _open(path: Path, ranking: RankingSettings | None = None) -> Store:
    return Store.open(str(path), clock=FakeClock(CLOCK, 1000), ranking=ranking)


@pytest.fixture
def store(tmp_path: Path):
    s = _open(tmp_path / "r.db")
    try:
        yield s
    finally:
        s.close()


def test_candidates_are_reranked_beyond_the_limit(store: Store) -> None:
    """FTS ranks the short, repetitive fact first; confidence puts the other one on top.
    Cutting the candidates to ``limit`` before the re-rank would return the weak one."""
    weak, _ = store.remember("s", "alpha alpha alpha", confidence=0.1)
    strong, _ = store.remember("s", "alpha is the first letter of a rather long sentence here")
    both = store.recall("alpha", limit=2)
    assert both.ids == [strong, weak]
    top = store.recall("alpha", limit=1)
    assert not top.used_fallback
    assert top.ids == [strong]


def test_the_cap_setting_bounds_the_candidates(tmp_path: Path) -> None:
    """The cap is the larger of ``limit`` and ``candidate_cap``: a cap of 1 shows the same cut."""
    s = _open(tmp_path / "r.db", RankingSettings(candidate_cap=1))
    try:
        weak, _ = s.remember("s", "alpha alpha alpha", confidence=0.1)
        strong, _ = s.remember("s", "alpha is the first letter of a rather long sentence here")
        assert s.recall("alpha", limit=1).ids == [weak]  # only the FTS winner was a candidate
        assert s.recall("alpha", limit=2).ids == [strong, weak]
    finally:
        s.close()


def _three_verdicts(store: Store) -> dict[str | None, int]:
    ids = {}
    for freshness in ("current", "stale", "unresolved", None):
        fid, _ = store.remember("s", "gamma ray facts", source_commit="a" * 40)
        if freshness is not None:
            store.set_staleness(fid, freshness, CHECKED, "b" * 40)
        ids[freshness] = fid
    return ids


@pytest.mark.parametrize("query", ["gamma", ""], ids=["fts", "scan"])
def test_freshness_weights_scale_the_score(tmp_path: Path, query: str) -> None:
    r = RankingSettings(stale_weight=0.25, unresolved_weight=0.6)
    s = _open(tmp_path / "r.db", r)
    try:
        ids = _three_verdicts(s)
        facts = {f.id: f for f in s.recall(query, limit=10).facts}
        base = facts[ids[None]].score
        # the rows differ only in tx_at (seconds apart, so the decay is all but equal) and
        # in their FTS rank (the same text: RRF ranks them by rowid among equals)
        by_id = {fid: facts[fid].score / facts[ids["current"]].score for fid in ids.values()}
        assert by_id[ids["stale"]] == pytest.approx(0.25 * _rrf_ratio(query, 2, 1), rel=1e-4)
        assert by_id[ids["unresolved"]] == pytest.approx(0.6 * _rrf_ratio(query, 3, 1), rel=1e-4)
        assert base == pytest.approx(facts[ids["current"]].score * _rrf_ratio(query, 4, 1),
                                     rel=1e-4)
    finally:
        s.close()


def _rrf_ratio(query: str, rank: int, other: int) -> float:
    if not query:
        return 1.0
    return (60.0 + other) / (60.0 + rank)


def test_the_default_weights(store: Store) -> None:
    ids = _three_verdicts(store)
    facts = {f.id: f for f in store.recall("", limit=10).facts}
    current = facts[ids["current"]].score
    assert facts[ids["stale"]].score / current == pytest.approx(0.5, rel=1e-4)
    assert facts[ids["unresolved"]].score / current == pytest.approx(0.85, rel=1e-4)
    assert facts[ids[None]].score / current == pytest.approx(1.0, rel=1e-4)


@pytest.mark.parametrize("query", ["gamma", ""], ids=["fts", "scan"])
def test_recall_freshness_filter(store: Store, query: str) -> None:
    ids = _three_verdicts(store)
    for freshness in ("current", "stale", "unresolved"):
        assert store.recall(query, freshness=freshness).ids == [ids[freshness]], freshness
    assert store.recall(query, freshness="unchecked").ids == [ids[None]]
    assert sorted(store.recall(query).ids) == sorted(ids.values())


def test_decay_counts_from_last_access(tmp_path: Path) -> None:
    """Two equal facts learned a year ago; one was recalled (reinforced) yesterday, so its
    age, and its decay, count from then: the score says so, to the formula's value."""
    clock = FakeClock("2025-03-01T09:00:00.000Z", 1000)
    s = Store.open(str(tmp_path / "r.db"), clock=clock)
    try:
        old, _ = s.remember("s", "delta fact one")
        used, _ = s.remember("s", "delta fact two")
        clock.advance(364 * rk.MS_PER_DAY)
        s.recall("two", reinforce=True)
        clock.advance(rk.MS_PER_DAY)
        facts = {f.id: f for f in s.recall("", limit=5).facts}
        row_old, row_used = s.get(old), s.get(used)
        assert row_old.last_accessed_at is None and row_used.last_accessed_at is not None
        assert facts[used].last_accessed_at == row_used.last_accessed_at  # a plain read
        r = RankingSettings()
        for fid, row in ((old, row_old), (used, row_used)):
            age = rk.age_days(clock.peek(), row.last_accessed_at, row.tx_at)
            want = rk.score(fts_rank=None, confidence=1.0, importance=5, kind="semantic",
                            age=age, freshness=None, r=r)
            assert facts[fid].score == pytest.approx(want, rel=1e-3), fid
        assert facts[used].score > 2 * facts[old].score  # a year vs a day, 90-day half-life
    finally:
        s.close()
