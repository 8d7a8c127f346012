"""Builders for the dashboard tests: a small git repo (git CLI, fixed identity and dates) and a store."""

from __future__ import annotations

import atexit
import dataclasses
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memharness_tui.store.driver import sqlite3  # the store's library (one SQLite per process)

CLOCK_START = "2026-11-01T09:00:00.000Z"
APP_NOW = "2026-11-30T12:00:00.000Z"
UNKNOWN = "deadbeef" * 5


def git(cwd: Path, *args: str, when: str = "2026-09-01T09:00:00Z") -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0",
        GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@t", GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when,
    )
    out = subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false",
                          *args], cwd=cwd, env=env, check=True, capture_output=True, text=True)
    return out.stdout.strip()


def commit(repo: Path, message: str, when: str, files: Mapping[str, str | None]) -> str:
    for name, content in files.items():
        p = repo / name
        if content is None:
            p.unlink()
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(content)
    git(repo, "add", "-A", when=when)
    git(repo, "commit", "-q", "-m", message, when=when)
    return git(repo, "rev-parse", "HEAD")


@dataclass
class Shop:
    path: Path
    c1: str
    c2: str
    c3: str

    @property
    def head(self) -> str:
        return self.c3


def build_repo(path: Path) -> Shop:
    """c1 adds five files; c2 changes auth.py; c3 changes config.py and deletes legacy.py.

    Built with git once per test process (10 git commands, ~70 ms) and copied for each test
    after (#25): the fixed identity and dates make the same commits every time, and each
    test gets its own copy to commit to."""
    global _repo_template, _repo_dir
    if _repo_template is None:
        _repo_dir = tempfile.TemporaryDirectory(prefix="memharness-shop-")
        atexit.register(_repo_dir.cleanup)  # removed as the process ends, without a warning
        _repo_template = _build_repo(Path(_repo_dir.name) / "shop")
    shutil.copytree(_repo_template.path, path, symlinks=True)
    return dataclasses.replace(_repo_template, path=path)


_repo_template: Shop | None = None
_repo_dir: tempfile.TemporaryDirectory[str] | None = None


def _build_repo(path: Path) -> Shop:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    c1 = commit(path, "c1", "2026-09-01T09:00:00Z", {
        "README.md": "# shop\n",
        "src/auth.py": 'TTL = 30\nHASH = "bcrypt"\nCOST = 12\n',
        "src/db.py": 'ENGINE = "sqlite"\n',
        "src/config.py": "PORT = 8080\n",
        "src/legacy.py": "def import_csv():\n    pass\n",
    })
    c2 = commit(path, "c2", "2026-09-20T09:00:00Z",
                {"src/auth.py": 'TTL = 60\nHASH = "argon2id"\n'})
    c3 = commit(path, "c3", "2026-10-02T09:00:00Z",
                {"src/config.py": "PORT = 9090\n", "src/legacy.py": None})
    return Shop(path, c1, c2, c3)


def shop_facts(s: Shop) -> list[dict[str, Any]]:
    """Eight facts: 3 stale, 1 current, 2 unresolved, 1 backfill (current), 1 unpinned."""
    return [
        dict(subject="auth", fact="Passwords are hashed with bcrypt, cost 12", predicate="hash",
             source_commit=s.c1, source_path="src/auth.py", source_ref=f"shop@{s.c1}:src/auth.py",
             source_agent="agent", confidence=0.9),
        dict(subject="db", fact="Data lives in SQLite", source_commit=s.c1, source_path="src/db.py"),
        dict(subject="config", fact="The server listens on port 8080", source_commit=s.c1,
             source_path="src/config.py"),
        dict(subject="legacy", fact="CSV import lives in src/legacy.py", source_commit=s.c1,
             source_path="src/legacy.py"),
        dict(subject="deploy", fact="Deploys go through staging", source_commit=UNKNOWN),
        dict(subject="db", fact="Migrations live in src/migrations/", source_commit=s.c1,
             source_path="src/migrations"),
        dict(subject="user", fact="Prefers short answers", source_ref="session-41"),
        dict(subject="auth", fact="Sessions last an hour", source_ref=f"shop@{s.c2}:src/auth.py"),
    ]


# expected verdicts after a pass against HEAD (fact index → freshness)
EXPECTED = {1: "stale", 2: "current", 3: "stale", 4: "stale", 5: "unresolved",
            6: "unresolved", 7: None, 8: "current"}


def rows(db: Path) -> dict[int, dict[str, Any]]:
    """Every row, read with plain sqlite3 (read-only)."""
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        return {r["id"]: dict(r) for r in conn.execute("SELECT * FROM facts ORDER BY id")}
    finally:
        conn.close()


class FakeTimer:
    """A monotonic clock that moves 0.25 s per reading (elapsed and rate are then stable)."""

    def __init__(self, step: float = 0.25) -> None:
        self.t = 100.0
        self.step = step

    def __call__(self) -> float:
        self.t += self.step
        return self.t


class HeldCheck:
    """The flagged list's check after a followed pass, held (the follower's ``check_later``):
    ``due`` lists the delay of each check asked for; :meth:`run` runs them, as their timer
    would, once the test has looked at the list the pass left."""

    def __init__(self, follower: Any) -> None:
        self.due: list[float] = []
        self._callbacks: list[Any] = []
        follower.check_later = self._later

    def _later(self, delay: float, callback: Any) -> None:
        self.due.append(delay)
        self._callbacks.append(callback)

    def run(self) -> None:
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()
