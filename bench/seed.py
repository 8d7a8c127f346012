"""Benchmark stores of any size, shaped like the reference implementation's 100k seed.

``generate_seed`` writes a store of N facts with the shape measured from the reference's own
100,000-row benchmark seed (``bench100k.db``, not kept in this repository):

- 1,000 subjects ``subject:K`` with K = floor(1000·u²) (subject:0 holds 3.2 %, the last ≈0.05 %);
- facts of 6–20 words drawn uniformly from a 2,000-word made-up vocabulary (2–4 syllables);
- about 10 % of rows are revisions (confidence 1.0, no source) of a uniformly chosen earlier
  current row of the same subject: the old row gets ``superseded_by`` and ``valid_to``;
- about 2.2 % of remembered rows are forgotten on the next tick (``retracted_at``);
- ``source_agent`` ``bench`` and ``source_ref`` ``session-0..499`` on remembered rows,
  confidence uniform in [0.5, 1), importance 5, kind ``semantic``, no predicate;
- one clock tick per row or retraction, spread over the same year as the reference
  (2025-06-09 → 2026-06-15), so recency weights look alike at any size.

The reference seed has one kind and no pins; ``--kinds`` and ``--pins F`` add a mix of kinds
and a fraction F of rows pinned to made-up commits/paths (for header counts and pin filters).

    .venv/bin/python bench/seed.py --facts 1000000 --out /tmp/bench1m.db

``--pins-repo DIR`` pins that fraction into a real git repository instead: each pinned row names
a commit from DIR's history and a file in that commit's tree, so a staleness pass over DIR has
real work to do.

``seed_store(workdir, facts)`` is what the benchmarks call: a generated store, cached beside the
temp folders by size and seed so a second run copies instead of regenerating. To time the
reference's own file instead, set ``MEMHARNESS_FIXTURES`` to a folder holding
``bench100k.db.xz`` (it is only read; used at 100,000 facts) or pass a benchmark ``--db FILE``.
"""

from __future__ import annotations

import argparse
import lzma
import os
import random
import shutil
import sys
import tempfile
import time
from array import array
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

REFERENCE_FACTS = 100_000
SYLLABLES = ("ba", "chi", "den", "ka", "lor", "mi", "po", "ren", "su", "to", "va", "zu")
START = datetime(2025, 6, 9, tzinfo=UTC)
REVISE_P = 0.1013
RETRACT_P = 0.0221
KINDS = ("semantic", "episodic", "procedural")


def user_seed() -> Path | None:
    """The user's own ``bench100k.db.xz`` when ``MEMHARNESS_FIXTURES`` names its folder."""
    env = os.environ.get("MEMHARNESS_FIXTURES")
    return Path(env) / "bench100k.db.xz" if env else None


def decompress_seed(dest: Path, source: Path) -> Path:
    """Write ``source`` (an xz-compressed store) to ``dest/bench100k.db`` (pure Python, no ``xz``)."""
    if not source.exists():
        raise SystemExit(f"benchmark seed not found: {source} (MEMHARNESS_FIXTURES names its folder)")
    target = dest / "bench100k.db"
    with lzma.open(source, "rb") as src, open(target, "wb") as dst:
        shutil.copyfileobj(src, dst, length=1 << 20)
    return target


def _iso(ms: int) -> str:
    return (START + timedelta(milliseconds=ms)).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _vocabulary(rng: random.Random) -> list[str]:
    vocab: set[str] = set()
    while len(vocab) < 2000:
        vocab.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(vocab)


class RepoPins:
    """Pins into a real repository: a commit from HEAD's history and a file of that commit's tree.

    Up to ``max_commits`` commits (newest first) are taken; each commit's file list is read from
    git the first time a row draws it, its path strings shared with the other commits' lists (a
    big repo's 500 lists then cost about 8 bytes a file each, not a string each).
    """

    def __init__(self, repo_dir: Path, max_commits: int = 500) -> None:
        import pygit2

        found = pygit2.discover_repository(str(repo_dir))
        if found is None:
            raise SystemExit(f"--pins-repo: {repo_dir} is not inside a git repository")
        self.repo = pygit2.Repository(found)
        if self.repo.head_is_unborn:
            raise SystemExit(f"--pins-repo: {repo_dir} has no commits")
        walker = self.repo.walk(self.repo.head.target, pygit2.enums.SortMode.TIME)
        self.commits = [c.id for _, c in zip(range(max_commits), walker, strict=False)]
        self._files: dict[object, list[str]] = {}
        self._paths: dict[str, str] = {}

    def files(self, commit_id: object) -> list[str]:
        if commit_id not in self._files:
            paths: list[str] = []
            stack = [("", self.repo[commit_id].tree)]
            while stack:
                prefix, tree = stack.pop()
                for entry in tree:
                    if entry.type_str == "tree":
                        stack.append((f"{prefix}{entry.name}/", self.repo[entry.id]))
                    elif entry.type_str == "blob":
                        path = prefix + entry.name
                        paths.append(self._paths.setdefault(path, path))
            self._files[commit_id] = sorted(paths)
        return self._files[commit_id]

    def draw(self, rng: random.Random) -> tuple[str, str | None]:
        """A (commit, path) pair; the path is None when the drawn commit's tree is empty."""
        commit_id = self.commits[rng.randrange(len(self.commits))]
        files = self.files(commit_id)
        return str(commit_id), (files[rng.randrange(len(files))] if files else None)


def _rows(n: int, seed: int, *, kinds: bool, pins: float,
          repo: RepoPins | None = None) -> Iterator[tuple[object, ...]]:
    """Every row of the store in id order, final state (revisions and retractions applied).

    Two passes keep a 1M-row run small: the history (who revises whom, who is forgotten)
    goes into flat arrays first; the rows, with their text, are then streamed to SQLite.
    """
    rng = random.Random(seed)
    step = round(315_000 * REFERENCE_FACTS / n)
    subject = array("i", [0]) * n
    superseded_by = array("i", [0]) * n  # 0: none
    tick = array("q", [0]) * n  # the row's own clock tick
    retracted = array("q", [-1]) * n  # tick of the retraction, -1: none
    revision = bytearray(n)
    current: dict[int, list[int]] = {}  # subject -> indexes of its current, unretracted rows
    t = 0
    for i in range(n):
        tick[i] = t
        t += 1
        candidates = current.get(subject[rng.randrange(i)]) if i and rng.random() < REVISE_P else None
        if candidates:
            old = candidates.pop(rng.randrange(len(candidates)))
            superseded_by[old] = i + 1
            subject[i] = subject[old]
            revision[i] = 1
        else:
            subject[i] = int(1000 * rng.random() ** 2)
            if rng.random() < RETRACT_P:
                retracted[i] = t
                t += 1
                continue
        current.setdefault(subject[i], []).append(i)
    del current
    text_rng = random.Random(seed + 1)
    words = _vocabulary(text_rng)
    for i in range(n):
        text = " ".join(text_rng.choices(words, k=text_rng.randint(6, 20)))
        tx = _iso(tick[i] * step)
        sup = superseded_by[i] or None
        valid_to = _iso(tick[sup - 1] * step) if sup else None
        gone = _iso(retracted[i] * step) if retracted[i] >= 0 else None
        if revision[i]:
            confidence, agent, ref = 1.0, "", ""
        else:
            confidence = 0.5 + 0.5 * text_rng.random()
            agent, ref = "bench", f"session-{text_rng.randrange(500)}"
        kind = text_rng.choice(KINDS) if kinds else "semantic"
        commit = path = None
        if pins and text_rng.random() < pins:
            if repo is not None:
                commit, path = repo.draw(text_rng)
            else:
                commit = f"{text_rng.getrandbits(160):040x}"
                path = f"src/pkg{text_rng.randrange(20)}/mod{text_rng.randrange(200)}.py"
        yield (i + 1, f"subject:{subject[i]}", text, confidence, tx, agent, ref, valid_to, gone,
               sup, kind, commit, path)


def generate_seed(target: Path, n: int, *, seed: int = 20250609, kinds: bool = False,
                  pins: float = 0.0, pins_repo: Path | None = None) -> Path:
    """Write a fresh store of ``n`` facts shaped like the reference seed at ``target``.

    ``pins_repo``: draw the pinned rows' commits and paths from that repository (see RepoPins).
    """
    from memharness_tui.store.db import immediate, run_migrations
    from memharness_tui.store.driver import sqlite3

    if target.exists():
        raise SystemExit(f"{target} exists; generate into a new path")
    repo = RepoPins(pins_repo) if pins_repo is not None else None
    rows = _rows(n, seed, kinds=kinds, pins=pins, repo=repo)
    conn = sqlite3.connect(str(target), isolation_level=None)
    try:
        with immediate(conn):  # the store's own schema and migrations (it creates files lazily)
            run_migrations(conn, str(target))
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA cache_size = -262144")
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO facts (id, subject, fact, confidence, valid_from, tx_at, source_agent, "
            "source_ref, valid_to, retracted_at, superseded_by, kind, source_commit, source_path) "
            "VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            rows,
        )
        conn.execute("COMMIT")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return target


def _cache_dir() -> Path:
    return Path(tempfile.gettempdir()) / "memharness-bench-seeds"


def seed_store(workdir: Path, facts: int = REFERENCE_FACTS, *, synthetic: bool = False,
               seed: int = 20250609) -> Path:
    """A benchmark store in ``workdir``: a generated one (or the user's own file, see above)."""
    own = user_seed()
    if facts == REFERENCE_FACTS and not synthetic and own is not None:
        return decompress_seed(workdir, own)
    cache = _cache_dir() / f"synthetic-{facts}-{seed}.db"
    if not cache.exists():
        cache.parent.mkdir(parents=True, exist_ok=True)
        partial = cache.with_suffix(f".{os.getpid()}.partial")
        t = time.perf_counter()
        generate_seed(partial, facts, seed=seed)
        os.replace(partial, cache)
        print(f"seed: generated {facts:,} facts in {time.perf_counter() - t:.1f} s → {cache}")
    target = workdir / cache.name
    shutil.copyfile(cache, target)
    return target


def main() -> None:
    ap = argparse.ArgumentParser(description="Write a synthetic store shaped like the reference seed.")
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=20250609)
    ap.add_argument("--kinds", action="store_true", help="mix semantic/episodic/procedural")
    ap.add_argument("--pins", type=float, default=0.0, help="fraction of rows pinned to a commit")
    ap.add_argument("--pins-repo", type=Path, metavar="DIR",
                    help="pin into this git repository's commits and files (default --pins 0.1)")
    args = ap.parse_args()
    if args.pins_repo is not None and not args.pins:
        args.pins = 0.1
    if not 0.0 <= args.pins <= 1.0:
        ap.error("--pins must be a fraction between 0 and 1")
    t = time.perf_counter()
    generate_seed(args.out, args.facts, seed=args.seed, kinds=args.kinds, pins=args.pins,
                  pins_repo=args.pins_repo)
    print(f"{args.out}: {args.facts:,} facts in {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()
