"""Benchmark: the added cost of triage per stale fact on the 10k-pin staleness benchmark.

Builds the same repo as ``staleness_bench.py`` (1,000 commits over 200 files) and
a store of 10,000 pinned facts whose texts name things in the files (``v``,
numbers, words). Runs a check-only pass, then triages every stale fact with a
fresh :class:`Triager` (cold caches: every (pin, path) diff is computed), and
again with the same Triager (warm: cached results). Prints ms per stale fact;
asserts nothing. Target: under 2 ms per stale fact, cold.

    .venv/bin/python bench/triage_bench.py [--facts 10000]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.staleness_bench import build_repo  # noqa: E402
from memharness_tui.staleness.analysis import Triager  # noqa: E402
from memharness_tui.staleness.git import find_renames  # noqa: E402
from memharness_tui.staleness.report import triage_report  # noqa: E402
from memharness_tui.staleness.runner import StalenessPass  # noqa: E402
from memharness_tui.store import FakeClock, Store  # noqa: E402

TEXTS = (
    "{mod} sets v to {n}",
    "the module {mod} keeps {n} x lines after v",
    "SESSION_TTL in {mod} is 30 minutes",
    "`{mod}.v` is the version counter, bumped on every commit",
    "{mod} has a header comment naming its path",
)


def build_store(db: Path, n: int, main: list[str], files: list[str], rng: random.Random) -> None:
    store = Store.open(str(db), clock=FakeClock("2026-06-01", step_ms=1))
    try:
        for _ in range(n):
            sha = rng.choice(main)
            path = rng.choice(files)
            mod = path.rsplit("/", 1)[-1].removesuffix(".py")
            text = rng.choice(TEXTS).format(mod=mod, n=rng.randint(1, 1000))
            store.remember("bench", text, source_commit=sha, source_path=path)
    finally:
        store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--facts", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="triage-bench-") as tmp:
        root = Path(tmp)
        repo, main_shas, _side, files = build_repo(root, rng)
        db = root / "memory.db"
        build_store(db, args.facts, main_shas, files, rng)
        report = StalenessPass(db, [repo], check_only=True).run()
        stale = [v for v in report.verdicts if v.freshness == "stale"]
        print(f"pass: {report.elapsed:.3f} s   {report.summary_line()}")

        store = Store.open(str(db), readonly=True)
        try:
            texts = {v.fact_id: store.get(v.fact_id).fact for v in stale}
        finally:
            store.close()
        t = time.perf_counter()
        triager = Triager([repo])
        open_s = time.perf_counter() - t
        t = time.perf_counter()
        outcomes = Counter(triager.analyse(texts[v.fact_id], v.commit, v.path).outcome
                           for v in stale)
        cold = time.perf_counter() - t
        t = time.perf_counter()
        for v in stale:
            triager.analyse(texts[v.fact_id], v.commit, v.path)
        warm = time.perf_counter() - t
        n = len(stale)
        print(f"triage, cold caches: {cold:.3f} s for {n} stale facts = "
              f"{cold / n * 1000:.3f} ms per stale fact (+{open_s * 1000:.1f} ms to open the repo)")
        print(f"triage, warm caches: {warm * 1000:.1f} ms = {warm / n * 1e6:.1f} µs per stale fact")
        print(f"outcomes: {dict(outcomes)}")
        sample = main_shas[:: max(1, len(main_shas) // 50)]
        ch = triager.checkers[0]
        t = time.perf_counter()
        for sha in sample:
            find_renames(ch, sha)
        per_pin = (time.perf_counter() - t) / len(sample)
        print(f"rename detection (only for a path gone at HEAD, once per pin): "
              f"{per_pin * 1000:.2f} ms per pin over {len(files)} files")
        t = time.perf_counter()
        items = triage_report(report, db, [repo])
        whole = time.perf_counter() - t
        print(f"triage_report (store reads + fresh Triager): {whole:.3f} s = "
              f"{whole / max(len(items), 1) * 1000:.3f} ms per stale fact")


if __name__ == "__main__":
    main()
