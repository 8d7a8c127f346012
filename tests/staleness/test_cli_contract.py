"""The headless pass's hook contract: the exact ``--json`` shape, ``--fail-on-stale``'s
counter and the default downgrade factor (every other test passes ``--factor``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memharness_tui.staleness import cli as scli
from memharness_tui.staleness.runner import StalenessPass
from memharness_tui.store import FakeClock, Store

from .staleness_helpers import Scenario, make_store, rows

REPORT_KEYS = {
    "summary", "total", "checked", "current", "stale", "unresolved", "backfilled", "stale_ids",
    "downgraded", "skipped", "repos", "check_only", "cancelled", "elapsed_seconds", "verdicts",
    "repo_errors", "unjudged",  # damaged git objects met mid-pass and the pins left unjudged (#20)
}
VERDICT_KEYS = {
    "id", "pin", "freshness", "reason", "commit", "path", "resolved", "repo", "checked_head",
    "backfilled", "backfilled_path_only",
}


def run(argv: list[str]) -> int:
    return scli.main(["staleness", *argv])


def test_json_report_has_exactly_the_contract_keys(
    scenario: Scenario, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A path-only backfill: its verdict says so, and the report keeps every key (``skipped``
    too, empty) with the values the hook reads."""
    s = scenario.sha
    db = tmp_path / "m.db"
    (fid,) = make_store(db, [{"source_commit": s["c2"], "source_ref": f"m@{s['c2']}:src/a.py"}])
    assert run(["--db", str(db), "--repo", str(scenario.path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == REPORT_KEYS
    assert {k: v for k, v in report.items() if k not in ("elapsed_seconds", "verdicts")} == {
        "summary": "checked 1 / current 1 / stale 0 / unresolved 0 / backfilled 1",
        "total": 1, "checked": 1, "current": 1, "stale": 0, "unresolved": 0, "backfilled": 1,
        "stale_ids": [], "downgraded": [], "skipped": [],
        "repos": [{"path": str(scenario.path.resolve()), "head": s["head"]}],
        "check_only": False, "cancelled": False, "repo_errors": [], "unjudged": 0,
    }
    assert isinstance(report["elapsed_seconds"], float)
    [verdict] = report["verdicts"]
    assert verdict == {
        "id": fid, "pin": f"src/a.py@{s['c2'][:7]}", "freshness": "current",
        "reason": f"src/a.py unchanged since {s['c2'][:7]}", "commit": s["c2"],
        "path": "src/a.py", "resolved": s["c2"], "repo": str(scenario.path.resolve()),
        "checked_head": s["head"], "backfilled": True, "backfilled_path_only": True,
    }
    assert set(verdict) == VERDICT_KEYS


def test_json_ordinary_and_ref_backfill_flags(
    scenario: Scenario, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An ordinary pin is no backfill; a pin taken whole from source_ref is not path-only."""
    s = scenario.sha
    db = tmp_path / "m.db"
    pinned, from_ref = make_store(db, [
        {"source_commit": s["c1"], "source_path": "src/a.py"},
        {"source_ref": f"m@{s['c2']}:src/b.py"},
    ])
    assert run(["--db", str(db), "--repo", str(scenario.path), "--json"]) == 0
    verdicts = {v["id"]: v for v in json.loads(capsys.readouterr().out)["verdicts"]}
    assert {k: verdicts[pinned][k] for k in ("backfilled", "backfilled_path_only")} == {
        "backfilled": False, "backfilled_path_only": False}
    assert {k: verdicts[from_ref][k] for k in ("backfilled", "backfilled_path_only")} == {
        "backfilled": True, "backfilled_path_only": False}
    assert all(set(v) == VERDICT_KEYS for v in verdicts.values())


@pytest.mark.parametrize(
    ("facts", "code"),
    [
        ([{"source_commit": "HEAD"}, {"source_commit": "feedface1234567"}], 0),  # unresolved
        ([{"source_commit": "HEAD"}], 0),  # current only (checked, nothing stale)
        ([{"source_commit": "c1", "source_path": "src/a.py"}], 1),  # stale
    ],
    ids=["unresolved", "current", "stale"],
)
def test_fail_on_stale_counts_stale_facts_only(
    scenario: Scenario, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    facts: list[dict[str, str]], code: int,
) -> None:
    names = {"HEAD": scenario.sha["head"], "c1": scenario.sha["c1"]}
    facts = [{**f, "source_commit": names.get(f["source_commit"], f["source_commit"])}
             for f in facts]
    db = tmp_path / "m.db"
    make_store(db, facts)
    for mode in ([], ["--check"]):
        assert run(["--db", str(db), "--repo", str(scenario.path), "--fail-on-stale", *mode]) == code
    capsys.readouterr()


def _stale_store(scenario: Scenario, db: Path) -> int:
    (fid,) = make_store(db, [{"source_commit": scenario.sha["c1"], "source_path": "src/a.py",
                              "confidence": 0.8}])
    return fid


def test_cli_downgrade_default_factor_is_one_half(
    scenario: Scenario, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "m.db"
    fid = _stale_store(scenario, db)
    assert run(["--db", str(db), "--repo", str(scenario.path), "--downgrade"]) == 0
    capsys.readouterr()
    after = rows(db)
    new = after[fid]["superseded_by"]
    assert new is not None
    assert after[new]["confidence"] == pytest.approx(0.4)


def test_pass_downgrade_default_factor_is_one_half(scenario: Scenario, tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    fid = _stale_store(scenario, db)
    StalenessPass(db, [scenario.path], downgrade=True, clock=FakeClock("2026-03-01")).run()
    after = rows(db)
    assert after[after[fid]["superseded_by"]]["confidence"] == pytest.approx(0.4)


def test_store_downgrade_default_factor_is_one_half(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "m.db"), clock=FakeClock("2026-03-01"))
    try:
        fid, _ = store.remember("s", "a fact", confidence=0.8)
        _, new, _ = store.downgrade(fid, source_agent="test")
        assert store.get(new).confidence == pytest.approx(0.4)
    finally:
        store.close()
