"""The headless ``memharness-tui staleness`` command: output, --json, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memharness_tui.staleness import cli as scli

from .staleness_helpers import Repo, Scenario, file_bytes, make_store, rows

SUMMARY = "checked 4 / current 1 / stale 2 / unresolved 1"


@pytest.fixture
def store(scenario: Scenario, tmp_path: Path) -> tuple[Path, list[int]]:
    s = scenario.sha
    db = tmp_path / "db" / "m.db"
    db.parent.mkdir()
    ids = make_store(
        db,
        [
            {"source_commit": s["c1"], "source_path": "src/a.py"},
            {"source_commit": s["head"][:7].upper()},
            {"source_commit": "feedface1234567"},
            {"source_commit": s["c1"], "source_path": "lib/x.py"},
            {"source_ref": "not a pin"},
        ],
    )
    return db, ids


def run(argv: list[str]) -> int:
    return scli.main(["staleness", *argv])


def test_summary_and_stale_ids_on_stderr(
    scenario: Scenario, store: tuple[Path, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    db, ids = store
    assert run(["--db", str(db), "--repo", str(scenario.path)]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [SUMMARY, f"stale ids: #{ids[0]}, #{ids[3]}"]
    assert rows(db)[ids[0]]["freshness"] == "stale"


def test_fail_on_stale_and_json(
    scenario: Scenario, store: tuple[Path, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    db, ids = store
    assert run(["--db", str(db), "--repo", str(scenario.path), "--json", "--fail-on-stale"]) == 1
    out, err = capsys.readouterr()
    assert err.splitlines()[0] == SUMMARY
    report = json.loads(out)
    assert report["summary"] == SUMMARY
    assert report["stale_ids"] == [ids[0], ids[3]]
    assert (report["checked"], report["current"], report["stale"], report["unresolved"]) == (
        4, 1, 2, 1
    )
    v = {x["id"]: x for x in report["verdicts"]}
    c1 = scenario.sha["c1"][:7]
    assert v[ids[0]]["pin"] == f"src/a.py@{c1}"
    assert v[ids[0]]["reason"] == f"src/a.py changed since {c1}"
    assert v[ids[0]]["freshness"] == "stale"
    assert (v[ids[2]]["freshness"], v[ids[2]]["reason"]) == (
        "unresolved", "feedfac is not in this repo"
    )
    assert v[ids[1]]["freshness"] == "current"
    assert report["repos"] == [{"path": str(scenario.path.resolve()), "head": scenario.sha["head"]}]
    # --fail-on-stale also reacts in check-only mode
    assert run(["--db", str(db), "--repo", str(scenario.path), "--fail-on-stale", "--check"]) == 1


def test_backfilled_shown_when_non_zero(
    scenario: Scenario, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_store(tmp_path / "m.db", [{"source_ref": f"repo@{scenario.sha['c2']}:src/a.py"}])
    assert run(["--db", str(tmp_path / "m.db"), "--repo", str(scenario.path)]) == 0
    err = capsys.readouterr().err
    assert err.splitlines() == ["checked 1 / current 1 / stale 0 / unresolved 0 / backfilled 1"]


def test_check_only_writes_nothing(
    scenario: Scenario, store: tuple[Path, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    db, _ = store
    before = file_bytes(db.parent)
    assert run(["--db", str(db), "--repo", str(scenario.path), "--check"]) == 0
    assert capsys.readouterr().err.splitlines()[0] == SUMMARY
    after = file_bytes(db.parent)
    assert after["m.db"] == before["m.db"]
    assert after.get("m.db-wal", b"") == b""


def test_default_repo_is_the_one_around_cwd(
    scenario: Scenario,
    store: tuple[Path, list[int]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db, _ = store
    monkeypatch.chdir(scenario.path / "src")
    monkeypatch.setenv("MEMHARNESS_DB", str(db))
    assert run([]) == 0
    assert capsys.readouterr().err.splitlines()[0] == SUMMARY


def test_downgrade(
    scenario: Scenario, store: tuple[Path, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    db, ids = store
    assert run(["--db", str(db), "--repo", str(scenario.path), "--downgrade", "--factor", "0.4"]) == 0
    err = capsys.readouterr().err.splitlines()
    after = rows(db)
    new_ids = [after[ids[0]]["superseded_by"], after[ids[3]]["superseded_by"]]
    assert err[2] == f"downgraded: #{ids[0]}->#{new_ids[0]} #{ids[3]}->#{new_ids[1]}"
    assert after[new_ids[0]]["confidence"] == pytest.approx(0.4)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--check", "--downgrade"], "--check and --downgrade cannot be combined"),
        (["--factor", "0.3"], "--factor only makes sense with --downgrade"),
        (["--downgrade", "--factor", "abc"], "--factor must be a number in (0, 1], got 'abc'"),
        (["--downgrade", "--factor", "0"], "--factor must be a number in (0, 1], got '0'"),
        (["--downgrade", "--factor", "1.5"], "--factor must be a number in (0, 1], got '1.5'"),
        (["--downgrade", "--factor", "nan"], "--factor must be a number in (0, 1], got 'nan'"),
    ],
)
def test_bad_flags(
    scenario: Scenario,
    store: tuple[Path, list[int]],
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    db, _ = store
    before = file_bytes(db.parent)
    assert run(["--db", str(db), "--repo", str(scenario.path), *argv]) == 2
    assert capsys.readouterr().err == f"memharness-tui: error: {message}\n"
    assert file_bytes(db.parent) == before


def test_unusable_repo_or_db_exits_2_and_writes_nothing(
    scenario: Scenario,
    store: tuple[Path, list[int]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db, _ = store
    before = file_bytes(db.parent)
    empty = Repo.init(tmp_path / "empty").path
    plain = tmp_path / "plain"
    plain.mkdir()
    cases = [
        (["--db", str(db), "--repo", str(empty)], f"{empty}: the git repository is empty"),
        (["--db", str(db), "--repo", str(plain)], f"{plain}: not a git repository"),
        (["--db", str(db), "--repo", str(scenario.path), "--repo", str(plain)],
         f"{plain}: not a git repository"),
        (["--db", str(tmp_path / "nope.db"), "--repo", str(scenario.path)],
         f"no database at {tmp_path / 'nope.db'}"),
        (["--db", str(tmp_path), "--repo", str(scenario.path)], f"{tmp_path} is a folder"),
        (["--db", ":memory:", "--repo", str(scenario.path)], "in-memory database"),
    ]
    for argv, message in cases:
        assert run(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("memharness-tui: error: ") and message in err, err
        assert len(err.splitlines()) == 1
    monkeypatch.chdir(plain)
    assert run(["--db", str(db)]) == 2
    assert "is not inside a git repository; use --repo PATH" in capsys.readouterr().err
    assert file_bytes(db.parent) == before
    assert not (tmp_path / "nope.db").exists()


def test_not_a_database(
    scenario: Scenario, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    assert run(["--db", str(junk), "--repo", str(scenario.path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("memharness-tui: error: ") and len(err.splitlines()) == 1
    assert junk.read_bytes() == b"this is not sqlite" * 100


def test_wired_into_the_main_command(
    scenario: Scenario, store: tuple[Path, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    """The lead's ``memharness_tui.cli.main`` dispatches here (global --db before the verb too)."""
    from memharness_tui.cli import main

    db, _ = store
    assert main(["staleness", "--db", str(db), "--repo", str(scenario.path), "--check"]) == 0
    assert capsys.readouterr().err.splitlines()[0] == SUMMARY
    assert main(["--db", str(db), "staleness", "--repo", str(scenario.path), "--check"]) == 0
    assert capsys.readouterr().err.splitlines()[0] == SUMMARY


def test_stale_ids_line_is_the_reference_format() -> None:
    from memharness_tui.staleness.runner import stale_ids_line

    assert stale_ids_line([4, 7]) == "stale ids: #4, #7"
    assert stale_ids_line([12]) == "stale ids: #12"
