"""git errors partway through a pass: unresolved verdicts with a reason, never a crash.

A treeless partial clone (``git clone --filter=tree:0``) has every commit but only
HEAD's trees; libgit2 cannot fetch the rest, so ``commit.tree`` raises GitError.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.staleness import cli as scli
from memharness_tui.staleness.git import GitChecker, MissingObjects, RepoError
from memharness_tui.staleness.runner import StalenessPass
from memharness_tui.staleness.verdicts import CURRENT, STALE, UNRESOLVED, classify
from memharness_tui.store import FakeClock

from .staleness_helpers import Repo, Scenario, git, make_store, rows


@pytest.fixture(scope="module")
def treeless(scenario: Scenario, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A treeless partial clone of the scenario repo (work tree: HEAD's trees only)."""
    git(scenario.path, "config", "uploadpack.allowFilter", "true")
    dest = tmp_path_factory.mktemp("partial") / "clone"
    git(dest.parent, "clone", "-q", "--filter=tree:0", scenario.path.as_uri(), str(dest))
    return dest


@pytest.fixture(scope="module")
def treeless_bare(scenario: Scenario, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bare treeless clone: not even HEAD's tree is there."""
    git(scenario.path, "config", "uploadpack.allowFilter", "true")
    dest = tmp_path_factory.mktemp("partial_bare") / "clone.git"
    git(dest.parent, "clone", "-q", "--bare", "--filter=tree:0", scenario.path.as_uri(), str(dest))
    return dest


def test_missing_trees_are_unresolved_with_a_reason(scenario: Scenario, treeless: Path) -> None:
    s = scenario.sha
    ch = GitChecker(treeless)
    assert ch.head == s["head"]
    c1 = s["c1"][:7]
    missing = f"objects for {c1} are missing (partial clone?)"
    assert classify(ch.facts(s["c1"], "src/a.py")) == (UNRESOLVED, missing)
    assert ch.judge(s["c1"], "conf") == (UNRESOLVED, missing)
    # what needs no missing object is still judged
    assert ch.judge(s["c1"]) == (STALE, f"HEAD has moved past {c1}")
    assert ch.judge(s["head"], "src/a.py") == (CURRENT, f"{s['head'][:7]} is HEAD")
    assert ch.judge(s["f1"])[0] == UNRESOLVED
    with pytest.raises(MissingObjects, match="partial clone"):
        ch.drift(s["c1"], "src/a.py")
    with pytest.raises(RepoError):
        ch.diff_text(s["c1"], "src/a.py")


def test_bare_treeless_clone_lacks_even_heads_tree(scenario: Scenario, treeless_bare: Path) -> None:
    s = scenario.sha
    ch = GitChecker(treeless_bare)
    freshness, reason = ch.judge(s["head"], "src/a.py")
    assert freshness == UNRESOLVED
    assert reason.endswith("are missing (partial clone?)")
    assert ch.judge(s["head"]) == (CURRENT, f"{s['head'][:7]} is HEAD")


def test_a_pass_over_a_partial_clone_finishes_and_writes_every_verdict(
    scenario: Scenario, treeless: Path, tmp_path: Path
) -> None:
    s = scenario.sha
    db = tmp_path / "m.db"
    ids = make_store(
        db,
        [
            {"source_commit": s["head"], "source_path": "src/a.py"},
            {"source_commit": s["c1"], "source_path": "src/a.py"},  # trees missing
            {"source_commit": s["c1"]},
            {"source_commit": s["c2"], "source_path": "src/a.py"},  # trees missing
            {"source_ref": f"m@{s['c2']}:src/a.py"},  # backfill, trees missing
        ],
    )
    spass = StalenessPass(db, [treeless], clock=FakeClock("2026-03-01"), batch_size=1)
    report = spass.run()
    assert report.summary_line() == "checked 5 / current 1 / stale 1 / unresolved 3 / backfilled 1"
    after = rows(db)
    assert [after[i]["freshness"] for i in ids] == [
        "current", "unresolved", "stale", "unresolved", "unresolved"
    ]
    assert after[ids[4]]["source_commit"] == s["c2"]
    reasons = {v.fact_id: v.reason for v in report.verdicts}
    assert reasons[ids[3]] == f"objects for {s['c2'][:7]} are missing (partial clone?)"


def test_cli_over_a_partial_clone_exits_0(
    scenario: Scenario, treeless: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = scenario.sha
    db = tmp_path / "m.db"
    make_store(db, [{"source_commit": s["c1"], "source_path": "src/a.py"}])
    code = scli.main(["staleness", "--db", str(db), "--repo", str(treeless), "--fail-on-stale"])
    _, err = capsys.readouterr()
    assert code == 0
    assert err.splitlines() == ["checked 1 / current 0 / stale 0 / unresolved 1"]


def test_missing_commit_in_history_is_unresolved(tmp_path: Path) -> None:
    """A commit object lost from HEAD's history: pins beyond it cannot be placed."""
    r = Repo.init(tmp_path / "repo")
    c1 = r.commit("c1", {"a.py": "1\n"})
    c2 = r.commit("c2", {"a.py": "2\n"})
    c3 = r.commit("c3", {"b.py": "3\n"})
    obj = r.path / ".git" / "objects" / c2[:2] / c2[2:]
    obj.chmod(0o644)
    obj.unlink()
    ch = GitChecker(r.path)
    assert ch.judge(c3) == (CURRENT, f"{c3[:7]} is HEAD")
    freshness, reason = ch.judge(c1, "a.py")
    assert freshness == UNRESOLVED
    assert reason.startswith(f"cannot tell whether {c1[:7]} is in HEAD's history: ")
    assert ch.judge(c2) == (UNRESOLVED, f"{c2[:7]} is not in this repo")


def test_unexpected_error_is_one_line_and_exit_2_never_1(
    scenario: Scenario, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s = scenario.sha
    db = tmp_path / "m.db"
    make_store(db, [{"source_commit": s["c1"], "source_path": "src/a.py"}])

    def boom(self: StalenessPass) -> None:
        raise RuntimeError("libgit2 said no\nsecond line")

    monkeypatch.setattr(StalenessPass, "run", boom)
    argv = ["staleness", "--db", str(db), "--repo", str(scenario.path), "--fail-on-stale"]
    assert scli.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "memharness-tui: error: staleness pass failed: RuntimeError: libgit2 said no second line"
    ]
