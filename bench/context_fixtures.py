"""The context preview's fixtures: the reference's SessionStart hook (``memharness-context``)
run on stores the reference wrote, its stdout recorded byte for byte.

Not a timing. Run by hand to (re)write ``tests/fixtures/context/``; the suite replays every
case through ``memharness-tui context`` and compares bytes (tests/test_cli_context.py; CI
has no node reference):

    .venv/bin/python bench/context_fixtures.py --core PATH/TO/core --mcp PATH/TO/mcp

``--core`` names a built ``@memharness/core`` package folder (``dist/``, ``node_modules/``),
``--mcp`` a built ``@memharness/mcp`` one whose ``dist/context.js`` runs under node (its
``node_modules/@memharness/core`` resolving to the core). The stores: ``v5.db`` and
``hybrid_parity.db`` (already in tests/fixtures), and ``context/long.db``, written here
through the reference core (``bench/context_reference.mjs``: public API only) with many
subjects, long facts, predicates, pins and verdicts, kinds and importances, text outside
the BMP (its UTF-16 length is what the budget counts), revisions and retractions.

Each case runs the hook on a fresh copy of its store (the hook reinforces) with
``MEMHARNESS_DB`` naming the copy and ``Date.now()`` fixed at the case's instant
(``bench/context_fake_now.mjs``, preloaded), so the replay passes the same instant as
``--now``. Written: ``context/cases.json`` (store, instant, the hook's flags, its exit code
and stderr, the file holding its stdout) and ``context/<store>/<n>.out`` (the stdout bytes).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
FIXTURES = REPO / "tests" / "fixtures"
OUT = FIXTURES / "context"
SEED = 6100
LONG_CLOCK = ("2026-05-01T09:00:00.000Z", 3_600_000)  # an hour a stamp: ages vary by days
SUBJECTS = ("user", "proj:atlas", "proj:borealis", "team", "tools", "infra:ci", "style",
            "lang:ünïcødé", "docs", "ops", "misc", "people", "security")
WORDS = ("cache", "deploy", "token", "schema", "latency", "review", "branch", "index",
         "vector", "budget", "retry", "queue", "lint", "render", "parser", "socket", "quota",
         "shard", "backup", "mirror", "kernel", "widget", "ledger", "planner", "naïve",
         "café", "日本語", "😀", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "—")


def long_store_ops() -> list[dict[str, Any]]:
    """The writes behind ``context/long.db`` (seeded: the same ops every run)."""
    rnd = random.Random(SEED)
    ops: list[dict[str, Any]] = []
    ids = 0
    live: list[int] = []
    for n in range(240):
        subject = SUBJECTS[min(int(len(SUBJECTS) * rnd.random() ** 1.6), len(SUBJECTS) - 1)]
        words = rnd.randint(4, 90 if rnd.random() < 0.3 else 25)
        op: dict[str, Any] = {
            "op": "remember", "subject": subject,
            "fact": " ".join(rnd.choice(WORDS) for _ in range(words)),
            "confidence": rnd.choice((1.0, 0.9, 0.75, 0.125, 0.375, 0.5, 0.625, 0.875, 0.333)),
            "importance": rnd.choice((5, 5, 5, 1, 3, 7, 9, 10)),
            "kind": rnd.choice(("semantic", "semantic", "episodic", "procedural")),
            "sourceAgent": rnd.choice(("claude", "codex", "", "cursor/1.2")),
            "sourceRef": rnd.choice(("", "", f"session-{n % 17}", f"pr#{n}")),
        }
        if rnd.random() < 0.3:
            op["predicate"] = rnd.choice(("prefers", "uses", "owns", "avoids"))
        if rnd.random() < 0.25:
            op["sourceCommit"] = f"{rnd.getrandbits(160):040x}"
            if rnd.random() < 0.7:
                op["sourcePath"] = rnd.choice(("src/app.ts", "README.md", "lib/ü.py"))
        ops.append(op)
        ids += 1
        live.append(ids)
        r = rnd.random()
        if r < 0.12 and len(live) > 3:
            old = live.pop(rnd.randrange(len(live)))
            ops.append({"op": "revise", "oldFactId": old,
                        "newFact": " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 30))),
                        "sourceAgent": "claude", "sourceRef": f"fix-{n}"})
            ids += 1
            live.append(ids)
        elif r < 0.17 and len(live) > 3:
            ops.append({"op": "forget", "factId": live.pop(rnd.randrange(len(live)))})
        elif r < 0.24 and "sourceCommit" in op:
            ops.append({"op": "stale", "id": ids,
                        "freshness": rnd.choice(("stale", "unresolved", "current")),
                        "checkedAt": "2026-06-01T00:00:00.000Z", "checkedHead": "a" * 40})
    return ops


def write_long_store(core: Path, path: Path) -> None:
    if path.exists():
        path.unlink()
    with tempfile.TemporaryDirectory() as tmp:
        job = Path(tmp) / "job.json"
        job.write_text(json.dumps({"core": str(core), "db": str(path),
                                   "clock": {"start": LONG_CLOCK[0], "step": LONG_CLOCK[1]},
                                   "ops": long_store_ops()}))
        subprocess.run(["node", str(BENCH / "context_reference.mjs"), str(job)], check=True,
                       stdout=subprocess.DEVNULL)
    with sqlite3.connect(path) as conn:  # one self-contained file, no -wal beside it
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode=DELETE")


def top_subjects(path: Path) -> list[str]:
    with sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True) as conn:
        rows = conn.execute(
            "SELECT subject, COUNT(*) FROM facts WHERE superseded_by IS NULL AND "
            "retracted_at IS NULL GROUP BY subject ORDER BY 2 DESC, 1").fetchall()
    return [s for s, _ in rows]


def newest_tx(path: Path) -> str:
    with sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True) as conn:
        return str(conn.execute("SELECT MAX(tx_at) FROM facts").fetchone()[0])


def cases_for(subjects: list[str]) -> list[list[str]]:
    """The hook's flags to record on one store: subject sets, budgets, limits, odd numbers."""
    a, b, c = (subjects + ["user", "user", "user"])[:3]
    sub = lambda *names: [x for n in names for x in ("--subject", n)]  # noqa: E731
    every = sub(*subjects[:12])
    return [
        [],
        sub(a),
        sub(b),
        sub(a, b),
        sub(b, a, c),
        sub("nobody", a),
        every,
        every + ["--max-tokens", "100000", "--limit", "50"],
        sub(a, b, c) + ["--max-tokens", "60"],
        sub(a, b, c) + ["--max-tokens", "1"],
        sub(a) + ["--max-tokens", "25", "--limit", "3"],
        sub(a, b) + ["--limit", "1"],
        sub(a, b) + ["--limit", "20"],
        sub(a, a),
        sub(a, "", b),
        sub(f" {a} ", a),
        sub("") + ["--limit", "5"],
        sub(a) + ["--max-tokens", "0"],
        sub(a) + ["--max-tokens", "-3"],
        sub(a) + ["--max-tokens", "1e3"],
        sub(a) + ["--max-tokens", "0x40"],
        sub(a) + ["--max-tokens", " 90 "],
        sub(a) + ["--max-tokens", "2.5"],
        sub(a) + ["--max-tokens", "lots"],
        sub(a) + ["--limit", "0"],
        sub(a) + ["--limit", "1.5"],
        sub(a) + ["--limit", "4.0"],
    ]


def run_hook(mcp: Path, store: Path, now: str, flags: list[str]) -> tuple[int, bytes, str]:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / store.name
        shutil.copyfile(store, copy)
        env = {**os.environ, "MEMHARNESS_DB": str(copy), "MEMHARNESS_FAKE_NOW": now}
        env.pop("MEMHARNESS_DEBUG", None)
        done = subprocess.run(
            ["node", "--import", (BENCH / "context_fake_now.mjs").as_uri(),
             str(mcp / "dist" / "context.js"), *flags],
            env=env, capture_output=True, check=False)
    return done.returncode, done.stdout, done.stderr.decode("utf-8", "replace")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--core", type=Path, required=True)
    ap.add_argument("--mcp", type=Path, required=True)
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    write_long_store(args.core.resolve(), OUT / "long.db")
    stores = {"v5.db": FIXTURES / "v5.db", "hybrid_parity.db": FIXTURES / "hybrid_parity.db",
              "context/long.db": OUT / "long.db"}
    cases: list[dict[str, Any]] = []
    for name, path in stores.items():
        folder = OUT / Path(name).stem
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        # a month after the newest write: ages (and so the ranking's decay) of days to months
        newest = newest_tx(path)
        now = f"{int(newest[:4]) + (1 if newest[5:7] == '12' else 0):04d}-" \
              f"{int(newest[5:7]) % 12 + 1:02d}-01T12:00:00.000Z"
        for n, flags in enumerate(cases_for(top_subjects(path))):
            code, out, err = run_hook(args.mcp.resolve(), path, now, flags)
            out_file = f"{Path(name).stem}/{n:02d}.out"
            (OUT / out_file).write_bytes(out)
            cases.append({"store": name, "now": now, "flags": flags, "exit": code,
                          "stderr": err, "stdout": out_file})
            print(f"{name} {n:02d} exit={code} {len(out)} bytes {' '.join(flags)[:70]}")
    (OUT / "cases.json").write_text(json.dumps(cases, indent=1, ensure_ascii=False) + "\n",
                                    encoding="utf-8")
    print(f"{len(cases)} cases in {OUT / 'cases.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
