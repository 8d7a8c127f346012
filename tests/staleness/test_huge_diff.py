"""A huge diff is bounded (issue 20, item 7): past the size limit a diff, a drift and a triage
say how big the file is and what they read, and read no more than the limits.

No timings here (``bench/huge_diff_bench.py`` prints them): the tests assert the bound itself
(what is read and said), which is what keeps the time and memory down.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.staleness import cli as scli
from memharness_tui.staleness import git as sgit
from memharness_tui.staleness.analysis import Triager
from memharness_tui.staleness.git import GitChecker

from .staleness_helpers import Repo, make_store

LINE = "line {:>8} of big.txt says value {:>8} and padding\n"  # 57 bytes
N = 50_000  # 2.7 MB: past MAX_DIFF_BYTES (2 MB)
FACT = "line 12 of big.txt says value 12"


@pytest.fixture(scope="module")
def huge(tmp_path_factory: pytest.TempPathFactory) -> tuple[Repo, str]:
    repo = Repo.init(tmp_path_factory.mktemp("huge") / "repo")
    pin = repo.commit("pin", {"big.txt": "".join(LINE.format(i, i) for i in range(N)),
                              "small.txt": "a\n"})
    repo.commit("every line", {"big.txt": "".join(LINE.format(i, i + 1) for i in range(N)),
                               "small.txt": "b\n"})
    return repo, pin


NOTE = "diff too large: 2.7 MB, 50,000 lines; read the first 2.0 MB of each side"


def test_the_limits_are_below_the_huge_file() -> None:
    assert len(LINE.format(0, 0)) * N > sgit.MAX_DIFF_BYTES
    assert sgit.MAX_DIFF_LINES < 2 * N


def test_diff_text_says_how_big_and_shows_only_the_start(huge: tuple[Repo, str]) -> None:
    repo, pin = huge
    text = GitChecker(repo.path).diff_text(pin, "big.txt")
    lines = text.splitlines()
    assert lines[0] == f"# {NOTE}"
    assert lines[1].startswith(f"# showing the first {sgit.MAX_DIFF_LINES:,} of ")
    assert len(lines) == sgit.MAX_DIFF_LINES + 2
    assert "-line        0 of big.txt says value        0 and padding" in lines
    # a small file is diffed whole, with no note
    small = GitChecker(repo.path).diff_text(pin, "small.txt")
    assert not small.startswith("#") and "-a\n+b\n" in small


def test_drift_says_its_counts_are_of_the_start(huge: tuple[Repo, str]) -> None:
    repo, pin = huge
    drift = GitChecker(repo.path).drift(pin, "big.txt")
    assert drift.note == NOTE
    assert drift.added < N and drift.describe().endswith(f"lines ({NOTE})")


def test_triage_reads_at_most_the_line_budget_and_says_so(huge: tuple[Repo, str]) -> None:
    repo, pin = huge
    result = Triager([repo.path]).analyse(FACT, pin, "big.txt")
    read = sum(len(h.lines) for h in result.hunks)
    assert read <= sgit.MAX_DIFF_LINES
    assert result.evidence[0].startswith(f"{NOTE}; read the first ")
    assert f"{NOTE}; read the first " in result.summary


def test_the_markdown_report_says_how_big_the_diff_is(
    huge: tuple[Repo, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, pin = huge
    db = tmp_path / "m.db"
    make_store(db, [{"fact": FACT, "source_commit": pin, "source_path": "big.txt"}])
    argv = ["staleness", "--db", str(db), "--repo", str(repo.path), "--check",
            "--format", "markdown"]
    assert scli.main(argv) == 0
    out = capsys.readouterr().out
    assert "diff too large: 2.7 MB, 50,000 lines; read the first 2.0 MB of each side" in out
