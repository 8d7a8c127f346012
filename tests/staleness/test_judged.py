"""``GitChecker.judged`` (the pass's fast path) says exactly what ``classify(facts)`` says."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from memharness_tui.staleness.git import GitChecker
from memharness_tui.staleness.verdicts import classify

from .staleness_helpers import Scenario

PATHS = [None, "", "  ", ".", "/", "src/a.py", "src/b.py", "./src//a.py", "src/a.py/",
         " src/a.py ", "src", "src/", "conf", "conf/app.toml", "lib/x.py", "lib", "new.py",
         "docs/readme.md", "missing.txt", "../outside.py", "src/../src/a.py", "a/../../x",
         "src/a.py/deeper", "SRC/A.PY"]


def pins(s: dict[str, str]) -> list[str]:
    out = []
    for label in ("head", "c1", "c2", "s1", "c3", "m", "c4", "f1", "tag_v1", "blob_a",
                  "tree_src"):
        sha = s[label]
        out += [sha, sha[:7], sha[:12].upper(), f"  {sha[:9]} "]
    return out + ["0123456789abcdef0123456789abcdef01234567", "0123456", "xyz", "", "  ",
                  "abc", "g" * 40]


def expected(checker: GitChecker, pin: str, path: str | None) -> tuple[str, str, str | None]:
    facts = checker.facts(pin, path)
    return (*classify(facts), facts.commit)


@pytest.mark.parametrize("order", ["pins first", "paths first", "shuffled"])
def test_judged_equals_classify_of_facts_for_every_pin_and_path(
    scenario: Scenario, order: str
) -> None:
    pairs = list(itertools.product(pins(scenario.sha), PATHS))
    if order == "paths first":
        pairs.sort(key=lambda p: (p[1] or "", p[0]))
    elif order == "shuffled":
        random.Random(9).shuffle(pairs)
    fast = GitChecker(scenario.path)  # its caches fill in this order
    slow = GitChecker(scenario.path)
    for pin, path in pairs + pairs:  # twice: cold and warm caches
        assert fast.judged(pin, path) == expected(slow, pin, path), (pin, path)


@pytest.mark.parametrize("kind", ["shallow", "treeless", "treeless bare"])
def test_judged_matches_on_shallow_and_partial_clones(
    scenario: Scenario, tmp_path_factory: pytest.TempPathFactory, kind: str
) -> None:
    """Missing history and missing trees (``MissingObjects``) take the facts' own road."""
    from .staleness_helpers import clone, git

    dest = tmp_path_factory.mktemp("clone") / ("r.git" if "bare" in kind else "r")
    if kind == "shallow":
        clone(scenario.path, dest, "--depth", "2")
    else:
        git(scenario.path, "config", "uploadpack.allowFilter", "true")
        extra = ["--bare"] if "bare" in kind else []
        git(dest.parent, "clone", "-q", *extra, "--filter=tree:0", scenario.path.as_uri(),
            str(dest))
    fast, slow = GitChecker(dest), GitChecker(dest)
    for pin, path in itertools.product(pins(scenario.sha), PATHS[:14]):
        assert fast.judged(pin, path) == expected(slow, pin, path), (pin, path)


def test_judged_shows_a_path_that_became_a_folder_or_a_file_as_a_folder(
    tmp_path: Path,
) -> None:
    from .staleness_helpers import Repo

    r = Repo.init(tmp_path / "r")
    c1 = r.commit("c1", {"p": "a file\n", "d/x.txt": "x\n", "same": "s\n"})
    r.commit("c2", {"p": None, "d": None})
    head = r.commit("c3", {"p/q.txt": "now a folder\n", "d": "now a file\n"})
    fast, slow = GitChecker(r.path), GitChecker(r.path)
    for pin in (c1, head):
        for path in ("p", "d", "same", "p/q.txt", "d/x.txt", None):
            assert fast.judged(pin, path) == expected(slow, pin, path), (pin, path)
    assert fast.judged(c1, "p")[1] == f"p/ changed since {c1[:7]}"
    assert fast.judged(c1, "d")[1] == f"d/ changed since {c1[:7]}"
