"""Benchmark: a full staleness pass over 10,000 pinned facts vs the reference's method.

Builds (in a temp dir) a repo of 1,000 commits over 200 files plus an unmerged
20-commit branch with ``git fast-import``, and a store of 10,000 facts: 5 % pinned
on the branch, 5 % to unknown SHAs, 10 % without a path, 5 % pinned only in
source_ref (backfill). Times a full pass with writes, then the reference bin's
method (two ``git`` subprocesses per pin: ``merge-base --is-ancestor`` and
``diff --quiet``) on a sample, extrapolated. Prints numbers; asserts nothing.

The passes run in child processes, interleaved with the same passes on the code before
issue #9 (``--base``, see ``bench/compare.py``), and the table gives the ratio. Each side's
verdicts are digested (every pinned row's freshness, head and backfilled pin) and must match.
Three rows time the same verdict UPDATEs with nothing else, in batches of 500: one statement
per row (``executemany``), one statement per batch (what the store does now), and one per row
without the schema's ``facts_au`` FTS trigger (on a scratch copy only): what writing costs.

    .venv/bin/python bench/staleness_bench.py [--facts 10000] [--sample 500] [--rounds 3]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import add_arguments, code_dir, emit, interleaved, print_table  # noqa: E402

code_dir()
from memharness_tui.staleness.runner import StalenessPass  # noqa: E402
from memharness_tui.store import FakeClock, Store  # noqa: E402

GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
}
N_COMMITS = 1000
N_FILES = 200
N_BRANCH = 20


def git(repo: Path, *args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=repo, env=GIT_ENV, text=True, capture_output=True, **kw  # type: ignore[arg-type]
    )


def build_repo(root: Path, rng: random.Random) -> tuple[Path, list[str], list[str], list[str]]:
    """1,000 commits on main over 200 files (3 files changed per commit) + a 20-commit branch."""
    repo = root / "repo"
    repo.mkdir()
    git(repo, "-c", "init.defaultBranch=main", "init", "-q", check=True)
    files = [f"pkg{i % 10}/mod{i:03d}.py" for i in range(N_FILES)]
    out: list[str] = []
    t0 = 1_767_225_600  # 2026-01-01

    def commit(ref: str, mark: int, parent: int | None, n: int, changes: dict[str, str]) -> None:
        msg = f"commit {mark}\n"
        out.append(f"commit {ref}\nmark :{mark}\n")
        out.append(f"committer t <t@t> {t0 + n * 60} +0000\n")
        out.append(f"data {len(msg.encode())}\n{msg}")
        if parent is not None:
            out.append(f"from :{parent}\n")
        for path, body in changes.items():
            data = body.encode()
            out.append(f"M 100644 inline {path}\ndata {len(data)}\n{body}\n")

    commit("refs/heads/main", 1, None, 0, {f: f"# {f}\nv = 0\n" for f in files})
    for n in range(2, N_COMMITS + 1):
        changed = rng.sample(files, 3)
        commit("refs/heads/main", n, n - 1, n, {f: f"# {f}\nv = {n}\n" + "x\n" * (n % 7) for f in changed})
    fork = N_COMMITS - 100
    for k in range(N_BRANCH):
        mark = N_COMMITS + 1 + k
        parent = fork if k == 0 else mark - 1
        changed = rng.sample(files, 2)
        commit("refs/heads/side", mark, parent, N_COMMITS + k, {f: f"side {k}\n" for f in changed})
    proc = subprocess.run(
        ["git", "fast-import", "--quiet"],
        cwd=repo,
        env=GIT_ENV,
        input="".join(out).encode(),
        capture_output=True,
    )
    if proc.returncode:
        raise SystemExit(proc.stderr.decode())
    main = git(repo, "rev-list", "main", check=True).stdout.split()
    side = git(repo, "rev-list", "main..side", check=True).stdout.split()
    return repo, main, side, files


def build_store(db: Path, n: int, main: list[str], side: list[str], files: list[str],
                rng: random.Random) -> list[tuple[str, str | None]]:
    """n facts; returns each fact's (pin, path) for the reference sample."""
    store = Store.open(str(db), clock=FakeClock("2026-06-01", step_ms=1))
    pins: list[tuple[str, str | None]] = []
    try:
        for i in range(n):
            r = i % 20
            path: str | None = rng.choice(files)
            if r == 0:
                sha = rng.choice(side)  # 5 % on the unmerged branch
            elif r == 1:
                sha = f"{rng.getrandbits(160):040x}"  # 5 % unknown
            else:
                sha = rng.choice(main)
            if r in (2, 3):
                path = None  # 10 % without a path
            if r == 4:  # 5 % pinned only in source_ref: the pass backfills them
                ref = f"repo@{sha}:{path}"
                store.remember("bench", f"fact {i}", source_ref=ref)
            else:
                short = sha[:12] if r == 5 else sha
                store.remember("bench", f"fact {i}", source_commit=short, source_path=path)
            pins.append((sha, path))
    finally:
        store.close()
    return pins


def reference_method(repo: Path, sample: list[tuple[str, str | None]]) -> tuple[float, dict[str, int]]:
    """The reference bin: per pin, merge-base --is-ancestor, then diff --quiet for the path."""
    head = git(repo, "rev-parse", "HEAD", check=True).stdout.strip()
    counts = {"current": 0, "stale": 0, "unresolved": 0}
    t = time.perf_counter()
    for sha, path in sample:
        rc = git(repo, "merge-base", "--is-ancestor", sha, "HEAD").returncode
        if rc != 0:
            counts["unresolved"] += 1
        elif sha == head:
            counts["current"] += 1
        elif path:
            same = git(repo, "diff", "--quiet", sha, "HEAD", "--", path).returncode == 0
            counts["current" if same else "stale"] += 1
        else:
            counts["stale"] += 1
    return time.perf_counter() - t, counts


def verdict_digest(db: Path) -> str:
    """A digest of what a pass decided: every pinned row's verdict, head and pin."""
    import sqlite3

    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT id, freshness, checked_head, source_commit, source_path, checked_at IS NULL "
            "FROM facts ORDER BY id"
        ).fetchall()
    finally:
        conn.close()
    return hashlib.sha256(repr(rows).encode()).hexdigest()[:16]


BATCH_UPDATE = """UPDATE facts NOT INDEXED SET freshness = v.f, checked_at = v.at, checked_head = v.h
FROM (SELECT json_extract(value, '$[0]') AS f, json_extract(value, '$[1]') AS at,
             json_extract(value, '$[2]') AS h, json_extract(value, '$[3]') AS id
      FROM json_each(?1)) AS v
WHERE facts.id = v.id"""


def sql_floor(src: Path, judged: Path, work: Path, *, trigger: bool, per_row: bool = True,
              batch: int = 500) -> float:
    """CPU seconds for the pass's verdict UPDATEs alone: the verdicts ``judged`` holds, written
    to a fresh copy of ``src`` in batches of ``batch``, nothing else — one UPDATE per row
    (``executemany``) or, ``per_row=False``, one per batch (the verdicts as a JSON array joined
    by rowid). ``trigger=False`` drops ``facts_au`` on that scratch copy first, to show what the
    schema's FTS trigger costs (the store itself never does that)."""
    try:
        from memharness_tui.store.driver import sqlite3  # the SQLite this side's store uses
    except ImportError:  # the base side predates the driver choice: stdlib
        import sqlite3  # type: ignore[no-redef]

    with sqlite3.connect(f"{judged.resolve().as_uri()}?mode=ro", uri=True) as conn:
        rows = conn.execute(
            "SELECT freshness, checked_at, checked_head, id FROM facts "
            "WHERE freshness IS NOT NULL ORDER BY id").fetchall()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{work}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(src, work)
    conn = sqlite3.connect(str(work), isolation_level=None)
    try:
        for pragma in ("busy_timeout = 5000", "journal_mode = WAL", "synchronous = NORMAL"):
            conn.execute(f"PRAGMA {pragma}").fetchall()
        if not trigger:
            conn.execute("DROP TRIGGER facts_au")
        c0 = time.thread_time()
        for i in range(0, len(rows), batch):
            conn.execute("BEGIN IMMEDIATE")
            if per_row:
                conn.executemany("UPDATE facts SET freshness = ?, checked_at = ?, "
                                 "checked_head = ? WHERE id = ?", rows[i:i + batch])
            else:
                conn.execute(BATCH_UPDATE, (json.dumps(rows[i:i + batch]),))
            conn.execute("COMMIT")
        return time.thread_time() - c0
    finally:
        conn.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{work}{suffix}").unlink(missing_ok=True)


def child(payload: dict) -> None:
    """One side's measurement: check-only, `repeat` first passes on fresh copies, a re-pass."""
    db, repo, root = Path(payload["db"]), Path(payload["repo"]), Path(payload["tmp"])
    c0 = time.thread_time()
    check = StalenessPass(db, [repo], check_only=True).run()
    check_cpu = time.thread_time() - c0
    runs, cpus = [], []
    copy = root / f"run-{os.getpid()}.db"
    for _ in range(payload["repeat"]):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{copy}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(db, copy)  # a fresh, never-checked store each time
        c0 = time.thread_time()
        full = StalenessPass(copy, [repo]).run()
        cpus.append(time.thread_time() - c0)  # CPU of the pass's thread: steadier under load
        runs.append(full.elapsed)
    digest = verdict_digest(copy)
    scratch = root / f"floor-{os.getpid()}.db"
    floor_cpu = sql_floor(db, copy, scratch, trigger=True)
    floor_batch_cpu = sql_floor(db, copy, scratch, trigger=True, per_row=False)
    floor_no_trigger_cpu = sql_floor(db, copy, scratch, trigger=False)
    again = StalenessPass(copy, [repo]).run()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{copy}{suffix}").unlink(missing_ok=True)
    emit({"check_s": check.elapsed, "check_cpu_s": check_cpu, "full_s": statistics.median(runs),
          "full_cpu_s": statistics.median(cpus), "best_s": min(runs),
          "again_s": again.elapsed, "summary": full.summary_line(), "digest": digest,
          "floor_cpu_s": floor_cpu, "floor_batch_cpu_s": floor_batch_cpu,
          "floor_no_trigger_cpu_s": floor_no_trigger_cpu})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--facts", type=int, default=10_000)
    ap.add_argument("--sample", type=int, default=500)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=3, help="timed full passes per child, each on a fresh copy")
    add_arguments(ap)
    args = ap.parse_args()
    if args.child_json:
        child(json.loads(args.child_json))
        return
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="staleness-bench-") as tmp:
        root = Path(tmp)
        t = time.perf_counter()
        repo, main_shas, side, files = build_repo(root, rng)
        print(f"repo: {len(main_shas)} commits on main over {len(files)} files, "
              f"{len(side)} on an unmerged branch ({time.perf_counter() - t:.2f} s to build)")
        t = time.perf_counter()
        db = root / "memory.db"
        pins = build_store(db, args.facts, main_shas, side, files, rng)
        print(f"store: {args.facts} facts ({time.perf_counter() - t:.2f} s to build)")

        payload = {"db": str(db), "repo": str(repo), "tmp": tmp, "repeat": args.repeat}
        sides, results = interleaved(
            Path(__file__), args, payload,
            on_round=lambda r, name, res: print(f"  round {r + 1} {name}: {res['full_s']:.3f} s"),
        )
        print_table(f"staleness pass, {args.facts} pins", sides, results, [
            ("check-only pass (judging, no writes)", "check_s", "s"),
            ("full pass with writes, fresh store", "full_s", "s"),
            ("  CPU time of that pass", "full_cpu_s", "s"),
            ("  CPU time of the check-only pass", "check_cpu_s", "s"),
            ("second pass (rewrites every verdict)", "again_s", "s"),
            ("  its verdict UPDATEs alone, one per row, CPU", "floor_cpu_s", "s"),
            ("  the same, one UPDATE per batch of 500, CPU", "floor_batch_cpu_s", "s"),
            ("  one per row without facts_au (scratch), CPU", "floor_no_trigger_cpu_s", "s"),
        ])
        for s in sides:
            last = results[s.name][-1]
            print(f"{s.name}: {last['summary']}  verdict digest {last['digest']}")
        digests = {r["digest"] for runs in results.values() for r in runs}
        print("verdicts identical on every side" if len(digests) == 1
              else f"VERDICTS DIFFER between sides: {digests}")
        median = statistics.median(r["full_s"] for r in results["new"])

        sample = rng.sample(pins, min(args.sample, len(pins)))
        ref_s, ref_counts = reference_method(repo, sample)
        per_pin = ref_s / len(sample)
        extrapolated = per_pin * args.facts
        print(f"\nreference method:      {ref_s:.2f} s for {len(sample)} pins "
              f"({per_pin * 1000:.2f} ms/pin; {ref_counts})")
        print(f"reference extrapolated to {args.facts} pins: {extrapolated:.1f} s")
        print(f"ours (new), full pass with writes ({args.facts} pins): {median:.3f} s (median)")
        print(f"ratio: {extrapolated / median:,.0f}x faster (reference extrapolated / our median)")


if __name__ == "__main__":
    main()
