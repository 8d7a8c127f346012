"""Repo builders for the staleness tests: real git repos in temp dirs, made with the git CLI."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "GIT_TERMINAL_PROMPT": "0",
}


def git(cwd: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    full_env = {**os.environ, **_ENV, **(env or {})}
    out = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "advice.detachedHead=false", *args],
        cwd=cwd,
        env=full_env,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


@dataclass
class Repo:
    """A work tree driven by the git CLI with a deterministic clock."""

    path: Path
    tick: int = 0
    shas: dict[str, str] = field(default_factory=dict)

    @classmethod
    def init(cls, path: Path, *, bare: bool = False) -> Repo:
        path.mkdir(parents=True, exist_ok=True)
        git(path, "init", "-q", *(["--bare"] if bare else []))
        return cls(path)

    def git(self, *args: str) -> str:
        self.tick += 1
        date = f"2026-01-01T00:{self.tick // 60:02d}:{self.tick % 60:02d}Z"
        return git(self.path, *args, env={"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date})

    def write(self, files: Mapping[str, str | None]) -> None:
        for name, content in files.items():
            p = self.path / name
            if content is None:
                self.git("rm", "-q", "-r", name)
            else:
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(content)
                self.git("add", name)

    def commit(self, label: str, files: Mapping[str, str | None] | None = None) -> str:
        if files:
            self.write(files)
        self.git("commit", "-q", "--allow-empty", "-m", label)
        sha = self.head()
        self.shas[label] = sha
        return sha

    def head(self) -> str:
        return git(self.path, "rev-parse", "HEAD")

    def rev(self, spec: str) -> str:
        return git(self.path, "rev-parse", spec)


@dataclass
class Scenario:
    """One repo covering most of SPEC §8's table; see ``build_scenario``."""

    repo: Repo
    sha: dict[str, str]

    @property
    def path(self) -> Path:
        return self.repo.path


def build_scenario(root: Path) -> Scenario:
    """History (oldest first) on ``main``:

    c1   add src/a.py src/b.py docs/readme.md lib/x.py conf/app.toml  (tag v1, annotated)
    c2   change src/a.py
         side branch from c2: s1 changes docs/readme.md
    c3   delete lib/x.py, add new.py                 feature branch from c3: f1 (never merged)
    m    merge side (no fast-forward)
    c4   change src/b.py                              HEAD
    """
    r = Repo.init(root)
    s: dict[str, str] = {}
    s["c1"] = r.commit(
        "c1",
        {
            "src/a.py": "a = 1\n",
            "src/b.py": "b = 1\n",
            "docs/readme.md": "# readme\n",
            "lib/x.py": "x = 1\n",
            "conf/app.toml": "k = 1\n",
        },
    )
    r.git("tag", "-a", "v1", "-m", "v1")
    s["tag_v1"] = r.rev("refs/tags/v1")
    s["c2"] = r.commit("c2", {"src/a.py": "a = 2\nmore = True\n"})
    r.git("checkout", "-q", "-b", "side")
    s["s1"] = r.commit("s1", {"docs/readme.md": "# readme\nside note\n"})
    r.git("checkout", "-q", "main")
    s["c3"] = r.commit("c3", {"lib/x.py": None, "new.py": "n = 1\n"})
    r.git("checkout", "-q", "-b", "feature")
    s["f1"] = r.commit("f1", {"src/a.py": "a = 'feature'\n"})
    r.git("checkout", "-q", "main")
    r.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    s["m"] = r.head()
    s["c4"] = r.commit("c4", {"src/b.py": "b = 2\n"})
    s["head"] = s["c4"]
    s["blob_a"] = r.rev("HEAD:src/a.py")
    s["tree_src"] = r.rev("HEAD:src")
    return Scenario(r, s)


def clone(src: Path, dest: Path, *args: str) -> Path:
    git(dest.parent, "clone", "-q", *args, src.as_uri() if "--depth" in args else str(src), str(dest))
    return dest


SOURCE_AXIS = ("source_commit", "source_path", "freshness", "checked_at", "checked_head")


def make_store(db: Path, facts: list[dict[str, object]], *, start: str = "2026-02-01") -> list[int]:
    """Create a store at ``db`` holding ``facts`` (remember kwargs); returns their ids."""
    from memharness_tui.store import FakeClock, Store

    store = Store.open(str(db), clock=FakeClock(start))
    try:
        ids = []
        for f in facts:
            kw = dict(f)
            subject = str(kw.pop("subject", "proj"))
            text = str(kw.pop("fact", f"fact {len(ids)}"))
            ids.append(store.remember(subject, text, **kw)[0])  # type: ignore[arg-type]
        return ids
    finally:
        store.close()


def rows(db: Path) -> dict[int, dict[str, object]]:
    """Every row of facts, by id, read with plain sqlite3 (read-only)."""
    import sqlite3

    conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        return {r["id"]: dict(r) for r in conn.execute("SELECT * FROM facts ORDER BY id")}
    finally:
        conn.close()


def file_bytes(folder: Path) -> dict[str, bytes]:
    """The bytes of every file in a folder (to prove nothing was written)."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}
