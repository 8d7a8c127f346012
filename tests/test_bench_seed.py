"""bench/seed.py writes a valid store shaped like the reference seed (at a small size here)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from memharness_tui.store import Store
from memharness_tui.store.driver import sqlite3
from tests.conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))
import seed  # noqa: E402


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return seed.generate_seed(tmp_path_factory.mktemp("seed") / "s.db", 3000, pins=0.1, kinds=True)


def _rows(db: Path, query: str) -> list[tuple]:
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return conn.execute(query).fetchall()
    finally:
        conn.close()


def test_generated_store_opens_and_is_consistent(generated: Path) -> None:
    with Store.open(str(generated)) as store:  # read-write: the FTS integrity check runs
        store.check_integrity()  # raises on a broken FTS index
        stats = store.stats()
        assert stats.total_facts == 3000
    assert _rows(generated, "PRAGMA integrity_check") == [("ok",)]
    fts = _rows(generated, "SELECT count(*) FROM facts_fts WHERE facts_fts MATCH 'subject'")
    assert fts == [(3000,)]  # the trigger indexed every row


def test_revisions_and_retractions_have_the_reference_shape(generated: Path) -> None:
    n, revised, retracted, subjects = _rows(
        generated,
        "SELECT count(*), sum(superseded_by IS NOT NULL), sum(retracted_at IS NOT NULL), "
        "count(DISTINCT subject) FROM facts",
    )[0]
    assert n == 3000
    assert 0.07 * n < revised < 0.13 * n
    assert 0.01 * n < retracted < 0.04 * n
    assert subjects > 500
    # a revised row: same subject as its successor, valid_to = the successor's time, never retracted
    bad = _rows(
        generated,
        "SELECT count(*) FROM facts a JOIN facts b ON a.superseded_by = b.id "
        "WHERE a.subject != b.subject OR a.valid_to != b.tx_at OR a.retracted_at IS NOT NULL "
        "OR b.id <= a.id OR b.confidence != 1.0",
    )
    assert bad == [(0,)]
    # tx times strictly increase with id, a retraction follows its row's own time
    assert _rows(generated, "SELECT count(*) FROM facts a JOIN facts b ON b.id = a.id + 1 "
                            "WHERE b.tx_at <= a.tx_at") == [(0,)]
    assert _rows(generated, "SELECT count(*) FROM facts WHERE retracted_at <= tx_at") == [(0,)]


def test_kinds_and_pins_are_optional_extras(generated: Path) -> None:
    kinds = {k for (k,) in _rows(generated, "SELECT DISTINCT kind FROM facts")}
    assert kinds == {"semantic", "episodic", "procedural"}
    pinned = _rows(generated, "SELECT count(*) FROM facts WHERE source_commit IS NOT NULL")[0][0]
    assert 0.05 * 3000 < pinned < 0.15 * 3000


def test_same_seed_same_store(tmp_path: Path) -> None:
    a = seed.generate_seed(tmp_path / "a.db", 300)
    b = seed.generate_seed(tmp_path / "b.db", 300)
    query = "SELECT * FROM facts ORDER BY id"
    assert _rows(a, query) == _rows(b, query)
    assert {k for (k,) in _rows(a, "SELECT DISTINCT kind FROM facts")} == {"semantic"}


def test_refuses_to_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "x.db"
    target.write_bytes(b"")
    with pytest.raises(SystemExit, match="exists"):
        seed.generate_seed(target, 10)


def test_pins_repo_draws_real_commits_and_the_files_of_their_trees(tmp_path: Path) -> None:
    """``--pins-repo``: every pin names a commit of HEAD's history and a file in that commit."""
    from memharness_tui.staleness.runner import StalenessPass
    from tests.staleness.staleness_helpers import build_scenario, git

    scenario = build_scenario(tmp_path / "repo")
    db = seed.generate_seed(tmp_path / "p.db", 600, pins=0.5, pins_repo=scenario.path)
    pinned = _rows(db, "SELECT source_commit, source_path FROM facts WHERE source_commit IS NOT NULL")
    assert 0.4 * 600 < len(pinned) < 0.6 * 600
    history = set(git(scenario.path, "rev-list", "HEAD").split())
    assert {commit for commit, _ in pinned} == history  # 600 draws reach all 6 commits
    for commit, path in set(pinned):
        assert path in git(scenario.path, "ls-tree", "-r", "--name-only", commit).split()
    # so a real pass judges every pin: current or stale, never "not in this repo"
    live = "source_commit IS NOT NULL AND superseded_by IS NULL AND retracted_at IS NULL"
    report = StalenessPass(db, [scenario.path]).run()
    verdicts = _rows(db, f"SELECT freshness, count(*) FROM facts WHERE {live} GROUP BY freshness")
    assert report.checked == _rows(db, f"SELECT count(*) FROM facts WHERE {live}")[0][0] > 200
    assert {v for v, _ in verdicts} <= {"current", "stale"} and ("stale" in dict(verdicts))


def test_pins_repo_outside_a_repository_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="not inside a git repository"):
        seed.generate_seed(tmp_path / "p.db", 10, pins=0.5, pins_repo=tmp_path)
    assert not (tmp_path / "p.db").exists()
