"""GitChecker against real repos built by the tests (SPEC §8 table, repo shapes, drift)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from memharness_tui.staleness.git import GitChecker, RepoError, find_repo
from memharness_tui.staleness.verdicts import CURRENT, STALE, UNRESOLVED, classify

from .staleness_helpers import Repo, Scenario, clone, git


def judge(checker: GitChecker, pin: str, path: str | None = None) -> tuple[str, str]:
    return classify(checker.facts(pin, path))


@pytest.fixture(scope="module")
def checker(scenario: Scenario) -> GitChecker:
    return GitChecker(scenario.path)


def test_head_full_short_uppercase_is_current(checker: GitChecker, scenario: Scenario) -> None:
    head = scenario.sha["head"]
    assert checker.head == head
    for pin in (head, head[:7], head[:7].upper(), head.upper(), f"  {head[:10]}  "):
        assert judge(checker, pin) == (CURRENT, f"{head[:7]} is HEAD")


@pytest.mark.parametrize(
    ("label", "path", "freshness", "reason"),
    [
        ("c1", "src/a.py", STALE, "src/a.py changed since {c1}"),
        ("c2", "src/a.py", CURRENT, "src/a.py unchanged since {c2}"),
        ("c1", "conf/app.toml", CURRENT, "conf/app.toml unchanged since {c1}"),
        ("c1", "conf", CURRENT, "conf/ unchanged since {c1}"),
        ("c1", "conf/", CURRENT, "conf/ unchanged since {c1}"),
        ("c1", "./conf//app.toml", CURRENT, "conf/app.toml unchanged since {c1}"),
        ("c1", "src", STALE, "src/ changed since {c1}"),
        ("c1", "docs", STALE, "docs/ changed since {c1}"),
        ("c1", "lib/x.py", STALE, "lib/x.py was deleted since {c1}"),
        ("c1", "lib", STALE, "lib/ was deleted since {c1}"),
        ("c1", "new.py", UNRESOLVED, "new.py did not exist at {c1}"),
        ("c1", "never/was.py", UNRESOLVED, "never/was.py did not exist at {c1}"),
        ("c1", "../escape.py", UNRESOLVED, "../escape.py did not exist at {c1}"),
        ("c1", None, STALE, "HEAD has moved past {c1}"),
        ("c3", None, STALE, "HEAD has moved past {c3}"),
        ("c3", "new.py", CURRENT, "new.py unchanged since {c3}"),
        # a pin at HEAD whose path does not exist: unresolved, not current (the reference
        # says current: a diff of nothing is empty)
        ("head", "no/such.py", UNRESOLVED, "no/such.py did not exist at {head}"),
        ("head", "lib/x.py", UNRESOLVED, "lib/x.py did not exist at {head}"),
        # the side branch came in by a merge commit: its commits are ancestors
        ("s1", None, STALE, "HEAD has moved past {s1}"),
        ("s1", "docs/readme.md", CURRENT, "docs/readme.md unchanged since {s1}"),
        ("c2", "docs/readme.md", STALE, "docs/readme.md changed since {c2}"),
        ("m", "src/b.py", STALE, "src/b.py changed since {m}"),
        # a diverged branch HEAD does not contain
        ("f1", None, UNRESOLVED, "{f1} is on a branch HEAD does not contain"),
        ("f1", "src/a.py", UNRESOLVED, "{f1} is on a branch HEAD does not contain"),
        # an annotated tag object peels to its commit (c1)
        ("tag_v1", "src/a.py", STALE, "src/a.py changed since {tag_v1}"),
        ("tag_v1", "conf", CURRENT, "conf/ unchanged since {tag_v1}"),
        # objects that are not commits
        ("blob_a", None, UNRESOLVED, "{blob_a} is a blob, not a commit"),
        ("tree_src", "src", UNRESOLVED, "{tree_src} is a tree, not a commit"),
    ],
)
def test_verdict_table(
    checker: GitChecker,
    scenario: Scenario,
    label: str,
    path: str | None,
    freshness: str,
    reason: str,
) -> None:
    short = {k: v[:7] for k, v in scenario.sha.items()}
    for pin in (scenario.sha[label], scenario.sha[label][:9].upper()):
        assert judge(checker, pin, path) == (freshness, reason.format(**short))


def test_unknown_and_invalid_pins(checker: GitChecker) -> None:
    assert judge(checker, "0" * 40) == (UNRESOLVED, "0000000 is not in this repo")
    assert judge(checker, "deadbee", "src/a.py") == (UNRESOLVED, "deadbee is not in this repo")
    assert judge(checker, "HEAD")[0] == UNRESOLVED  # a ref name is not a pin
    assert judge(checker, "main")[0] == UNRESOLVED
    assert judge(checker, "abc")[0] == UNRESOLVED


def test_ambiguous_short_sha(tmp_path: Path) -> None:
    """Two blobs whose ids share 7 hex digits: that prefix is ambiguous, never current."""
    seen: dict[str, int] = {}
    i = 0
    while True:
        data = f"{i}\n".encode()
        h = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()[:7]
        if h in seen:
            break
        seen[h] = i
        i += 1
    r = Repo.init(tmp_path / "amb")
    r.commit("c", {"one.txt": f"{seen[h]}\n", "two.txt": f"{i}\n"})
    assert git(r.path, "rev-parse", "HEAD:one.txt")[:7] == h
    ch = GitChecker(r.path)
    assert judge(ch, h) == (UNRESOLVED, f"{h} is ambiguous in this repo (several objects start with it)")


def test_subfolder_bare_and_detached(scenario: Scenario, tmp_path: Path) -> None:
    sub = GitChecker(scenario.path / "src")
    assert sub.head == scenario.sha["head"]
    assert sub.path == scenario.path.resolve()
    assert find_repo(scenario.path / "src") is not None

    bare = clone(scenario.path, tmp_path / "bare.git", "--bare")
    b = GitChecker(bare)
    assert b.is_bare
    assert judge(b, scenario.sha["c1"], "src/a.py")[0] == STALE
    assert judge(b, scenario.sha["c2"], "src/a.py")[0] == CURRENT
    assert judge(b, scenario.sha["head"][:7])[0] == CURRENT

    work = clone(scenario.path, tmp_path / "detached")
    git(work, "checkout", "-q", "--detach", scenario.sha["c2"])
    d = GitChecker(work)
    assert d.head == scenario.sha["c2"]
    assert judge(d, scenario.sha["c2"][:7]) == (CURRENT, f"{scenario.sha['c2'][:7]} is HEAD")
    assert judge(d, scenario.sha["c1"], "src/a.py")[0] == STALE
    assert judge(d, scenario.sha["c3"])[0] == UNRESOLVED  # later commit: not contained


def test_shallow_clone_says_so(scenario: Scenario, tmp_path: Path) -> None:
    shallow = clone(scenario.path, tmp_path / "shallow", "--depth", "1")
    ch = GitChecker(shallow)
    assert ch.is_shallow
    assert judge(ch, scenario.sha["head"])[0] == CURRENT
    fresh, reason = judge(ch, scenario.sha["c1"], "src/a.py")
    assert fresh == UNRESOLVED
    assert "shallow clone" in reason and scenario.sha["c1"][:7] in reason


def test_empty_repo_and_non_repo(tmp_path: Path) -> None:
    empty = Repo.init(tmp_path / "empty").path
    with pytest.raises(RepoError, match="empty"):
        GitChecker(empty)
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(RepoError, match="not a git repository"):
        GitChecker(plain)
    with pytest.raises(RepoError, match="no such folder"):
        GitChecker(tmp_path / "missing")
    assert find_repo(plain) is None


def test_ancestry_is_walked_once(scenario: Scenario) -> None:
    ch = GitChecker(scenario.path)
    first = ch.ancestors
    judge(ch, scenario.sha["c1"], "src/a.py")
    judge(ch, scenario.sha["s1"])
    assert ch.ancestors is first
    # every commit of main and side, none of feature
    assert len(first) == 6


def test_drift_and_diff(checker: GitChecker, scenario: Scenario) -> None:
    s = scenario.sha
    d = checker.drift(s["c1"], "src/a.py")
    assert (d.commits, d.added, d.removed, d.files) == (1, 2, 1, 1)
    d = checker.drift(s["c1"], "docs")  # changed on the side branch, arrived by merge
    assert (d.commits, d.added, d.removed) == (1, 1, 0)
    d = checker.drift(s["c1"], "lib/x.py")
    assert (d.commits, d.added, d.removed) == (1, 0, 1)
    d = checker.drift(s["c1"])  # every commit since c1: c2 s1 c3 m c4
    assert d.commits == 5
    assert checker.drift(s["c2"], "src/a.py").commits == 0
    text = checker.diff_text(s["c1"], "src/a.py")
    assert text.startswith("diff --git a/src/a.py b/src/a.py")
    assert "-a = 1\n" in text and "+a = 2\n" in text and "+more = True\n" in text
    assert "src/b.py" not in text
    assert checker.diff_text(s["c2"], "src/a.py") == ""
    folder = checker.diff_text(s["c1"], "src")
    assert "a/src/a.py" in folder and "a/src/b.py" in folder
    # a path matches whole segments: "src/a" is not the start of src/a.py, "sr" not of src/
    assert checker.diff_text(s["c1"], "src/a") == "" and checker.diff_text(s["c1"], "sr") == ""
    assert checker.drift(s["c1"], "src/a").files == 0
    with pytest.raises(RepoError):
        checker.drift("0" * 40, "src/a.py")


def test_checker_for_and_judge(scenario: Scenario, tmp_path: Path) -> None:
    from memharness_tui.staleness.git import checker_for

    plain = tmp_path / "plain"
    plain.mkdir()
    ch = checker_for([plain, scenario.path], scenario.sha["c1"][:8])
    assert ch is not None and ch.path == scenario.path.resolve()
    assert checker_for([plain, scenario.path], "0" * 40) is None
    assert ch.judge(scenario.sha["c1"], "src/a.py") == (
        STALE, f"src/a.py changed since {scenario.sha['c1'][:7]}"
    )
    assert ch.drift(scenario.sha["c1"], "src/a.py").describe() == (
        "1 commit since the pin, +2 -1 lines"
    )
    assert ch.drift(scenario.sha["c1"]).describe().startswith("5 commits since the pin")


def test_unborn_head_in_a_repo_with_commits(scenario: Scenario, tmp_path: Path) -> None:
    work = clone(scenario.path, tmp_path / "unborn")
    git(work, "checkout", "-q", "--orphan", "fresh")
    with pytest.raises(RepoError, match="unborn"):
        GitChecker(work)


def test_annotated_tag_of_a_blob_is_not_a_commit(tmp_path: Path) -> None:
    r = Repo.init(tmp_path / "tags")
    r.commit("c", {"f.txt": "hello\n"})
    r.git("tag", "-a", "blobtag", "-m", "a tag of a blob", r.rev("HEAD:f.txt"))
    tag_sha = r.rev("refs/tags/blobtag")
    assert judge(GitChecker(r.path), tag_sha) == (
        UNRESOLVED, f"{tag_sha[:7]} is a tag, not a commit"
    )
