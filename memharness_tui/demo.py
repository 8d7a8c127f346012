"""A demo store and a small git repo in the user cache folder, built deterministically.

``ensure_demo()`` builds both once (or reuses them) and returns ``(db_path, repo_path)``. Every
date is relative to the day of the build (the timeline ends the day before), so the app's
default windows, such as the Changes tab's last 30 days, have something to show; two builds on
the same day are identical, down to the commit SHAs. The repo is made with the ``git`` command
line (fixed identity), never pygit2: only the staleness engine touches git through a library.
The store holds facts across subjects, revision chains, a backdated correction, retractions,
and pins that a staleness pass finds current, stale and unresolved. The build ends with a real
staleness pass over the demo repo (``record_verdicts``), so the app shows badges at once and
they are the verdicts any pass against HEAD writes: a first pass in the app finds what the
header already counts.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

DEMO_VERSION = "6"  # bump whenever the built demo changes: old ones are rebuilt
MARKER = "demo-version"
UNKNOWN_SHA = "deadbeef" * 5  # a well-formed SHA that resolves nowhere

_FILES_C1 = {
    "README.md": "# tiny-shop\n\nA demo service for memharness-tui.\n",
    "src/auth.py": 'SESSION_TTL_MINUTES = 30\nHASH = "bcrypt"\nBCRYPT_COST = 12\n',
    "src/db.py": 'ENGINE = "sqlite"\nJOURNAL_MODE = "WAL"\n',
    "src/config.py": "PORT = 8080\nDEBUG = False\n",
    "src/legacy.py": "def import_csv(path):\n    raise NotImplementedError\n",
}
_FILES_C2 = {"src/auth.py": 'SESSION_TTL_MINUTES = 60\nHASH = "argon2id"\n'}
_FILES_C3 = {"src/config.py": "PORT = 9090\nDEBUG = False\n"}
_DELETED_C3 = ("src/legacy.py",)


START_DAYS_AGO = 56  # the timeline spans 55 days and ends the day before the build


@functools.cache
def build_day() -> date:
    """The day the demo is built (UTC), fixed once per process so two builds always agree."""
    return datetime.now(UTC).date()


@dataclass(frozen=True)
class _Timeline:
    """Dates of the demo's story, counted in days from its first day."""

    start: date

    def at(self, days: int, hh_mm: str = "10:00") -> str:
        return f"{self.start + timedelta(days=days):%Y-%m-%d}T{hh_mm}:00.000Z"

    def day(self, days: int) -> str:
        return f"{self.start + timedelta(days=days):%Y-%m-%d}"

    def month_day(self, days: int) -> str:
        d = self.start + timedelta(days=days)
        return f"{d:%b} {d.day}"


def timeline(today: date | None = None) -> _Timeline:
    return _Timeline((today or build_day()) - timedelta(days=START_DAYS_AGO))


@dataclass(frozen=True)
class _Commits:
    c1: str
    c2: str
    c3: str


def _git_env(when: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_NAME="Demo Author", GIT_AUTHOR_EMAIL="demo@example.invalid",
        GIT_COMMITTER_NAME="Demo Author", GIT_COMMITTER_EMAIL="demo@example.invalid",
        GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when,
        GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
    )
    return env


def _git(repo: Path, *args: str, when: str = "2000-01-01T00:00:00Z") -> str:
    cmd = ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false",
           "-c", "core.autocrlf=false", *args]
    done = subprocess.run(cmd, cwd=repo, env=_git_env(when), check=True,
                          capture_output=True, text=True)
    return done.stdout.strip()


def _write(repo: Path, files: dict[str, str]) -> None:
    for rel, content in files.items():
        target = repo / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")


def _commit(repo: Path, message: str, when: str) -> str:
    _git(repo, "add", "-A", when=when)
    _git(repo, "commit", "-q", "-m", message, when=when)
    return _git(repo, "rev-parse", "HEAD", when=when)


def build_repo(repo: Path, t: _Timeline | None = None) -> _Commits:
    t = t or timeline()
    repo.mkdir(parents=True, exist_ok=True)
    _git(repo, "init", "-q")
    _write(repo, _FILES_C1)
    c1 = _commit(repo, "Initial service skeleton", t.at(0, "09:00"))
    _write(repo, _FILES_C2)
    c2 = _commit(repo, "Longer sessions; argon2id for passwords", t.at(19, "08:30"))
    _write(repo, _FILES_C3)
    for rel in _DELETED_C3:
        (repo / rel).unlink()
    c3 = _commit(repo, "Move to port 9090; drop the legacy importer", t.at(55, "11:15"))
    return _Commits(c1, c2, c3)


def build_store(db_path: Path, commits: _Commits, t: _Timeline | None = None) -> None:
    from memharness_tui.store import FakeClock, Store

    t = t or timeline()
    day = 86_400_000
    clock = FakeClock(t.at(0), 7 * 60_000)
    s = Store.open(str(db_path), clock=clock)
    try:
        c1, c2 = commits.c1, commits.c2
        ref1 = f"tiny-shop@{c1}"

        def pin(path: str | None, commit: str = c1) -> dict[str, Any]:  # remember()'s keywords
            return {"source_commit": commit, "source_path": path,
                    "source_ref": f"tiny-shop@{commit}" + (f":{path}" if path else "")}

        ttl, _ = s.remember("auth", "Sessions expire after 30 minutes", predicate="session_ttl",
                            source_agent="claude-code", importance=7, **pin("src/auth.py"))
        s.remember("auth", "Passwords are hashed with bcrypt, cost 12",
                   predicate="password_hash", source_agent="claude-code",
                   importance=8, **pin("src/auth.py"))
        s.remember("db", "The service stores its data in SQLite with WAL journaling",
                   predicate="engine", source_agent="claude-code", **pin("src/db.py"))
        s.remember("config", "The HTTP server listens on port 8080", predicate="port",
                   source_agent="cursor", **pin("src/config.py"))
        s.remember("legacy", "CSV import lives in src/legacy.py (import_csv)",
                   predicate="location", source_agent="cursor", importance=3,
                   **pin("src/legacy.py"))
        s.remember("project", "tiny-shop is a demo web shop used to try memharness",
                   predicate="purpose", source_agent="claude-code", source_ref=ref1,
                   source_commit=c1)
        status1, _ = s.remember("project", "Release status: alpha", predicate="status",
                                source_agent="human", source_ref=f"standup-{t.day(0)}")
        s.remember("user", "Prefers short answers with code first", predicate="style",
                   source_agent="claude-code", source_ref="session-41", kind="episodic")
        s.remember("user", "Run the test suite before every commit", predicate="workflow",
                   source_agent="claude-code", source_ref="session-41", kind="procedural",
                   importance=9)
        scratch1, _ = s.remember("scratch", "TODO: ask about the staging database size",
                                 source_agent="cursor", source_ref="scratch:notes", importance=2,
                                 kind="episodic")
        s.remember("scratch", "Maybe cache product images in Redis?", source_agent="cursor",
                   source_ref="scratch:notes", importance=2, kind="episodic")
        s.remember("deploy", "Deploys go through the staging branch first",
                   predicate="process", source_agent="claude-code",
                   source_ref=f"ops@{UNKNOWN_SHA}", source_commit=UNKNOWN_SHA,
                   kind="procedural")
        s.remember("db", "Migrations live in src/migrations/", predicate="migrations",
                   source_agent="cursor", **pin("src/migrations"))
        s.remember("ui", "Release notes use [bold]Rich[/] markup — shown literally here 🎉",
                   source_agent="human", source_ref="https://example.invalid/notes")
        s.remember("ui", "Arabic greeting for the storefront: مرحبا بكم", predicate="greeting",
                   source_agent="human", importance=4)
        clock.advance(9 * day)
        status2 = s.revise(status1, "Release status: beta", source_agent="human",
                           source_ref=f"standup-{t.day(9)}")[1]
        clock.advance(10 * day)
        s.revise(ttl, "Sessions expire after 60 minutes", source_agent="claude-code",
                 **pin("src/auth.py", c2))
        s.forget(fact_id=scratch1)
        clock.advance(12 * day)
        # A backdated correction: learned on day 31, true in the world since day 9 (then day 24).
        pg, _ = s.remember("db", "Production runs PostgreSQL 15", predicate="production_engine",
                           source_agent="cursor", source_ref="runbook.md",
                           valid_from=t.at(9, "00:00"))
        clock.advance(2 * day)
        s.revise(pg, f"Production runs PostgreSQL 16 (upgraded {t.month_day(24)})",
                 source_agent="human", source_ref="ops-ticket-118", valid_from=t.at(24, "00:00"),
                 confidence=0.9)
        clock.advance(20 * day)
        s.revise(status2, "Release status: generally available", source_agent="human",
                 source_ref=f"launch-{t.day(53)}", importance=8)
        s.forget(source_ref="scratch:notes")
        add_hygiene_examples(s)
    finally:
        s.close()


def record_verdicts(db_path: Path, repo: Path, t: _Timeline | None = None) -> None:
    """Run the real staleness pass over the demo repo, as the user's first pass would.

    It writes only the verdict columns (checked an hour after the last commit), so the stored
    badges are exactly what a pass against the demo's HEAD finds.
    """
    from memharness_tui.staleness.runner import StalenessPass
    from memharness_tui.store import FakeClock

    t = t or timeline()
    StalenessPass(db_path, [repo], clock=FakeClock(t.at(55, "12:15"), 0)).run()


#: A few of each hygiene flag, so the hygiene report has something real to fix.
HYGIENE_CODE_MAP = (
    "Request flow in tiny-shop: src/app.py routes every request, src/auth.py checks the session, "
    "src/db.py opens the connection, src/config.py reads the port, and src/legacy.py still "
    "handles CSV imports for the admin page."
)


def add_hygiene_examples(s: Any) -> None:
    """Near-duplicates, a fragmented subject, a code map, compound and over-long facts and a
    retraction in the middle of a chain, written as agents write them."""
    s.remember("user", "Prefers short answers, with the code first", predicate="style",
               source_agent="cursor", source_ref="session-57")
    s.remember("user", "Wants short answers and code first", source_agent="claude-code",
               source_ref="session-60")
    s.remember("project:tiny-shop", "Payments go through Stripe in test mode",
               source_agent="claude-code", source_ref="session-60")
    s.remember("project:TinyShop", "The admin page is at /admin behind basic auth",
               source_agent="cursor", source_ref="session-61")
    s.remember("project:tiny_shop", "Product photos are resized to 800 px on upload",
               source_agent="cursor", source_ref="session-61")
    s.remember("project:tiny-shop", HYGIENE_CODE_MAP, source_agent="claude-code",
               source_ref="session-62")
    s.remember("deploy", "Staging deploys run on every push; production deploys need a tag",
               source_agent="claude-code", source_ref="session-62", kind="procedural")
    s.remember("project:tiny-shop", " ".join(
        f"Step {k}: the onboarding notes say to read the README, install the tools, copy the "
        "example settings, seed the database and run the tests before changing anything."
        for k in range(1, 12)), source_agent="cursor", source_ref="onboarding.md")
    cache, _ = s.remember("project:tiny-shop", "Product pages are cached for 5 minutes",
                          source_agent="claude-code", source_ref="session-63")
    s.revise(cache, "Product pages are cached for 10 minutes", source_agent="human",
             source_ref="session-64")
    s.forget(fact_id=cache)  # retracted after it was superseded: a retraction mid-chain


def ensure_demo(
    cache_dir: Path | None = None,
    *,
    rebuild: bool = False,
    on_build: Callable[[], None] | None = None,
) -> tuple[Path, Path]:
    """Build (or reuse) the demo store and repo under ``cache_dir`` (default: user cache folder).

    ``rebuild`` starts from scratch even when a current demo exists (every edit made in the demo
    is lost); ``on_build`` is called just before a build starts, so a caller can say so.
    """
    from memharness_tui.config import cache_dir as default_cache

    root = (cache_dir or default_cache()) / "demo"
    db_path, repo_path = root / "memory.db", root / "repo"
    marker = root / MARKER
    if not rebuild and marker.exists() and marker.read_text().strip() == DEMO_VERSION \
            and db_path.exists() and (repo_path / ".git").exists():
        return db_path, repo_path
    if on_build is not None:
        on_build()
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="demo-build-", dir=root.parent))
    try:
        t = timeline()
        commits = build_repo(staging / "repo", t)
        build_store(staging / "memory.db", commits, t)
        record_verdicts(staging / "memory.db", staging / "repo", t)
        for leftover in staging.glob("memory.db-*"):  # WAL/SHM after a clean close
            leftover.unlink()
        (staging / MARKER).write_text(DEMO_VERSION + "\n")
        if root.exists():
            shutil.rmtree(root)
        staging.rename(root)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return db_path, repo_path


def reset_demo(cache_dir: Path | None = None) -> tuple[Path, Path]:
    """Throw away the demo store and repo (with every edit made in them) and build them anew."""
    return ensure_demo(cache_dir, rebuild=True)


def apply_demo_args(args: argparse.Namespace) -> None:
    """Resolve the CLI's ``--demo`` / ``--reset``: build the demo if needed, saying so on stderr.

    For the app (no subcommand) ``args.demo`` stays set and the app opens the demo itself; for a
    headless subcommand ``--demo`` stands for ``--db <demo store>`` (and, for ``staleness`` and ``doctor``
    without ``--repo``, the demo's own repo), so every README example runs on the demo.
    """
    from memharness_tui.cli_args import UsageError

    if not args.demo:
        raise UsageError("--reset needs --demo: it rebuilds the demo store and repo")
    if args.command == "serve":
        return  # serve has its own --demo and passes it to the app it serves
    if getattr(args, "db", None):
        raise UsageError("--demo and --db cannot be combined: --demo opens the demo store")

    def announce() -> None:
        what = "rebuilding the demo store and repo from scratch" if args.reset \
            else "building the demo store and repo (first run)"
        print(f"{what}…", file=sys.stderr, flush=True)

    db_path, repo_path = ensure_demo(rebuild=args.reset, on_build=announce)
    if args.command is None:
        return
    args.db = str(db_path)
    if args.command in ("staleness", "doctor") and not args.repo:
        args.repo = [str(repo_path)]
