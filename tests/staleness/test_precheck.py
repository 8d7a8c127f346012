"""The wrong-repo precheck's counting: exact when it warns, and it stops looking once it knows."""

from __future__ import annotations

from memharness_tui.staleness.precheck import coverage


def test_a_wrong_repo_is_counted_exactly() -> None:
    commits = ["a"] * 3 + ["b"] * 2 + ["c"] * 5
    cov = coverage(commits, lambda c: c in {"a", "b"})
    assert (cov.pins, cov.resolved, cov.wrong_repo) == (10, 5, False)
    cov = coverage(commits, lambda c: c == "a")
    assert (cov.pins, cov.resolved, cov.wrong_repo) == (10, 3, True)
    assert cov.sentence(["r"]) == "3 of 10 pins are in r — wrong repo?"


def test_lookups_stop_once_half_of_the_pins_resolve() -> None:
    asked: list[str] = []

    def resolves(commit: str) -> bool:
        asked.append(commit)
        return True

    commits = ["x"] * 6 + [f"c{i}" for i in range(5)]
    cov = coverage(commits, resolves)
    assert not cov.wrong_repo
    assert asked == ["x"]  # the most pinned commit first: 6 of 11 already decide it
    assert cov.resolved >= cov.pins / 2


def test_each_distinct_commit_is_looked_up_once() -> None:
    asked: list[str] = []

    def resolves(commit: str) -> bool:
        asked.append(commit)
        return False

    cov = coverage(["a", "b", "a", "b", "a"], resolves)
    assert (cov.pins, cov.resolved, cov.wrong_repo) == (5, 0, True)
    assert sorted(asked) == ["a", "b"]


def test_no_pins_is_never_the_wrong_repo() -> None:
    assert not coverage([], lambda c: False).wrong_repo
