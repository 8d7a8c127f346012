"""A pinned row with no path takes the path its source_ref gives for the same commit.

The reference bin judges such a row with that path and fills ``source_path``
(through the writer's COALESCE), counting it as backfilled. And a ref whose path
climbs out of the repo is no pin at all (not a whole-repo pin).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.staleness import cli as scli
from memharness_tui.staleness.runner import StalenessPass
from memharness_tui.store import FakeClock

from .staleness_helpers import SOURCE_AXIS, Scenario, file_bytes, make_store, rows
from .test_runner import assert_nothing_written

CLOCK = "2026-03-01T12:00:00.000Z"


def run_pass(db: Path, scenario: Scenario, **kw: object) -> StalenessPass:
    spass = StalenessPass(db, [scenario.path], clock=FakeClock(CLOCK), **kw)  # type: ignore[arg-type]
    spass.run()
    return spass


def test_path_from_source_ref_is_judged_and_filled(scenario: Scenario, tmp_path: Path) -> None:
    """The repro: src/a.py is unchanged since c2, HEAD moved on → current, path filled."""
    s = scenario.sha
    db = tmp_path / "m.db"
    (fid,) = make_store(db, [{"source_commit": s["c2"], "source_ref": f"m@{s['c2']}:src/a.py"}])
    before = rows(db)[fid]
    report = run_pass(db, scenario).report
    assert report.summary_line() == "checked 1 / current 1 / stale 0 / unresolved 0 / backfilled 1"
    (v,) = report.verdicts
    assert (v.freshness, v.reason) == ("current", f"src/a.py unchanged since {s['c2'][:7]}")
    assert v.backfilled and v.path_only and v.path == "src/a.py"
    after = rows(db)[fid]
    assert after["source_path"] == "src/a.py"
    assert after["source_commit"] == s["c2"]  # the stored pin is never rewritten
    assert after["freshness"] == "current"
    assert after["checked_head"] == s["head"]
    assert {k: x for k, x in after.items() if k not in SOURCE_AXIS} == {
        k: x for k, x in before.items() if k not in SOURCE_AXIS
    }
    # the next pass judges the row as an ordinary pinned target
    again = run_pass(db, scenario).report
    assert again.summary_line() == "checked 1 / current 1 / stale 0 / unresolved 0"


@pytest.mark.parametrize(
    "stored",
    [
        lambda c: c.upper(),  # case-insensitive
        lambda c: c[:7],  # an abbreviated stored commit that is a prefix of the parsed one
        lambda c: f"  {c[:12].upper()}  ",
    ],
)
def test_commit_match_is_case_insensitive_and_allows_abbreviation(
    scenario: Scenario, tmp_path: Path, stored: object
) -> None:
    s = scenario.sha
    db = tmp_path / "m.db"
    commit = stored(s["c2"])  # type: ignore[operator]
    (fid,) = make_store(db, [{"source_commit": commit, "source_ref": f"m@{s['c2']}:src/a.py"}])
    report = run_pass(db, scenario).report
    assert (report.current, report.backfilled) == (1, 1)
    assert rows(db)[fid]["source_path"] == "src/a.py"


def test_other_commit_or_own_path_is_not_backfilled(scenario: Scenario, tmp_path: Path) -> None:
    s = scenario.sha
    db = tmp_path / "m.db"
    ids = make_store(
        db,
        [
            # the ref names another commit: judged without a path, nothing filled
            {"source_commit": s["c2"], "source_ref": f"m@{s['c1']}:src/a.py"},
            # the row has its own path: that one is judged, the ref's is ignored
            {"source_commit": s["c1"], "source_path": "conf",
             "source_ref": f"m@{s['c1']}:src/a.py"},
            # the ref's path climbs out of the repo: no pin, whole-repo judgement
            {"source_commit": s["c2"], "source_ref": f"m@{s['c2']}:../x"},
            # no path in the ref
            {"source_commit": s["c2"], "source_ref": f"m@{s['c2']}"},
        ],
    )
    report = run_pass(db, scenario).report
    got = {v.fact_id: (v.freshness, v.reason, v.backfilled) for v in report.verdicts}
    c1, c2 = s["c1"][:7], s["c2"][:7]
    assert got == {
        ids[0]: ("stale", f"HEAD has moved past {c2}", False),
        ids[1]: ("current", f"conf/ unchanged since {c1}", False),
        ids[2]: ("stale", f"HEAD has moved past {c2}", False),
        ids[3]: ("stale", f"HEAD has moved past {c2}", False),
    }
    assert report.backfilled == 0
    after = rows(db)
    assert [after[i]["source_path"] for i in ids] == [None, "conf", None, None]


def test_a_candidates_own_path_wins_over_the_path_in_its_source_ref(
    scenario: Scenario, tmp_path: Path
) -> None:
    """An unpinned row that already names a path is judged with it (src/a.py is unchanged
    since c2, src/b.py is not): the ref contributes only the commit."""
    s = scenario.sha
    db = tmp_path / "m.db"
    (fid,) = make_store(db, [{"source_ref": f"m@{s['c2']}:src/a.py", "source_path": "src/b.py"}])
    (v,) = run_pass(db, scenario).report.verdicts
    assert (v.freshness, v.reason) == ("stale", f"src/b.py changed since {s['c2'][:7]}")
    assert v.backfilled and not v.path_only and v.path == "src/b.py"
    row = rows(db)[fid]
    assert (row["source_commit"], row["source_path"]) == (s["c2"], "src/b.py")


def test_check_only_counts_the_path_backfill_and_writes_nothing(
    scenario: Scenario, tmp_path: Path
) -> None:
    s = scenario.sha
    make_store(tmp_path / "m.db", [{"source_commit": s["c2"], "source_ref": f"m@{s['c2']}:src/a.py"}])
    before = file_bytes(tmp_path)
    report = run_pass(tmp_path / "m.db", scenario, check_only=True).report
    assert report.summary_line() == "checked 1 / current 1 / stale 0 / unresolved 0 / backfilled 1"
    assert_nothing_written(tmp_path, before)


def test_path_backfill_skipped_when_the_row_is_retracted_mid_pass(
    scenario: Scenario, tmp_path: Path
) -> None:
    from memharness_tui.store import Store

    s = scenario.sha
    db = tmp_path / "m.db"
    ids = make_store(
        db,
        [{"source_commit": s["c2"], "source_ref": f"m@{s['c2']}:src/a.py"}] * 2,
    )
    spass = StalenessPass(db, [scenario.path], clock=FakeClock(CLOCK), batch_size=1)
    events = spass.iter_batches()
    next(events)  # start: the work list is read
    store = Store.open(str(db), clock=FakeClock("2026-02-03"))
    store.forget(fact_id=ids[1])
    store.close()
    for _ in events:
        pass
    report = spass.report
    assert report.skipped == [ids[1]]
    assert report.total == 2 and report.checked == 1
    assert report.summary_line() == "checked 1 / current 1 / stale 0 / unresolved 0 / backfilled 1"
    assert [v.fact_id for v in report.verdicts] == [ids[0]]
    assert report.stale_ids == []
    after = rows(db)
    assert after[ids[0]]["source_path"] == "src/a.py"
    assert after[ids[1]]["source_path"] is None and after[ids[1]]["freshness"] is None


def test_backfill_with_a_path_out_of_the_repo_is_not_a_pin(
    scenario: Scenario, tmp_path: Path
) -> None:
    """`m@<sha40>:../x` used to become a whole-repo pin, reported stale."""
    s = scenario.sha
    db = tmp_path / "m.db"
    ids = make_store(
        db,
        [
            {"source_ref": f"m@{s['c1']}:../x"},
            {"source_ref": f"m@{s['c1']}:src/../../x.py#L3"},
            # a stored source_path of ../x is still judged, and unresolved
            {"source_commit": s["c1"], "source_path": "../x"},
        ],
    )
    before = rows(db)
    report = run_pass(db, scenario).report
    assert report.summary_line() == "checked 1 / current 0 / stale 0 / unresolved 1"
    (v,) = report.verdicts
    assert (v.fact_id, v.freshness, v.reason) == (
        ids[2], "unresolved", f"../x did not exist at {s['c1'][:7]}"
    )
    after = rows(db)
    assert after[ids[0]] == before[ids[0]] and after[ids[1]] == before[ids[1]]


def test_cli_reports_the_path_backfill(
    scenario: Scenario, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = scenario.sha
    db = tmp_path / "m.db"
    make_store(db, [{"source_commit": s["c2"], "source_ref": f"m@{s['c2']}:src/a.py"}])
    assert scli.main(["staleness", "--db", str(db), "--repo", str(scenario.path)]) == 0
    _, err = capsys.readouterr()
    assert err.splitlines() == ["checked 1 / current 1 / stale 0 / unresolved 0 / backfilled 1"]
