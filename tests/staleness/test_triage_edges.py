"""Triage edges the corpus lacks, through real git: a hunk that only inserts a line naming
the fact, and a rename git scores at about 60 % similarity."""

from __future__ import annotations

from pathlib import Path

from memharness_tui.staleness.analysis import analyse
from memharness_tui.staleness.git import GitChecker
from memharness_tui.staleness.git_changes import find_renames, path_change
from memharness_tui.staleness.triage import triage
from memharness_tui.store import Store

from .staleness_helpers import Repo, make_store

BODY = "".join(f"def handler_{i}(request):\n    return respond({i})\n\n" for i in range(10))


def test_a_pure_insertion_naming_the_fact_is_elsewhere(tmp_path: Path) -> None:
    """Adding a line that mentions the setting makes no existing statement false."""
    repo = Repo.init(tmp_path / "r")
    before = "import os\n\nSESSION_TTL = 1800\nRETRIES = 3\n"
    pin = repo.commit("one", {"conf.py": before})
    repo.commit("two", {"conf.py": before + "\n# SESSION_TTL is read once at start-up\n"})
    change = path_change(GitChecker(repo.path), pin, "conf.py")
    assert change.status == "modified"
    assert [ln.origin for h in change.hunks for ln in h.lines if ln.origin in "+-"] == ["+", "+"]
    result = triage("SESSION_TTL is 30 minutes", change)
    assert result.outcome == "elsewhere"
    assert not result.touched and result.changed_lines == 1
    # the same line replacing the old one does touch it (the insertion rule only)
    repo.commit("three", {"conf.py": before.replace("SESSION_TTL = 1800",
                                                    "SESSION_TTL = 3600")})
    assert triage("SESSION_TTL is 30 minutes",
                  path_change(GitChecker(repo.path), pin, "conf.py")).outcome == "touches"


def _sixty_percent_rename(repo: Repo) -> tuple[str, str]:
    pin = repo.commit("one", {"handlers.py": BODY})
    lines = BODY.splitlines(keepends=True)
    # rewrite four of the ten functions: git then scores the rename at about 60 %
    edited = [ln.replace("respond(", "respond_json(") if i % 3 == 1 and i < 12 else ln
              for i, ln in enumerate(lines)]
    edited = [ln.replace("handler_", "view_") if i < 12 else ln for i, ln in enumerate(edited)]
    head = repo.commit("move", {"handlers.py": None, "web/views.py": "".join(edited)})
    return pin, head


def test_a_rename_at_sixty_percent_is_moved(tmp_path: Path) -> None:
    repo = Repo.init(tmp_path / "r")
    pin, _ = _sixty_percent_rename(repo)
    checker = GitChecker(repo.path)
    [(old, (new, similarity))] = find_renames(checker, pin).items()
    assert (old, new) == ("handlers.py", "web/views.py")
    assert 55 <= similarity <= 65, similarity
    change = path_change(checker, pin, "handlers.py")
    assert (change.status, change.new_path, change.similarity) == ("moved", new, similarity)
    result = triage("handler_9 returns respond(9)", change)
    assert (result.outcome, result.new_path, result.similarity) == ("moved", new, similarity)
    db = tmp_path / "m.db"
    [fid] = make_store(db, [{"fact": "handler_9 returns respond(9)", "source_commit": pin,
                             "source_path": "handlers.py"}])
    store = Store.open(str(db))
    try:
        analysed = analyse(repo.path, store.get(fid))
    finally:
        store.close()
    assert (analysed.outcome, analysed.new_path) == ("moved", "web/views.py")
