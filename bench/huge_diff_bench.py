"""Benchmark: one huge file with every line changed (issue 20, item 7).

Generates a repo whose ``big.txt`` (``--mb`` MB, default 26) has every line changed between
the pin and HEAD, and a store with one fact pinned to it. Then, each in its own child process
(so each peak RSS is its own), times and reports peak RSS of:

* ``report``: ``staleness --check --format markdown`` (the pass, then the triage of the stale
  fact and the Markdown);
* ``triage``: one ``Triager.analyse`` of the fact (what the app's flagged table asks per row);
* ``revise``: the revise modal's git load (``services.git.revise_picture``: the verdict,
  the triage, the drift and the diff), without painting.

Sides are interleaved with the same children on ``--base`` (a ``git worktree`` of it, default
``main``). Prints seconds and MB per side and the ratio new/base; asserts nothing. Wall-clock
numbers on a shared machine are context; the ratio from one run is the result. ``--timeout``
bounds each child (a base side that takes longer is reported as ``>TIMEOUT``).

    .venv/bin/python bench/huge_diff_bench.py [--mb 26] [--rounds 1] [--base main]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from compare import BaseCheckout, Side, code_dir, emit  # noqa: E402

MEASURES = ("report", "triage", "revise")
FACT = "line 12345 of big.txt says value 12345"


def build(root: Path, mb: float) -> tuple[Path, Path, str]:
    """(repo, db, pin): big.txt at the pin, every line changed at HEAD."""
    repo = root / "repo"
    repo.mkdir()
    env_git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
               "-c", "init.defaultBranch=main"]
    subprocess.run([*env_git, "init", "-q"], cwd=repo, check=True)
    n = int(mb * 1024 * 1024 / 64)
    line = "line {:>8} of big.txt says value {:>8} and some padding text\n"
    (repo / "big.txt").write_text("".join(line.format(i, i) for i in range(n)))
    subprocess.run([*env_git, "add", "big.txt"], cwd=repo, check=True)
    subprocess.run([*env_git, "commit", "-q", "-m", "pin"], cwd=repo, check=True)
    pin = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True,
                         capture_output=True, text=True).stdout.strip()
    (repo / "big.txt").write_text("".join(line.format(i, i + 1) for i in range(n)))
    subprocess.run([*env_git, "commit", "-q", "-am", "every line"], cwd=repo, check=True)
    db = root / "m.db"
    code_dir()
    from memharness_tui.store import Store

    store = Store.open(str(db))
    try:
        store.remember("bench", FACT, source_commit=pin, source_path="big.txt")
    finally:
        store.close()
    return repo, db, pin


def child(payload: dict) -> None:
    import resource

    code_dir()
    repo, db, pin, measure = payload["repo"], payload["db"], payload["pin"], payload["measure"]
    started = time.perf_counter()
    if measure == "report":
        import contextlib
        import io

        from memharness_tui.staleness import cli as scli

        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            scli.main(["staleness", "--db", db, "--repo", repo, "--check",
                       "--format", "markdown"])
        size = len(out.getvalue())
    elif measure == "triage":
        from memharness_tui.staleness.analysis import Triager

        size = len(Triager([repo]).analyse(FACT, pin, "big.txt").summary)
    else:
        import asyncio

        from memharness_tui.tui.services.git import revise_picture

        pic = asyncio.run(revise_picture([repo], pin, "big.txt", FACT))
        size = len(pic.diff or "")
    elapsed = time.perf_counter() - started
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    emit({"seconds": elapsed, "rss_mb": rss_mb, "output_chars": size})


def _run(side: Side, payload: dict, timeout: float) -> dict | None:
    import os

    env = {**os.environ, "MEMHARNESS_BENCH_CODE": str(side.code)}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child-json", json.dumps(payload)]
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                              cwd=side.code)
    except subprocess.TimeoutExpired:
        return None
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise SystemExit(f"{side.name} child failed ({proc.returncode}):\n{proc.stderr[-3000:]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=26.0, help="size of the huge file (MB)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--base", default="main", help="the code to compare with (a git revision)")
    ap.add_argument("--no-compare", action="store_true", help="measure this checkout only")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per child")
    ap.add_argument("--measures", default=",".join(MEASURES))
    ap.add_argument("--child-json", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child_json:
        child(json.loads(args.child_json))
        return
    measures = [m for m in args.measures.split(",") if m]
    with tempfile.TemporaryDirectory(prefix="huge-diff-bench-") as tmp:
        repo, db, pin = build(Path(tmp), args.mb)
        print(f"big.txt: {args.mb:g} MB, every line changed; pin {pin[:7]}")
        new = Side("new", Path(__file__).resolve().parents[1])
        results: dict[tuple[str, str], list[dict | None]] = {}

        def go(sides: list[Side]) -> None:
            for r in range(args.rounds):
                for side in sides if r % 2 == 0 else list(reversed(sides)):
                    for m in measures:
                        payload = {"repo": str(repo), "db": str(db), "pin": pin, "measure": m}
                        results.setdefault((side.name, m), []).append(
                            _run(side, payload, args.timeout))

        if args.no_compare:
            sides = [new]
            go(sides)
        else:
            with BaseCheckout(args.base) as base:
                sides = [Side(f"base {args.base}", base), new]
                go(sides)
        print(f"\n{'measure':<10}" + "".join(f"{s.name + ' s':>16}{s.name + ' MB':>16}"
                                               for s in sides) + f"{'time new/base':>16}")
        for m in measures:
            row = f"{m:<10}"
            secs = []
            for s in sides:
                runs = [x for x in results[(s.name, m)] if x is not None]
                if not runs:
                    row += f"{'>' + format(args.timeout, 'g'):>16}{'?':>16}"
                    secs.append(None)
                    continue
                t = sorted(x["seconds"] for x in runs)[len(runs) // 2]
                mb = max(x["rss_mb"] for x in runs)
                row += f"{t:>16.2f}{mb:>16.0f}"
                secs.append(t)
            if len(secs) == 2 and all(v is not None for v in secs):
                row += f"{secs[1] / secs[0]:>15.3f}×"  # type: ignore[operator]
            print(row)
        print("wall-clock on a shared machine; peak RSS is the child's ru_maxrss")


if __name__ == "__main__":
    main()
