"""Run a benchmark's measurement on this checkout and on a base commit, interleaved, in one run.

A benchmark script measures in a child process (``--child-json``) and prints one
``RESULT {json}`` line. The parent runs that child once per side per round, alternating
sides (base, new, base, new, …) so load on a shared machine hits both alike, then prints the
median of each metric per side and the ratio new/base. A ratio from one run is the result;
absolute times on a noisy machine are only context.

The base is a ``git worktree`` of ``--base`` (default: the commit before issue #9) in a temp
folder, removed afterwards. The child imports ``memharness_tui`` from the side's folder
(``MEMHARNESS_BENCH_CODE``), with the same interpreter and packages. A base from before the
SQLite driver choice (no ``store/driver.py``, e.g. the default) ran on the standard
library's sqlite3, so its children run with ``pysqlite3`` hidden — exactly what a user of
that code had; a later base picks its driver itself.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_BASE = "ef36ba0"  # main when issue #9 started: the code "as it landed before"
CODE_ENV = "MEMHARNESS_BENCH_CODE"


HIDE_ENV = "MEMHARNESS_BENCH_HIDE_PYSQLITE3"


def code_dir() -> Path:
    """The folder whose ``memharness_tui`` a benchmark (child) imports; put it on sys.path.

    Call before importing ``memharness_tui``. In the child of a base from before pysqlite3
    (and any process it starts) ``pysqlite3`` is made unimportable, as it was for its users.
    """
    if os.environ.get(HIDE_ENV) == "1":
        sys.modules["pysqlite3"] = None  # type: ignore[assignment]  # import now fails
    path = Path(os.environ.get(CODE_ENV, REPO))
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
    return path


@dataclass(frozen=True)
class Side:
    name: str
    code: Path
    hide_pysqlite3: bool = False
    env: tuple[tuple[str, str], ...] = ()


def add_arguments(ap: argparse.ArgumentParser, *, rounds: int = 3) -> None:
    ap.add_argument("--base", default=DEFAULT_BASE,
                    help=f"commit to compare with (default {DEFAULT_BASE}, before issue #9)")
    ap.add_argument("--rounds", type=int, default=rounds, help="interleaved runs per side")
    ap.add_argument("--no-compare", action="store_true", help="measure this checkout only")
    ap.add_argument("--sqlite", choices=["both"], help="also run this checkout on stdlib sqlite3")
    ap.add_argument("--child-json", help=argparse.SUPPRESS)


class BaseCheckout:
    """A detached ``git worktree`` of ``rev`` in a temp folder (a context manager)."""

    def __init__(self, rev: str) -> None:
        self.rev = rev
        self.path = Path(tempfile.mkdtemp(prefix="memharness-bench-base-")) / "base"

    def __enter__(self) -> Path:
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q",
                        str(self.path), self.rev], check=True)
        return self.path

    def __exit__(self, *exc: object) -> None:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(self.path)],
                       check=False, capture_output=True)
        with contextlib.suppress(OSError):
            self.path.parent.rmdir()


def run_child(script: Path, side: Side, payload: dict, *, timeout: float = 3600) -> dict:
    """Run ``script --child-json PAYLOAD`` for one side; return its RESULT."""
    env = {**os.environ, CODE_ENV: str(side.code), HIDE_ENV: "1" if side.hide_pysqlite3 else "0",
           **dict(side.env)}
    cmd = [sys.executable, str(script), "--child-json", json.dumps(payload)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                          cwd=side.code)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise SystemExit(f"{side.name} child failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n"
                     f"{proc.stderr[-3000:]}")


def emit(result: dict) -> None:
    """A child's last line: the measurement for the parent."""
    print("RESULT " + json.dumps(result), flush=True)


def sides_for(args: argparse.Namespace, base_path: Path | None) -> list[Side]:
    sides: list[Side] = []
    if base_path is not None:
        # Code from before pysqlite3 was adopted (no store/driver.py) ran on the standard
        # library's SQLite; code after it picks pysqlite3 itself, as its users' does.
        chooses = (base_path / "memharness_tui" / "store" / "driver.py").exists()
        sides.append(Side(f"base {args.base}", base_path, hide_pysqlite3=not chooses))
    sides.append(Side("new", REPO))
    if getattr(args, "sqlite", None) == "both":
        sides.append(Side("new, stdlib sqlite3", REPO, env=(("MEMHARNESS_SQLITE", "stdlib"),)))
    return sides


def interleaved(script: Path, args: argparse.Namespace, payload: dict,
                on_round: Callable[[int, str, dict], None] | None = None
                ) -> tuple[list[Side], dict[str, list[dict]]]:
    """Run the child for every side, ``args.rounds`` times, alternating sides."""
    results: dict[str, list[dict]] = {}

    def go(sides: list[Side]) -> None:
        for r in range(args.rounds):
            order = sides if r % 2 == 0 else list(reversed(sides))
            for side in order:
                res = run_child(script, side, payload)
                results.setdefault(side.name, []).append(res)
                if on_round:
                    on_round(r, side.name, res)

    if args.no_compare:
        sides = sides_for(args, None)
        go(sides)
        return sides, results
    with BaseCheckout(args.base) as base:
        sides = sides_for(args, base)
        go(sides)
    return sides, results


def _short(name: str) -> str:
    """A side's name in a ratio's header: ``base``, ``new``, ``stdlib``, or the name itself."""
    if name.startswith("base "):
        return "base"
    return {"new, stdlib sqlite3": "stdlib"}.get(name, name)


def median_of(runs: list[dict], key: str) -> float:
    values = [float(r[key]) for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else float("nan")


def print_table(title: str, sides: Sequence[Side], results: dict[str, list[dict]],
                metrics: Sequence[tuple[str, str, str]]) -> None:
    """``metrics``: (label, key, unit). Medians over rounds; ratio = side / first side."""
    names = [s.name for s in sides]
    width = max(12, *(len(n) for n in names))
    print(f"\n{title}  (median over {len(results[names[0]])} interleaved rounds per side)")
    ratios = [f"{_short(n)}/{_short(names[0])}" for n in names[1:]]
    ratio_widths = [max(16, len(r) + 2) for r in ratios]
    head = f"{'measure':<44}" + "".join(f"{n:>{width + 2}}" for n in names)
    head += "".join(f"{r:>{w}}" for r, w in zip(ratios, ratio_widths, strict=True))
    print(head)
    for label, key, unit in metrics:
        vals = [median_of(results[n], key) for n in names]
        line = f"{label + ' (' + unit + ')':<44}" + "".join(f"{v:>{width + 2}.3f}" for v in vals)
        for v, w in zip(vals[1:], ratio_widths, strict=True):
            ratio = v / vals[0] if vals[0] else float("nan")
            line += f"{ratio:>{w - 1}.2f}×"
        print(line)
    if len(names) > 1:
        print(f"ratio = side / {names[0]}: below 1.00× is faster")
