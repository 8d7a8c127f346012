"""The demo: ``--demo`` for the app and the subcommands, ``--demo --reset`` rebuilding it."""

from __future__ import annotations

import os
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from memharness_tui.cli import main
from memharness_tui.demo import MARKER, ensure_demo, reset_demo
from memharness_tui.store import Store


def _cache() -> Path:
    return Path(os.environ["MEMHARNESS_TUI_CACHE_DIR"])  # a temp folder (tests/conftest.py)


def _heads(repo: Path) -> list[str]:
    done = subprocess.run(["git", "rev-list", "HEAD"], cwd=repo, check=True,
                          capture_output=True, text=True)
    return done.stdout.split()


def _subjects(db: Path) -> set[str]:
    s = Store.open(str(db), readonly=True)
    try:
        return {f.subject for f in s.list_facts(include_history=True, limit=1000)}
    finally:
        s.close()


def test_reset_throws_away_edits_and_rebuilds_the_same_demo(tmp_path: Path) -> None:
    db, repo = ensure_demo(tmp_path)
    heads, subjects = _heads(repo), _subjects(db)
    s = Store.open(str(db))
    try:
        s.remember("added-in-the-demo", "an edit the reset must undo")
    finally:
        s.close()
    (repo / "extra.txt").write_text("a file the reset must remove\n")

    assert reset_demo(tmp_path) == (db, repo)
    assert _subjects(db) == subjects and "added-in-the-demo" not in _subjects(db)
    assert _heads(repo) == heads and not (repo / "extra.txt").exists()
    assert (db.parent / MARKER).exists() and not list(tmp_path.glob("demo-build-*"))


def test_on_build_is_called_only_when_something_is_built(tmp_path: Path) -> None:
    calls: list[str] = []
    ensure_demo(tmp_path, on_build=lambda: calls.append("build"))
    ensure_demo(tmp_path, on_build=lambda: calls.append("reuse"))
    ensure_demo(tmp_path, rebuild=True, on_build=lambda: calls.append("rebuild"))
    assert calls == ["build", "rebuild"]


def test_demo_before_a_subcommand_reads_the_demo_store(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--demo", "recall", "postgres"]) == 0
    out, err = capsys.readouterr()
    assert "Production runs PostgreSQL 16" in out
    assert err == "building the demo store and repo (first run)…\n"
    assert main(["--demo", "stats"]) == 0  # built once, then reused silently
    out, err = capsys.readouterr()
    assert out.startswith(f"DB: {_cache() / 'demo' / 'memory.db'}\n") and err == ""


def test_demo_reset_before_a_subcommand_rebuilds_first(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--demo", "remember", "scratchpad", "a fact the reset removes"]) == 0
    capsys.readouterr()
    assert main(["--demo", "--reset", "recall", "reset removes"]) == 0
    out, err = capsys.readouterr()
    assert "a fact the reset removes" not in out
    assert err == "rebuilding the demo store and repo from scratch…\n"


def test_demo_staleness_checks_against_the_demo_repo(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--demo", "staleness", "--check"]) == 0
    _, err = capsys.readouterr()
    assert "checked 8 / current 2 / stale 4 / unresolved 2" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--reset"], "--reset needs --demo: it rebuilds the demo store and repo"),
        (["--reset", "stats"], "--reset needs --demo: it rebuilds the demo store and repo"),
        (["--demo", "--db", "x.db", "stats"],
         "--demo and --db cannot be combined: --demo opens the demo store"),
        (["--demo", "stats", "--db", "x.db"],
         "--demo and --db cannot be combined: --demo opens the demo store"),
    ],
)
def test_bad_demo_flags_are_one_line_and_build_nothing(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"memharness-tui: error: {message}\n"
    assert not (_cache() / "demo").exists() and not (tmp_path / "x.db").exists()


def test_app_with_demo_reset_rebuilds_then_opens_the_demo(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    import memharness_tui.tui.app as app_mod

    db, _ = ensure_demo()
    s = Store.open(str(db))
    try:
        s.remember("added-in-the-demo", "an edit the reset must undo")
    finally:
        s.close()
    seen: dict[str, object] = {}

    def fake_run_app(db_path: str | None, *, readonly: bool = False, demo: bool = False) -> int:
        seen.update(db_path=db_path, demo=demo, subjects=_subjects(db))
        return 0

    monkeypatch.setattr(app_mod, "run_app", fake_run_app)
    assert main(["--demo", "--reset"]) == 0
    assert seen["demo"] is True and seen["db_path"] is None
    assert "added-in-the-demo" not in seen["subjects"]  # type: ignore[operator]
    assert capsys.readouterr().err == "rebuilding the demo store and repo from scratch…\n"


def test_the_last_30_days_before_the_build_hold_every_kind_of_change(tmp_path: Path) -> None:
    """The Changes tab opens on the last 30 days: on the demo it must not be empty."""
    from memharness_tui.demo import build_day

    db, repo = ensure_demo(tmp_path)
    since = (build_day() - timedelta(days=30)).isoformat()
    s = Store.open(str(db), readonly=True)
    try:
        d = s.diff(since)
        newest = max(f.tx_at for f in s.list_facts(include_history=True, limit=1000))
    finally:
        s.close()
    assert d.learned and d.revised and d.retracted
    assert newest < f"{build_day():%Y-%m-%d}"  # nothing in the future of the build day
    head_date = subprocess.run(["git", "log", "-1", "--format=%cs"], cwd=repo, check=True,
                               capture_output=True, text=True).stdout.strip()
    assert since[:10] < head_date < f"{build_day():%Y-%m-%d}"


def _stored_verdicts(db: Path) -> dict[int, tuple[str | None, str | None]]:
    s = Store.open(str(db), readonly=True)
    try:
        return {f.id: (f.freshness, f.checked_head) for f in s.list_facts(limit=1000)
                if f.is_pinned and f.is_live}
    finally:
        s.close()


def test_a_fresh_demo_holds_the_verdicts_a_pass_over_its_repo_writes(tmp_path: Path) -> None:
    """The badges the demo opens with are true at its repo's HEAD: a first pass changes none."""
    from memharness_tui.staleness.runner import StalenessPass

    db, repo = ensure_demo(tmp_path)
    stored = _stored_verdicts(db)
    report = StalenessPass(db, [repo], check_only=True).run()
    head = _heads(repo)[0]
    assert stored == {v.fact_id: (v.freshness, head) for v in report.verdicts}
    assert len(stored) == 8  # every live pin was judged at build time
    stale = sorted(i for i, (verdict, _) in stored.items() if verdict == "stale")
    assert stale == report.stale_ids == [2, 4, 5, 6]  # #5: its file is deleted at HEAD
    s = Store.open(str(db), readonly=True)
    try:
        assert s.counts().stale == 4  # the header counts what the first pass finds
    finally:
        s.close()
