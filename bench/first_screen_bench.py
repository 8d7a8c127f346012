"""A half-typed word: the full substring (LIKE) recall against its first screen (issue #26).

A word typed halfway ("lore" of "lorem") matches no full-text token, so ``recall`` falls
back to a LIKE scan of every row. ``Store.recall_first_screen`` ranks the newest rows only
and flags the list as not yet exact. For each query (prefixes of words drawn from the
store's rows, 3-6 characters, each checked to fall back), one process times both calls,
interleaved (full, first, first, full, …), CPU time of the calling thread and wall time,
and prints p50/p95 per side and the ratio first/full.

Parity, printed: for every query the first screen equals the full ranking restricted to
the rows it read (ids above ``MAX(id) - rows``, the first ``limit`` of them), its ``exact``
flag is False exactly when rows were left out, and the full recall is the one a plain
``Store.recall`` gives (the window never leaks into it).

Usage::

    .venv/bin/python bench/first_screen_bench.py [--facts N] [--queries N] [--rows N]

The machine may be busy: read the CPU rows and the ratios, not the absolute wall times.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from seed import seed_store  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from memharness_tui.store import FakeClock, Store  # noqa: E402
from memharness_tui.store.first_screen import FIRST_SCREEN_ROWS  # noqa: E402

LIMIT = 20  # the app's page of results


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[max(0, min(len(xs) - 1, -(-len(xs) * p // 100) - 1))]


def half_words(store: Store, n: int, rng: random.Random) -> list[str]:
    """Prefixes of words in the store that the full-text match does not answer."""
    top = int(store.conn.execute("SELECT MAX(id) FROM facts").fetchone()[0])
    out: list[str] = []
    tries = 0
    while len(out) < n and tries < 50 * n:
        tries += 1
        row = store.conn.execute("SELECT fact FROM facts WHERE id >= ? LIMIT 1",
                                 (rng.randint(1, top),)).fetchone()
        words = [w for w in re.findall(r"[a-z]{5,}", row[0] if row else "")]
        if not words:
            continue
        word = rng.choice(words)
        half = word[: rng.randint(3, min(6, len(word) - 1))]
        if half in out:
            continue
        if store.recall_first_screen(half, limit=1, rows=1).used_fallback:
            out.append(half)
    return out


def timed(call: object) -> tuple[float, float, object]:
    c0, t0 = time.thread_time_ns(), time.perf_counter_ns()
    answer = call()  # type: ignore[operator]
    return (time.thread_time_ns() - c0) / 1e6, (time.perf_counter_ns() - t0) / 1e6, answer


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=12)
    ap.add_argument("--rows", type=int, default=FIRST_SCREEN_ROWS)
    ap.add_argument("--seed", type=int, default=20261202)
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        src = seed_store(Path(tmp), args.facts, synthetic=True)
        path = Path(tmp) / "store.db"
        if src != path:
            shutil.copyfile(src, path)
        probe = Store.open(str(path), readonly=True)
        at = probe.clock.now()
        probe.close()
        store = Store.open(str(path), readonly=True, clock=FakeClock(at, 0))
        rng = random.Random(args.seed)
        words = half_words(store, args.queries, rng)
        top = int(store.conn.execute("SELECT MAX(id) FROM facts").fetchone()[0])
        above = top - args.rows
        cpu: dict[str, list[float]] = {"full": [], "first": []}
        wall: dict[str, list[float]] = {"full": [], "first": []}
        same = flagged = 0
        for i, word in enumerate(words):
            store.recall(word, limit=LIMIT)  # warm the statement cache and the pages
            order = ("full", "first") if i % 2 == 0 else ("first", "full")
            for _ in range(2):
                for side in order:
                    if side == "full":
                        c, w, _ = timed(partial(store.recall, word, limit=LIMIT))
                    else:
                        c, w, _ = timed(partial(store.recall_first_screen, word, limit=LIMIT,
                                                rows=args.rows))
                    cpu[side].append(c)
                    wall[side].append(w)
                order = order[::-1]
            # Parity on two more readers whose clocks are in step (one "now" for both).
            a, b = (Store.open(str(path), readonly=True, clock=FakeClock(at, 0)) for _ in "ab")
            first = a.recall_first_screen(word, limit=LIMIT, rows=args.rows)
            everything = b.recall(word, limit=10 ** 7)
            want = [f for f in everything.facts if f.id > above][:LIMIT]
            left_out = any(f.id <= above for f in everything.facts)
            plain_again = a.recall(word, limit=LIMIT) == b.recall(word, limit=LIMIT)
            same += first.facts == want and plain_again
            flagged += first.exact == (not left_out)
            a.close()
            b.close()
        store.close()

    n = len(words)
    print(f"first screen vs full LIKE recall: {args.facts:,} facts, {n} half-typed words "
          f"({', '.join(words[:6])}, …), limit {LIMIT}, first screen = newest {args.rows:,} rows")
    if hasattr(os, "getloadavg"):
        print("load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())
              + " (a busy machine: read CPU and ratios)")
    print(f"{'':24}{'full p50':>10}{'p95':>9}{'first p50':>11}{'p95':>9}{'first/full p50':>16}")
    for label, d in (("CPU ms (calling thread)", cpu), ("wall ms", wall)):
        f50, f95 = pct(d["full"], 50), pct(d["full"], 95)
        s50, s95 = pct(d["first"], 50), pct(d["first"], 95)
        print(f"{label:24}{f50:10.1f}{f95:9.1f}{s50:11.1f}{s95:9.1f}"
              f"{statistics.median(d['first']) / statistics.median(d['full']):15.2f}×")
    print(f"parity: {same}/{n} first screens equal the full ranking of the rows they read "
          f"(and the full recall is the plain one); {flagged}/{n} exact flags right "
          f"({'OK' if same == flagged == n else 'MISMATCH'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
