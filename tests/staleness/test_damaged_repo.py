"""A damaged repo is a repo error, never a verdict (issue 20, item 6).

Real repos whose loose object files are overwritten or truncated on disk (the commits are made
with the git CLI and never packed). A pass leaves every verdict that needed the damaged object
as it was, names the object and the repo, and the CLI exits 2 even with ``--fail-on-stale``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.staleness import cli as scli

from .staleness_helpers import Repo, make_store, rows


def _damage(repo: Repo, oid: str, how: str) -> None:
    path = repo.path / ".git" / "objects" / oid[:2] / oid[2:]
    assert path.exists(), "the object must be loose"
    data = path.read_bytes()
    path.chmod(0o644)
    # truncated: libgit2 1.9 loops forever inflating this; overwritten: not zlib at all
    path.write_bytes(data[: len(data) // 2] if how == "truncated" else b"\x00garbage" * 8)


@pytest.fixture
def five_stale(tmp_path: Path) -> tuple[Repo, Path, list[int], str]:
    repo = Repo.init(tmp_path / "repo")
    pin = repo.commit("pin", {f"f{i}.py": f"v = {i}\n" for i in range(5)})
    repo.commit("change", {f"f{i}.py": f"v = {i + 10}\n" for i in range(5)})
    db = tmp_path / "m.db"
    ids = make_store(db, [{"source_commit": pin, "source_path": f"f{i}.py"} for i in range(5)])
    assert scli.main(["staleness", "--db", str(db), "--repo", str(repo.path)]) == 0
    assert [rows(db)[i]["freshness"] for i in ids] == ["stale"] * 5
    return repo, db, ids, pin


@pytest.mark.parametrize("how", ["overwritten", "truncated"])
def test_a_damaged_head_tree_leaves_every_verdict_and_exits_2(
    five_stale: tuple[Repo, Path, list[int], str], how: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    repo, db, ids, _ = five_stale
    tree = repo.rev("HEAD^{tree}")
    _damage(repo, tree, how)
    capsys.readouterr()
    before = {i: dict(r) for i, r in rows(db).items()}
    argv = ["staleness", "--db", str(db), "--repo", str(repo.path), "--fail-on-stale"]
    assert scli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"memharness-tui: error: {repo.path.resolve()}: git object {tree} "
                          "(the tree of ")
    assert "is damaged and cannot be read" in err
    assert rows(db) == before  # nothing written: the five stale verdicts stand


def test_a_damaged_pin_tree_leaves_its_pins_and_judges_the_rest(
    five_stale: tuple[Repo, Path, list[int], str], capsys: pytest.CaptureFixture[str],
) -> None:
    repo, db, ids, pin = five_stale
    head = repo.head()
    other = make_store(db, [{"source_commit": head, "source_path": "f0.py"}])[0]
    tree = repo.rev(f"{pin}^{{tree}}")
    _damage(repo, tree, "truncated")
    capsys.readouterr()
    before = rows(db)
    argv = ["staleness", "--db", str(db), "--repo", str(repo.path), "--fail-on-stale"]
    assert scli.main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "checked 1 / current 1 / stale 0 / unresolved 0"
    assert f"git object {tree} (the tree of {pin[:7]})" in err[1]
    assert err[2] == ("memharness-tui: error: 5 pins were not judged: the git objects they "
                      "need are damaged; their verdicts are unchanged")
    after = rows(db)
    assert {i: after[i] for i in ids} == {i: before[i] for i in ids}
    assert after[other]["freshness"] == "current"


def test_a_missing_object_is_still_a_partial_clone_not_damage(tmp_path: Path) -> None:
    from memharness_tui.staleness.git import CorruptObject, GitChecker, loose_damage

    repo = Repo.init(tmp_path / "repo")
    repo.commit("one", {"a.py": "1\n"})
    assert loose_damage(repo.path / ".git", "0" * 40) is None
    tree = repo.rev("HEAD^{tree}")
    assert loose_damage(repo.path / ".git", tree) is None
    _damage(repo, tree, "truncated")
    assert loose_damage(repo.path / ".git", tree).startswith("truncated")  # type: ignore[union-attr]
    with pytest.raises(CorruptObject, match=tree):
        GitChecker(repo.path)
