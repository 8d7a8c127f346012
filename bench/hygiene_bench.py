"""Benchmark: a full hygiene scan (``memharness-tui hygiene``) of generated stores, whole process.

For each size, a store shaped like the reference seed (bench/seed.py ``--facts N``, cached)
gets a few of each flag planted (near-duplicate paraphrases, fragmented subjects, code maps,
compound facts, a broken chain, stale pins) so every detector has work; then the CLI runs as a
child process, ``--rounds`` times: wall time, CPU (user + sys) and peak RSS of the child are
printed. One more run in this process reports how often the progress callback was told.
Prints numbers; asserts nothing. Wall times on a shared machine are inflated by load: the CPU
column is the steadier one.

    .venv/bin/python bench/hygiene_bench.py [--facts 100000 1000000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.seed import seed_store  # noqa: E402
from memharness_tui.store import Store  # noqa: E402

CODE_MAP = ("The request path: src/server/router.ts dispatches to src/server/handlers/recall.ts, "
            "which calls packages/core/src/memory.ts and packages/core/src/sql.ts, and results "
            "are formatted by packages/mcp/src/format.ts before they go back over stdio.")


def plant(path: Path) -> None:
    """A few flags of each kind, written through the store."""
    with Store.open(str(path)) as s:
        s.remember("subject:3", "the cache is warmed at startup by the loader")
        s.remember("subject:3", "the cache is warmed by the loader at startup")
        s.remember("project:tako-vm", "the VM is register based")
        s.remember("project:TakoVM", "CI runs on GitHub Actions")
        s.remember("project:tako-vm", CODE_MAP)
        s.remember("user", "X is las7 (id 123); the gh CLI is authenticated as las7 here")
        a, _ = s.remember("user", "works at Acme")
        s.revise(a, "works at Acme Corp")
        s.forget(fact_id=a)
        p, _ = s.remember("project:x", "uses sqlite", source_commit="abc1234")
        s.set_staleness(p, "stale", s.now(), "def5678")


def child_run(db: Path) -> tuple[float, float, int, int]:
    """(wall s, cpu s, peak RSS KB, exit code) of one ``hygiene`` run in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "memharness_tui", "hygiene", "--db", str(db),
                           "--format", "json"], cwd=REPO, capture_output=True, check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss, proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--facts", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'facts':>10} {'wall s (median)':>16} {'cpu s (median)':>15} {'peak RSS MB':>12} "
          f"{'exit':>5} {'progress calls':>15}")
    with tempfile.TemporaryDirectory(prefix="hygiene-bench-") as tmp:
        for n in args.facts:
            work = Path(tmp) / str(n)
            work.mkdir()
            db = seed_store(work, n, synthetic=True)
            plant(db)
            runs = [child_run(db) for _ in range(args.rounds)]
            from memharness_tui.hygiene import scan_path

            calls: list[int] = []
            scan_path(str(db), progress=lambda done, total, calls=calls: calls.append(done))
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            rss = max(r[2] for r in runs) / 1024
            print(f"{n:>10,} {wall:>16.2f} {cpu:>15.2f} {rss:>12.0f} {runs[0][3]:>5} "
                  f"{len(calls):>15,}")
            db.unlink()
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
