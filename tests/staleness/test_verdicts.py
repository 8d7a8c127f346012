"""The verdict table of SPEC §8 as a pure function, and the multi-repo choice."""

from __future__ import annotations

import pytest

from memharness_tui.staleness.verdicts import (
    CURRENT,
    STALE,
    UNRESOLVED,
    GitFacts,
    choose_facts,
    classify,
    classify_many,
)

HEAD = "f" * 40
PIN = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"


def facts(**kw: object) -> GitFacts:
    base: dict[str, object] = {"pin": PIN, "resolution": "commit", "head": HEAD, "commit": PIN}
    base.update(kw)
    return GitFacts(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("f", "freshness", "reason"),
    [
        # pin does not resolve to a commit in this repo
        (facts(resolution="unknown", commit=None), UNRESOLVED, "a1b2c3d is not in this repo"),
        (
            facts(resolution="ambiguous", commit=None),
            UNRESOLVED,
            "a1b2c3d is ambiguous in this repo (several objects start with it)",
        ),
        (
            facts(resolution="not_commit", commit=None, object_type="blob"),
            UNRESOLVED,
            "a1b2c3d is a blob, not a commit",
        ),
        (
            facts(pin="main", resolution="invalid", commit=None),
            UNRESOLVED,
            "'main' is not a commit SHA (need 7-40 hex digits)",
        ),
        # pin resolves to HEAD's commit
        (facts(commit=HEAD, is_head=True, is_ancestor=True), CURRENT, "a1b2c3d is HEAD"),
        # not an ancestor of HEAD
        (facts(), UNRESOLVED, "a1b2c3d is on a branch HEAD does not contain"),
        # ancestor, path identical (file, then folder)
        (
            facts(is_ancestor=True, path="src/x.py", path_at_pin="1", path_at_head="1"),
            CURRENT,
            "src/x.py unchanged since a1b2c3d",
        ),
        (
            facts(
                is_ancestor=True, path="src", path_at_pin="1", path_at_head="1", path_is_folder=True
            ),
            CURRENT,
            "src/ unchanged since a1b2c3d",
        ),
        # ancestor, entry differs, or gone at HEAD
        (
            facts(is_ancestor=True, path="src/x.py", path_at_pin="1", path_at_head="2"),
            STALE,
            "src/x.py changed since a1b2c3d",
        ),
        (
            facts(is_ancestor=True, path="src/x.py", path_at_pin="1", path_at_head=None),
            STALE,
            "src/x.py was deleted since a1b2c3d",
        ),
        # ancestor, path missing at the pin
        (
            facts(is_ancestor=True, path="src/x.py", path_at_pin=None, path_at_head="2"),
            UNRESOLVED,
            "src/x.py did not exist at a1b2c3d",
        ),
        (
            facts(is_ancestor=True, path="src/x.py", path_at_pin=None, path_at_head=None),
            UNRESOLVED,
            "src/x.py did not exist at a1b2c3d",
        ),
        # ancestor, no path, HEAD moved past
        (facts(is_ancestor=True), STALE, "HEAD has moved past a1b2c3d"),
        # HEAD itself with a path: the path is still checked
        (
            facts(is_head=True, is_ancestor=True, path="x", path_at_pin="1", path_at_head="1"),
            CURRENT,
            "a1b2c3d is HEAD",
        ),
        (
            facts(is_head=True, is_ancestor=True, path="x"),
            UNRESOLVED,
            "x did not exist at a1b2c3d",
        ),
    ],
)
def test_table(f: GitFacts, freshness: str, reason: str) -> None:
    assert classify(f) == (freshness, reason)


def test_shallow_reasons() -> None:
    fresh, reason = classify(facts(resolution="unknown", commit=None, shallow=True))
    assert fresh == UNRESOLVED
    assert reason.startswith("a1b2c3d is not in this repo (shallow clone")
    fresh, reason = classify(facts(shallow=True))
    assert fresh == UNRESOLVED
    assert "shallow clone" in reason


def test_uppercase_short_pin_reason_is_lowercase() -> None:
    assert classify(facts(pin="A1B2C3D", resolution="unknown", commit=None))[1] == (
        "a1b2c3d is not in this repo"
    )


def test_unknown_is_never_current_or_stale() -> None:
    for res in ("unknown", "ambiguous", "not_commit", "invalid"):
        for anc in (True, False):
            for head in (True, False):
                f = facts(resolution=res, commit=None, is_ancestor=anc, is_head=head,
                          path="p", path_at_pin="1", path_at_head="2")
                assert classify(f)[0] == UNRESOLVED


def test_choose_prefers_repo_whose_head_contains_the_pin() -> None:
    unknown = facts(resolution="unknown", commit=None, repo="a")
    diverged = facts(repo="b")
    ancestor = facts(is_ancestor=True, repo="c")
    assert choose_facts([unknown, diverged, ancestor]).repo == "c"
    assert choose_facts([unknown, diverged]).repo == "b"
    blob = facts(resolution="not_commit", commit=None, object_type="blob", repo="d")
    assert choose_facts([unknown, blob]).repo == "d"
    with pytest.raises(ValueError):
        choose_facts([])


def test_choose_keeps_the_most_specific_failure() -> None:
    """No repo knows the commit: ambiguous, then not-a-commit, then invalid, then unknown."""
    unknown = facts(resolution="unknown", commit=None, repo="u")
    invalid = facts(resolution="invalid", commit=None, repo="i")
    blob = facts(resolution="not_commit", commit=None, object_type="blob", repo="n")
    ambiguous = facts(resolution="ambiguous", commit=None, repo="a")
    ranked = [ambiguous, blob, invalid, unknown]
    for i in range(len(ranked)):
        rest = ranked[i:]
        assert choose_facts(list(reversed(rest))).repo == rest[0].repo
        assert choose_facts(rest).repo == rest[0].repo


def test_classify_many_unknown_everywhere() -> None:
    a = facts(resolution="unknown", commit=None, repo="a")
    b = facts(resolution="unknown", commit=None, repo="b")
    chosen, fresh, reason = classify_many([a, b])
    assert (chosen.repo, fresh, reason) == ("a", UNRESOLVED, "a1b2c3d is not in any of the 2 repos")
    assert classify_many([a])[2] == "a1b2c3d is not in this repo"


def test_git_error_is_unresolved_with_its_reason() -> None:
    why = "objects for a1b2c3d are missing (partial clone?)"
    f = facts(is_ancestor=True, path="x", path_at_pin="1", path_at_head="2", error=why)
    assert classify(f) == (UNRESOLVED, why)
    # never current, even when the rest would say so
    assert classify(facts(is_head=True, is_ancestor=True, error=why)) == (UNRESOLVED, why)


def test_choose_prefers_a_repo_where_git_could_answer() -> None:
    broken = facts(is_ancestor=True, path="x", error="objects for a1b2c3d are missing", repo="a")
    fine = facts(is_ancestor=True, path="x", path_at_pin="1", path_at_head="1", repo="b")
    assert choose_facts([broken, fine]) is fine
    chosen, freshness, _ = classify_many([broken, facts(resolution="unknown", commit=None)])
    assert (chosen, freshness) == (broken, UNRESOLVED)
