"""store/age_bound.py: the scanning recalls skip rows too old to reach the answer, and their
answers (rows, scores, order) stay those of the query that scores every row."""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memharness_tui.store import FakeClock, Store, age_bound, recall, sql
from memharness_tui.store.driver import sqlite3
from memharness_tui.store.timeutil import parse_ms
from memharness_tui.store.types import RankingSettings

NOW = "2027-01-10T12:00:00.000Z"
# Reference times julianday() reads differently from their text order, or not at all.
ODD_TIMES = [
    "2026-02-31T10:00:00.000Z",  # day 31 of February: March 3rd
    "2026-12-31 23:59:59",  # a space, no zone
    "2026-12-20T24:00:00.000-14:59",  # hour 24 and the largest negative offset
    "2461414.5",  # a julian day number (2027-01-09): recent, but text-wise "old"
    "+2461414.5",
    " 2461414.5",
    "2.4614145e6",
    "2.4614145e+6",
    "999e-1",  # a '-' fifth, julian day 99.9
    "2461e-0",
    "not a time",
    "",
    "2027-01-09",
    "1970-01-01T00:00:00.000Z",
]


def _fill(path: Path, seed: int) -> None:
    """Rows over three years, every kind, importance, confidence and verdict, reinforced old
    rows, revisions and retractions, and rows whose reference time is one of ODD_TIMES."""
    rng = random.Random(seed)
    store = Store.open(str(path), clock=FakeClock("2024-01-01T00:00:00.000Z", 1000))
    store.remember("subject:seed", "the first row")
    conn = store.conn
    rows = []
    for i in range(1500):
        day = rng.randint(0, 1100)
        ts = "2024-01-01T00:00:00.000Z" if day == 0 else (
            f"{2024 + day // 366:04d}-{1 + day % 366 // 31 % 12:02d}-{1 + day % 28:02d}"
            f"T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00.000Z")
        accessed = None
        if rng.random() < 0.1:
            accessed = f"2027-01-{rng.randint(1, 10):02d}T08:00:00.000Z"
        if rng.random() < 0.03:
            accessed = rng.choice(ODD_TIMES)
        # (a tx_at that sorts after NOW would become the store's "now": see the last test)
        tx = ts if rng.random() > 0.02 else rng.choice([t for t in ODD_TIMES if t < NOW])
        rows.append((
            f"subject:{rng.randint(0, 7)}", f"fact {i} about {rng.choice(['gears', 'cogs', 'axles'])}",
            round(rng.random(), 3), rng.randint(1, 10),
            rng.choice(["semantic", "episodic", "procedural"]), ts, tx, accessed,
            rng.choice([None, None, "current", "stale", "unresolved"]),
        ))
    with conn:
        conn.executemany(
            "INSERT INTO facts (subject, fact, confidence, importance, kind, valid_from, tx_at,"
            " last_accessed_at, freshness) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        conn.execute("UPDATE facts SET retracted_at = ? WHERE id % 17 = 0", (NOW,))
        conn.execute("UPDATE facts SET superseded_by = id + 1, valid_to = ? WHERE id % 23 = 0",
                     (NOW,))
    store.close()


ASKS: list[dict[str, Any]] = [
    {"limit": 1},
    {"limit": 8},
    {"limit": 60},
    {"limit": 400},
    {"subject": "subject:3", "limit": 10},
    {"kind": "procedural", "limit": 10},
    {"freshness": "stale", "limit": 10},
    {"freshness": "unchecked", "limit": 10},
    {"as_of": "2026-06-01", "limit": 20},
    {"query": "ogs", "limit": 10},  # no token: the LIKE fallback
    {"query": "t gea", "limit": 25},
    {"query": "xle", "kind": "episodic", "limit": 5},
    {"limit": 40, "max_tokens": 90},
]


@pytest.fixture(scope="session")
def _filled(tmp_path_factory: pytest.TempPathFactory) -> Callable[[int], Path]:
    """Each seed's store, filled once per test process (~0.1 s of CPU): its tests get a copy."""
    made: dict[int, Path] = {}

    def filled(seed: int) -> Path:
        if seed not in made:
            made[seed] = tmp_path_factory.mktemp(f"age-bound-{seed}") / "m.db"
            _fill(made[seed], seed)
        return made[seed]

    return filled


@pytest.fixture
def stores(tmp_path: Path, request: pytest.FixtureRequest,
           _filled: Callable[[int], Path]) -> Iterator[tuple[Store, Store]]:
    path = tmp_path / "m.db"
    shutil.copyfile(_filled(getattr(request, "param", 1)), path)  # a test may write to it
    pair = tuple(Store.open(str(path), readonly=True, clock=FakeClock(NOW, 0)) for _ in "ab")
    yield pair  # type: ignore[misc]
    for s in pair:
        s.close()


def _both(monkeypatch: pytest.MonkeyPatch, pruned: Store, plain: Store, ask: dict) -> tuple:
    monkeypatch.setattr(recall, "NARROW_SCAN_ROWS", 0)  # a subject's few rows are cut too
    monkeypatch.setattr(age_bound, "PRUNE_FROM_ROWS", 0)
    monkeypatch.setattr(age_bound, "THETA_WINDOW_ROWS", 300)
    got = pruned.recall(**ask)
    monkeypatch.setattr(age_bound, "PRUNE_FROM_ROWS", 10**12)
    want = plain.recall(**ask)
    return got, want


@pytest.mark.parametrize("stores", [1, 2, 3], indirect=True)
@pytest.mark.parametrize("ask", ASKS)
def test_skipping_old_rows_leaves_every_answer_as_it_was(
        monkeypatch: pytest.MonkeyPatch, stores: tuple[Store, Store], ask: dict) -> None:
    got, want = _both(monkeypatch, *stores, ask)
    assert got == want
    assert got.facts or ask.get("freshness") == "stale"


def test_the_odd_reference_times_are_in_the_answer_and_rows_were_skipped(
        monkeypatch: pytest.MonkeyPatch, stores: tuple[Store, Store]) -> None:
    pruned, plain = stores
    got, want = _both(monkeypatch, pruned, plain, {"limit": 60})
    assert got == want
    times = {f.last_accessed_at or f.tx_at for f in got.facts}
    assert times & {"2461414.5", "+2461414.5", " 2461414.5", "2.4614145e6"}
    # The cut really drops rows: the test above is not comparing two unpruned queries.
    monkeypatch.setattr(age_bound, "PRUNE_FROM_ROWS", 0)
    params = _params(pruned, limit=60)
    cuts = pruned._recent_enough([sql.CURRENT_FILTER], params)
    assert cuts is not None
    kept = pruned.conn.execute(
        f"SELECT COUNT(*) FROM facts f WHERE {sql.CURRENT_FILTER} AND {sql.RECENT_ENOUGH}",
        {**params, **cuts}).fetchone()[0]
    current = pruned.conn.execute(f"SELECT COUNT(*) FROM facts f WHERE {sql.CURRENT_FILTER}",
                                  params).fetchone()[0]
    assert 60 <= kept < current // 2


def _params(store: Store, **extra: Any) -> dict[str, Any]:
    r = store.ranking
    return {"now": NOW, "hl_semantic": r.half_life_days,
            "hl_episodic": r.kind_half_life_days["episodic"],
            "hl_procedural": r.kind_half_life_days["procedural"],
            "importance_weight": r.importance_weight,
            "importance_hl_weight": r.importance_half_life_weight,
            "min_hl_factor": r.min_half_life_factor, "stale_weight": r.stale_weight,
            "unresolved_weight": r.unresolved_weight, **extra}


@pytest.mark.parametrize("settings", [
    {"importance_weight": 0.3},  # importance 1 gives a negative boost
    {"stale_weight": -0.5},
    {"min_half_life_factor": 0.0, "importance_half_life_weight": 0.3},  # a zero half-life
])
def test_settings_that_break_the_bound_score_every_row(settings: dict) -> None:
    params = _params(Store.open(":memory:"), **{
        {"importance_weight": "importance_weight", "stale_weight": "stale_weight",
         "min_half_life_factor": "min_hl_factor",
         "importance_half_life_weight": "importance_hl_weight"}[k]: v
        for k, v in settings.items()})
    assert age_bound.class_bounds(params) is None
    RankingSettings(**settings)  # settings the store accepts


def test_rows_with_a_zero_ceiling_are_all_cut_and_a_huge_theta_keeps_nothing_old() -> None:
    now = 1_800_000_000_000
    assert age_bound.cut_date(now, 0.5, 0.0, 90.0) == "9999-99-99"
    # theta at the ceiling: no age allowed, the cut is the slack before now
    assert age_bound.cut_date(now, 1.0, 1.0, 90.0) == "2027-01-08"
    # a tiny theta allows ages beyond year 1000: keep everything
    assert age_bound.cut_date(now, 1e-300, 1.0, 900.0) == ""


def test_a_newest_tx_at_that_is_no_canonical_time_scores_every_row(
        monkeypatch: pytest.MonkeyPatch, stores: tuple[Store, Store]) -> None:
    pruned, plain = stores
    path = pruned.path
    with Store.open(path, clock=FakeClock(NOW, 0)) as writer, writer.conn:  # an odd row
        writer.conn.execute("INSERT INTO facts (subject, fact, valid_from, tx_at) "
                            "VALUES ('subject:odd', 'an odd clock', ?, 'now')", (NOW,))
    # julianday('now') is the wall clock, so two calls never score alike: no bound is used
    # (it would need "now" as a time), and the recall answers instead of failing.
    monkeypatch.setattr(age_bound, "PRUNE_FROM_ROWS", 0)
    assert pruned._effective_now(NOW) == "now"
    assert pruned._recent_enough([sql.CURRENT_FILTER], _params(pruned, now="now", limit=30)) is None
    assert len(pruned.recall(limit=30).facts) == 30


def test_the_cut_keeps_every_reference_time_julianday_puts_after_the_bound() -> None:
    """Texts a few days either side of the cut, in every shape julianday() reads (hour 24,
    day 31 of a short month, the widest offsets): none after the bound is dropped."""
    now = "2027-03-20T00:00:02.000Z"  # the bound falls just after a midnight: the worst case
    theta, ceiling, half_life = 0.5, 1.0, 10.0
    cut = age_bound.cut_date(parse_ms(now), theta, ceiling, half_life)
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE facts (tx_at TEXT, last_accessed_at TEXT, kind TEXT, "
                 "importance INTEGER, confidence REAL)")
    texts = [f"2027-{m:02d}-{d:02d}{tail}" for m in (2, 3) for d in range(1, 32)
             for tail in ("", "T24:00:00.000-14:59", " 23:59:59-14:59", "T12:00:00.000Z",
                          "T00:00:00+14:59", "T24:00")]
    conn.executemany("INSERT INTO facts VALUES ('2000-01-01', ?, 'semantic', 5, 1.0)",
                     [(t,) for t in texts])
    cuts = {f"cut_{k}_{i}": cut for k in age_bound.KINDS for i in age_bound.IMPORTANCE}
    cuts["cut_min"] = cut
    bound = conn.execute("SELECT julianday(?) - ? * log2(? / ?)",
                         (now, half_life, ceiling, theta)).fetchone()[0]
    rows = conn.execute(f"SELECT f.last_accessed_at, julianday(f.last_accessed_at), "
                        f"{sql.RECENT_ENOUGH} FROM facts f", cuts).fetchall()
    late = [(t, kept) for t, jd, kept in rows if jd is not None and jd >= bound]
    assert late and all(kept for _, kept in late), [t for t, kept in late if not kept]
    assert any(not kept for _, _, kept in rows)  # and it does drop the older ones


@pytest.mark.parametrize("ask", [{"limit": 8}, {"limit": 60}, {"query": "ogs", "limit": 10}])
def test_a_split_scan_with_the_cut_answers_as_the_whole_scan_without_it(
        monkeypatch: pytest.MonkeyPatch, stores: tuple[Store, Store], ask: dict) -> None:
    pruned, plain = stores
    pruned.split_scans(parts=2, split_from=0)
    got, want = _both(monkeypatch, pruned, plain, ask)
    assert got == want and got.facts
