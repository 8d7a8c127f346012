"""``staleness --format markdown|json`` and ``--watch``: triaged reports and passes that run themselves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memharness_tui.staleness import cli as scli
from memharness_tui.staleness.git_head import HeadProbe
from memharness_tui.staleness.watch import change_line, watch

from .staleness_helpers import Repo, file_bytes, make_store, rows

AUTH = "SESSION_TTL = 30 * 60\n\n\ndef audit(event):\n    print('auth', event)\n"


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Repo, Path, list[int], str]:
    repo = Repo.init(tmp_path / "repo")
    pin = repo.commit("pin", {"auth.py": AUTH, "cache.py": "CACHE_SIZE = 128\n" * 3,
                              "old.py": "def gone():\n    pass\n"})
    repo.commit("split auth module", {
        "auth.py": AUTH.replace("30 * 60", "15 * 60"),
        "cache.py": None,
        "util/cache.py": "CACHE_SIZE = 128\n" * 3,
        "old.py": None,
    })
    db = tmp_path / "m.db"
    ids = make_store(db, [
        {"fact": "sessions expire after 30 minutes", "source_commit": pin,
         "source_path": "auth.py"},
        {"fact": "audit() prints the `event` with an **auth** tag", "source_commit": pin,
         "source_path": "auth.py"},
        {"fact": "the cache holds 128 entries (CACHE_SIZE)", "source_commit": pin,
         "source_path": "cache.py"},
        {"fact": "gone() does nothing", "source_commit": pin, "source_path": "old.py"},
    ])
    return repo, db, ids, pin


def run(argv: list[str]) -> int:
    return scli.main(["staleness", *argv])


def test_markdown_groups_stale_facts_by_outcome_with_evidence(
    setup: tuple[Repo, Path, list[int], str], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, db, ids, pin = setup
    before = db.read_bytes()
    assert run(["--db", str(db), "--repo", str(repo.path), "--check", "--format", "markdown"]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines()[0] == "checked 4 / current 0 / stale 4 / unresolved 0"
    assert out.splitlines()[0].startswith(
        "### Stale facts: 4 stale, 1 touches it, 1 moved, 1 deleted, 1 elsewhere (HEAD "
    )
    sections = [ln for ln in out.splitlines() if ln.startswith("#### ")]
    assert sections == ["#### Touches it (1)", "#### Moved (1)", "#### Deleted (1)",
                        "#### Elsewhere in the file (1)"]
    assert (f"- **#{ids[0]}** sessions expire after 30 minutes — `auth.py@{pin[:7]}`"
            in out.splitlines())
    assert ("  - `30 minutes` changed on line 1: `SESSION_TTL = 30 * 60` → "
            "`SESSION_TTL = 15 * 60`") in out.splitlines()
    assert "  - cache.py → util/cache.py (100 %)" in out.splitlines()
    # fact text is Markdown text, not markup
    assert "audit() prints the \\`event\\` with an \\*\\*auth\\*\\* tag" in out
    assert db.read_bytes() == before  # --check wrote nothing
    wal = db.with_name(db.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_json_carries_the_same_fields(
    setup: tuple[Repo, Path, list[int], str], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, db, ids, _ = setup
    assert run(["--db", str(db), "--repo", str(repo.path), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["groups"] == {"touches": [ids[0]], "moved": [ids[2]], "deleted": [ids[3]],
                              "elsewhere": [ids[1]]}
    first = next(t for t in data["triage"] if t["id"] == ids[0])
    assert first["outcome"] == "touches" and first["label"] == "touches it"
    assert first["fact"] == "sessions expire after 30 minutes"
    assert first["evidence"][0].startswith("`30 minutes` changed on line 1")
    assert first["hunks"][0]["matches"] == 1
    moved = next(t for t in data["triage"] if t["id"] == ids[2])
    assert (moved["new_path"], moved["similarity"], moved["survived"]) == (
        "util/cache.py", 100, True)
    assert data["counts"] == "4 stale, 1 touches it, 1 moved, 1 deleted, 1 elsewhere"
    assert rows(db)[ids[0]]["freshness"] == "stale"  # without --check the pass wrote


def test_json_and_markdown_together_is_a_usage_error(
    setup: tuple[Repo, Path, list[int], str], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, db, _, _ = setup
    before = file_bytes(db.parent)
    assert run(["--db", str(db), "--repo", str(repo.path), "--json", "--format", "markdown"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "memharness-tui: error: --json and --format markdown cannot be combined"
    assert file_bytes(db.parent) == before


# -- watch ---------------------------------------------------------------------


class FakeHead:
    def __init__(self, shas: list[str | None]) -> None:
        self.shas = shas
        self.i = 0

    def read(self) -> str | None:
        sha = self.shas[min(self.i, len(self.shas) - 1)]
        self.i += 1
        return sha

    def subject(self, sha: str) -> str:
        return f"msg {sha[:3]}"


def test_watch_waits_for_head_to_settle_and_reports_once() -> None:
    a, b, c = "a" * 40, "b" * 40, "c" * 40
    # initial read, then polls: b (moves), c (moves again), c, c, c, c ...
    head = FakeHead([a, b, c, c, c, c, c, c])
    t = [0.0]
    lines: list[str] = []
    passes: list[float] = []

    def run_pass() -> str:
        passes.append(t[0])
        return "1 stale"

    def sleep(s: float) -> None:
        t[0] += s

    n = watch([head], run_pass, lines.append, poll=1.0, settle=2.0, clock=lambda: t[0],
              sleep=sleep, max_polls=7)
    assert n == 1
    assert passes == [4.0]  # c first seen at t=2, unchanged for 2 s
    assert lines == ["after ccccccc 'msg ccc': 1 stale"]


def test_watch_ignores_a_move_away_and_back_and_survives_a_failing_pass() -> None:
    a, b = "a" * 40, "b" * 40
    head = FakeHead([a, b, a, a, a, a, b, b, b, b])
    t = [0.0]
    lines: list[str] = []

    def boom() -> str:
        raise RuntimeError("database is locked")

    def sleep(s: float) -> None:
        t[0] += s

    n = watch([head], boom, lines.append, poll=1.0, settle=1.0, clock=lambda: t[0],
              sleep=sleep, max_polls=9)
    assert n == 1
    assert lines == ["after bbbbbbb 'msg bbb': pass failed: database is locked"]


def test_change_line_drops_control_characters() -> None:
    assert change_line([("a1b2c3d4", "split \x1b[31mauth")], "3 stale, 1 moved") == (
        "after a1b2c3d 'split [31mauth': 3 stale, 1 moved"
    )


def test_head_probe_sees_a_commit_made_after_it_opened(tmp_path: Path) -> None:
    repo = Repo.init(tmp_path / "r")
    first = repo.commit("one", {"a": "1\n"})
    probe = HeadProbe(repo.path)
    assert probe.read() == first
    second = repo.commit("two", {"a": "2\n"})
    assert probe.read() == second
    assert probe.subject(second) == "two"
    repo.git("checkout", "-q", first)
    assert probe.read() == first


def test_watch_cli_runs_a_pass_after_a_commit_made_by_the_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = Repo.init(tmp_path / "repo")
    pin = repo.commit("pin", {"auth.py": AUTH, "other.py": "x = 1\n"})
    db = tmp_path / "m.db"
    ids = make_store(db, [
        {"fact": "sessions expire after 30 minutes", "source_commit": pin,
         "source_path": "auth.py"},
        {"fact": "x is 1", "source_commit": pin, "source_path": "other.py"},
    ])
    from memharness_tui.staleness import watch as watch_mod

    polls = [0]
    clock = [0.0]

    def fake_sleep(s: float) -> None:
        clock[0] += s
        polls[0] += 1
        if polls[0] == 2:
            repo.commit("shorter sessions", {"auth.py": AUTH.replace("30 * 60", "15 * 60")})
        if polls[0] == 7:
            raise KeyboardInterrupt  # Ctrl+C

    monkeypatch.setattr(watch_mod.time, "sleep", fake_sleep)
    monkeypatch.setattr(watch_mod.time, "monotonic", lambda: clock[0])
    code = run(["--db", str(db), "--repo", str(repo.path), "--watch", "--settle", "2"])
    out, err = capsys.readouterr()
    assert code == 0
    head = repo.head()
    assert out.splitlines() == [f"after {head[:7]} 'shorter sessions': 1 stale, 1 touches it"]
    assert err.splitlines()[0] == f"watching 1 repo (HEAD {pin[:7]}); Ctrl+C to stop"
    assert err.splitlines()[-1] == "stopped watching"
    assert "Traceback" not in err
    r = rows(db)
    assert r[ids[0]]["freshness"] == "stale" and r[ids[0]]["checked_head"] == head
    assert r[ids[1]]["freshness"] == "current"


def test_watch_stops_on_a_real_ctrl_c_with_exit_0_and_no_traceback(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys

    repo = Repo.init(tmp_path / "repo")
    pin = repo.commit("pin", {"a.py": "A = 1\n"})
    db = tmp_path / "m.db"
    make_store(db, [{"fact": "A is 1", "source_commit": pin, "source_path": "a.py"}])
    # A terminal's Ctrl+C reaches a process whose SIGINT is at its default. A test run started
    # in the background of a script inherits SIGINT *ignored* (POSIX), and Python then keeps
    # ignoring it, so give the child the default disposition a terminal would.
    proc = subprocess.Popen(
        [sys.executable, "-m", "memharness_tui", "staleness", "--db", str(db),
         "--repo", str(repo.path), "--watch", "--poll", "0.05"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()  # blocks until the watch loop is about to start
        assert first.startswith("watching 1 repo (HEAD ")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == "stopped watching"
