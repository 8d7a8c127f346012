"""Git and file edge cases that used to read as something else (issue 20, item 10): a watched
database deleted, a submodule pin, an unreadable repo folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memharness_tui.staleness import cli as scli
from memharness_tui.staleness.analysis import Triager
from memharness_tui.staleness.git import GitChecker

from .staleness_helpers import Repo, git, make_store


def test_watch_after_the_database_was_deleted_says_so_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = Repo.init(tmp_path / "repo")
    pin = repo.commit("pin", {"a.py": "x = 1\n"})
    db = tmp_path / "m.db"
    make_store(db, [{"fact": "x is 1", "source_commit": pin, "source_path": "a.py"}])
    from memharness_tui.staleness import watch as watch_mod

    polls = [0]
    clock = [0.0]

    def fake_sleep(s: float) -> None:
        clock[0] += s
        polls[0] += 1
        if polls[0] == 2:
            for p in tmp_path.glob("m.db*"):
                p.unlink()
            repo.commit("next", {"a.py": "x = 2\n"})
        if polls[0] == 9:
            raise KeyboardInterrupt  # never reached: the watch stops first

    monkeypatch.setattr(watch_mod.time, "sleep", fake_sleep)
    monkeypatch.setattr(watch_mod.time, "monotonic", lambda: clock[0])
    code = scli.main(["staleness", "--db", str(db), "--repo", str(repo.path), "--watch",
                      "--settle", "2"])
    out, err = capsys.readouterr()
    assert code == 2
    assert "0 stale" not in out
    assert err.splitlines()[-1] == (f"memharness-tui: error: the database {db} is gone "
                                    "(deleted or moved); stopped watching")
    assert not db.exists()  # and no empty one was made in its place


@pytest.fixture
def with_submodule(tmp_path: Path) -> tuple[Repo, str, str, str]:
    lib = Repo.init(tmp_path / "lib")
    v1 = lib.commit("v1", {"lib.py": "V = 1\n"})
    repo = Repo.init(tmp_path / "repo")
    repo.commit("base", {"a.py": "x\n"})
    git(repo.path, "-c", "protocol.file.allow=always", "submodule", "add", "-q",
        str(lib.path), "mod")
    pin = repo.commit("add mod")
    v2 = lib.commit("v2", {"lib.py": "V = 2\n"})
    git(repo.path / "mod", "pull", "-q", "origin", "main")
    repo.git("add", "mod")
    repo.commit("bump mod")
    return repo, pin, v1, v2


def test_a_submodule_pin_says_it_is_a_submodule_and_which_commits(
    with_submodule: tuple[Repo, str, str, str],
) -> None:
    repo, pin, v1, v2 = with_submodule
    ch = GitChecker(repo.path)
    assert ch.judge(pin, "mod") == ("stale", f"mod changed since {pin[:7]}")
    result = Triager([repo.path]).analyse("lib.py sets V to 1", pin, "mod")
    assert result.summary == (f"mod is a submodule: its commit moved from {v1[:7]} to "
                              f"{v2[:7]} (its changes are in its own repo)")
    assert "cannot diff" not in result.summary
    assert ch.diff_text(pin, "mod") == f"# {result.summary}\n"
    assert ch.drift(pin, "mod").note == result.summary


def test_an_unchanged_submodule_says_so(with_submodule: tuple[Repo, str, str, str]) -> None:
    repo, pin, v1, _ = with_submodule
    head = repo.head()
    result = Triager([repo.path]).analyse("lib.py sets V", head, "mod")
    assert result.outcome == "unknown"
    assert "mod" in result.summary


_CHILD = """
import sys
from memharness_tui.staleness.git import GitChecker, RepoError
try:
    GitChecker(sys.argv[1])
except RepoError as e:
    print(e)
"""


def test_an_unreadable_repo_folder_says_it_cannot_be_read(tmp_path: Path) -> None:
    """Permissions do not bind root: as root, the check runs in a child without the
    capabilities that override them (``setpriv``)."""
    import shutil

    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: folder permissions cannot bind")
        prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search",
                  "--inh-caps=-dac_override,-dac_read_search"]
    repo = Repo.init(tmp_path / "repo")
    repo.commit("one", {"a.py": "x\n"})
    (tmp_path / "repo").chmod(0o000)
    try:
        proc = subprocess.run(
            [*prefix, sys.executable, "-c", _CHILD, str(tmp_path / "repo")],
            capture_output=True, text=True, timeout=60,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        )
    finally:
        (tmp_path / "repo").chmod(0o755)
    assert proc.stderr == ""
    assert proc.stdout.strip() == (f"{tmp_path / 'repo'}: cannot be read (permission denied); "
                                   "check the folder's permissions")



def test_a_folder_holding_a_submodule_is_still_triaged(tmp_path: Path) -> None:
    """The folder's files are diffed; the submodule in it is left out, not an error."""
    repo = Repo.init(tmp_path / "repo")
    repo.write({"vendor/x.py": "TOKEN = 1\n"})
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},vendor/mod")
    pin = repo.commit("pin")
    repo.write({"vendor/x.py": "TOKEN = 2\n"})
    repo.git("update-index", "--cacheinfo", f"160000,{'2' * 40},vendor/mod")
    repo.commit("change both")
    result = Triager([repo.path]).analyse("TOKEN is 1", pin, "vendor")
    assert result.outcome == "touches", result.summary
    assert [h.file for h in result.hunks] == ["vendor/x.py"]
