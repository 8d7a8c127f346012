"""Recall next to the reference core: the same file, the same queries, interleaved (issue #9).

The reference TypeScript core (``@memharness/core``, the store the agents' MCP server
uses) is not part of this repository. ``--reference DIR`` points at a built copy of its
package folder (``DIR/dist/index.js`` and its ``node_modules``); ``node`` must be on PATH.
``bench/reference_recall.mjs`` drives it through its public API only.

What runs: ``--rounds`` rounds, each on fresh copies of one store (the reference's own
100k seed by default), one long-lived child per side. Every query goes to every side in
turn, the order rotating per query (two sides: reference, python, python, reference, …), so
a busy moment of a shared machine hits all alike; each child times only its own call. The
queries are the four shapes of ``recall_bench.py`` (``--per-shape`` each, shuffled
together), then the issue's tail cases (a term in every row, the empty query, the LIKE
fallback), after a warm-up of 200.

Both sides run the agent's recall: in current mode it reinforces what it returns, so each
query sees the writes of the ones before, and both start from the same fake clock — their
answers must be identical. Every query's ids are compared and its scores within 1e-9
relative; the mismatches are counted and printed. ``--browse`` adds the app's read-only
recall (``reinforce=False``, its own copy) for context; ``--base REV`` the agent's recall of
an earlier commit of this project (a ``git worktree``, checked for parity too), so a change
shows as two ratios to the reference measured in one run.

Prints wall and CPU p50/p95/p99 per side (median over rounds) and the ratio side/reference
(``compare.print_table``, as the other benchmarks).

    .venv/bin/python bench/reference_bench.py --reference PATH/TO/core --rounds 3
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
from compare import CODE_ENV, BaseCheckout, Side, print_table  # noqa: E402

# recall_bench puts this checkout's code on sys.path, or a --base commit's worktree in that
# side's child (compare.code_dir, after seed's own path entry), then imports the store.
from recall_bench import SHAPES, Workload, percentile  # noqa: E402
from seed import seed_store  # noqa: E402

from memharness_tui.store import Store, sql  # noqa: E402
from memharness_tui.store.clock import FakeClock  # noqa: E402
from memharness_tui.store.driver import sqlite_version  # noqa: E402

TAILS = {"a term in every row": {"query": "subject"}, "empty query": {"query": ""},
         "LIKE fallback": {"query": "orenm"}}
TAIL_REPEAT = 15
CAMEL = {"query": "query", "subject": "subject", "as_of": "asOf", "limit": "limit",
         "max_tokens": "maxTokens", "kind": "kind"}


def workload(db: str, per_shape: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    """(group, recall kwargs) in run order: the four shapes shuffled, then the tail cases."""
    rng = random.Random(seed)
    with Store.open(db, readonly=True) as store:
        work = Workload(store, rng, per_shape, "rows")
        makers = (work.two_terms, work.keyword_subject, work.subject_only, work.as_of_keyword)
        items = [(shape, make(i)) for shape, make in zip(SHAPES, makers, strict=True)
                 for i in range(per_shape)]
    rng.shuffle(items)
    for name, kwargs in TAILS.items():
        items += [(name, kwargs)] * TAIL_REPEAT
    return items


SIDES = ("reference", "python", "python, browse", "python, base")
WARMUP = 200


class Child:
    """One side's long-lived child: send a query index, read back one call's timing/result."""

    def __init__(self, side: str, args: argparse.Namespace, db: str,
                 queries: list[dict[str, Any]], clock: dict[str, Any], tmp: Path,
                 base: Path | None = None) -> None:
        job: dict[str, Any] = {"db": db, "queries": queries, "clock": clock,
                               "reinforce": side != "python, browse"}
        job_file = tmp / f"job-{SIDES.index(side)}.json"
        if side == "reference":
            job["queries"] = [{CAMEL[k]: v for k, v in q.items()} for q in queries]
            job["core"] = str(Path(args.reference).resolve())
            cmd = ["node", str(BENCH / "reference_recall.mjs"), str(job_file)]
        else:
            cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(job_file)]
        job_file.write_text(json.dumps(job))
        self.side = side
        env = {**os.environ, CODE_ENV: str(base if side == "python, base" else REPO)}
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, cwd=REPO, env=env)
        ready = self._line()
        if not ready.startswith("READY "):
            raise SystemExit(f"{side} child did not start: {ready!r}")
        info = json.loads(ready[len("READY "):])
        self.sqlite, self.code = info["sqlite"], info.get("code", "node")

    def _line(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"{self.side} child ended early ({self.proc.wait()})")
        return line

    def ask(self, i: int) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{i}\n")
        self.proc.stdin.flush()
        return json.loads(self._line())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def serve(job_file: str) -> int:
    """The python side's child: Store.recall on request, the same protocol as the .mjs."""
    job = json.loads(Path(job_file).read_text())
    reinforce = job["reinforce"]
    queries = job["queries"]
    with Store.open(job["db"], clock=FakeClock(job["clock"]["start"], job["clock"]["step"])) \
            as store:
        print("READY " + json.dumps({"sqlite": sqlite_version(),
                                     "code": str(Path(sql.__file__).parents[2])}), flush=True)
        for line in sys.stdin:
            if not line.strip():
                break
            kwargs = queries[int(line)]
            c0, t0 = time.thread_time_ns(), time.perf_counter_ns()
            r = store.recall(**kwargs, reinforce=reinforce)
            t1, c1 = time.perf_counter_ns(), time.thread_time_ns()
            print(json.dumps({"wall": (t1 - t0) / 1e6, "cpu": (c1 - c0) / 1e6,
                              "ids": [f.id for f in r.facts],
                              "scores": [f.score for f in r.facts],
                              "fallback": r.used_fallback}), flush=True)
    return 0


def fresh_copy(src: str, tmp: Path, name: str) -> str:
    dest = tmp / name
    for suffix in ("-wal", "-shm"):
        Path(str(dest) + suffix).unlink(missing_ok=True)
    shutil.copyfile(src, dest)
    return str(dest)


def same(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= 1e-9 * max(abs(x), abs(y), 1e-300)
                                    for x, y in zip(a, b, strict=True))


def one_round(r: int, args: argparse.Namespace, db: str, sides: list[str],
              queries: list[dict[str, Any]], clock: dict[str, Any], tmp: Path,
              base: Path | None) -> dict[str, list[dict[str, Any]]]:
    """Every query on every side, the order rotating per query; answers per side."""
    children = [Child(side, args, fresh_copy(db, tmp, f"round-{n}.db"), queries, clock, tmp,
                      base) for n, side in enumerate(sides)]
    if r == 0:
        print("SQLite: " + ", ".join(f"{c.side} {c.sqlite}" for c in children))
        print("code: " + ", ".join(f"{c.side} {c.code}" for c in children))
    answers: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
    warm = min(WARMUP, len(queries))
    order = list(range(warm)) + list(range(len(queries)))
    try:
        for n, i in enumerate(order):
            # rotate the order each query: every side takes every place equally often, and no
            # side ever runs twice in a row while another doesn't (a warm cache for it alone)
            turn = (n + r) % len(children)
            for child in children[turn:] + children[:turn]:
                answer = child.ask(i)
                if n >= warm:
                    answers[child.side].append(answer)
    finally:
        for child in children:
            child.close()
    return answers


def check_parity(r: int, side: str, queries: list[dict[str, Any]],
                 ref: list[dict[str, Any]], py: list[dict[str, Any]]) -> int:
    bad = [i for i in range(len(queries))
           if ref[i]["ids"] != py[i]["ids"] or not same(ref[i]["scores"], py[i]["scores"])
           or ref[i]["fallback"] != py[i]["fallback"]]
    print(f"  round {r + 1} parity, {side}: {len(queries) - len(bad)}/{len(queries)} queries "
          f"answered as the reference did (ids, scores within 1e-9, usedFallback)")
    for i in bad[:5]:
        print(f"    query {i} {queries[i]}: reference {ref[i]['ids']} python {py[i]['ids']}")
    return len(bad)


def round_metrics(items: list, run: list[dict[str, Any]]) -> dict[str, float]:
    """One round's p50/p95/p99, wall and CPU, per group; the four shapes together: 'overall'."""
    groups = {"overall": [i for i, (g, _) in enumerate(items) if g in SHAPES]}
    groups.update({g: [i for i, (gg, _) in enumerate(items) if gg == g]
                   for g in (*SHAPES, *TAILS)})
    out: dict[str, float] = {}
    for group, idx in groups.items():
        for kind in ("wall", "cpu"):
            values = sorted(run[i][kind] for i in idx)
            for p in (50, 95, 99):
                out[f"{group} {kind} p{p}"] = percentile(values, p)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference", help="a built @memharness/core package folder")
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--per-shape", type=int, default=250, help="queries per shape")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--browse", action="store_true", help="also time the app's read-only recall")
    ap.add_argument("--base", help="also run this commit's Store.recall (a git worktree)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return serve(args.child)
    if not args.reference or not (Path(args.reference) / "dist" / "index.js").exists():
        ap.error("--reference must name a built @memharness/core package folder "
                 "(DIR/dist/index.js)")
    if shutil.which("node") is None:
        ap.error("node is not on PATH")
    sides = ["reference", "python"] + ["python, browse"] * args.browse + ["python, base"] * bool(
        args.base)
    runs: dict[str, list[list[dict[str, Any]]]] = {s: [] for s in sides}
    mismatches = 0
    with contextlib.ExitStack() as stack:
        base = stack.enter_context(BaseCheckout(args.base)) if args.base else None
        tmp_name = stack.enter_context(tempfile.TemporaryDirectory(prefix="memharness-ref-"))
        tmp = Path(tmp_name)
        db = str(seed_store(tmp, args.facts))
        Store.open(db).close()  # migrate (if ever needed) before any copy is taken
        items = workload(db, args.per_shape, args.seed)
        queries = [kw for _, kw in items]
        with Store.open(db, readonly=True) as store:
            newest = store.conn.execute("SELECT MAX(tx_at) FROM facts").fetchone()[0]
        clock = {"start": newest, "step": 1000}  # the file's newest instant, then 1 s a call
        print(f"reference bench: {args.facts:,} facts, {len(queries)} queries "
              f"({args.per_shape} per shape + {TAIL_REPEAT} of each tail case) after "
              f"{min(WARMUP, len(queries))} warm-up, {args.rounds} rounds, fake clock from {newest}")
        for r in range(args.rounds):
            answers = one_round(r, args, db, sides, queries, clock, tmp, base)
            for side in sides:
                runs[side].append(answers[side])
            for side in ("python", "python, base")[: 1 + bool(args.base)]:
                mismatches += check_parity(r, side, queries, answers["reference"], answers[side])
    if hasattr(os, "getloadavg"):
        print("load average at the end: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    results = {side: [round_metrics(items, run) for run in runs[side]] for side in sides}
    keys = list(results["reference"][0])
    print_table(f"recall, {args.facts:,} facts, {len(queries)} queries, next to the reference core",
                [Side(side, REPO) for side in sides], results, [(k, k, "ms") for k in keys])
    print(f"\nparity over all rounds: {mismatches} mismatching answers")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
