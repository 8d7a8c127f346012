"""Benchmark: the flagged table on a big store — every flagged fact listed, triage for the rows on
screen, the triage sort (every row triaged), mark all.

Builds the repo and store with ``bench/staleness_bench.py``'s builders, runs one headless pass
so the store has verdicts, then opens the app (Pilot, real DB thread) on the Staleness tab and
times what a person waits for. Prints numbers; asserts nothing.

    .venv/bin/python bench/flagged_table_bench.py [--facts 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _builders() -> tuple[Any, Any]:
    spec = importlib.util.spec_from_file_location("staleness_bench",
                                                  ROOT / "bench" / "staleness_bench.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.build_repo, mod.build_store


async def _until(pilot: Any, cond: Any, limit: float = 600.0) -> float:
    t0 = time.perf_counter()
    while not cond():
        if time.perf_counter() - t0 > limit:
            raise TimeoutError
        await pilot.pause(0.005)
    return time.perf_counter() - t0


async def run(db: Path, repo: Path) -> dict[str, Any]:
    from memharness_tui.tui.app import build_app
    from memharness_tui.tui.widgets.dashboard import StalenessDashboard, StalenessOptions

    app = build_app(str(db), cursor_blink=False, config_dir=db.parent / "config")
    app.staleness_options = StalenessOptions(  # type: ignore[attr-defined]
        repos=[str(repo)], cwd=str(db.parent), drift_delay=0)
    out: dict[str, Any] = {}
    async with app.run_test(size=(160, 48)) as pilot:
        await _until(pilot, lambda: app.main_screen() is not None)
        t0 = time.perf_counter()
        await pilot.press("4")
        dash = app.screen.query_one("#staleness-pane", StalenessDashboard)
        panel = dash.panel
        await _until(pilot, lambda: panel.table.row_count > 0)
        out["rows_s"] = time.perf_counter() - t0
        await _until(pilot, lambda: panel._loaded)
        out["load_s"] = time.perf_counter() - t0
        out["rows"] = panel.table.row_count
        out["flagged"] = len(panel.flagged)

        def visible_done() -> bool:
            ids = panel.visible_ids()
            return bool(ids) and all(panel.rows[i].triage_done for i in ids)

        out["visible_triage_s"] = await _until(pilot, visible_done)
        panel.table.focus()
        t0 = time.perf_counter()
        await pilot.press("end")
        await _until(pilot, visible_done)
        out["end_triage_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        await pilot.press("a")
        out["mark_all_s"] = time.perf_counter() - t0
        out["marked"] = len(panel.marked)
        await pilot.press("a")
        todo = sum(1 for info in panel.rows.values() if not info.triage_done)
        t0 = time.perf_counter()
        await pilot.press("b")
        await _until(pilot, lambda: panel.sort == "triage" and not panel.analysing)
        out["sort_s"] = time.perf_counter() - t0
        out["sort_triaged"] = todo
        counts: dict[str, int] = {}
        for info in panel.rows.values():
            if info.triage is not None:
                counts[info.triage.outcome] = counts.get(info.triage.outcome, 0) + 1
        out["outcomes"] = counts
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", type=int, default=10_000)
    args = ap.parse_args()
    build_repo, build_store = _builders()
    from memharness_tui.staleness.runner import StalenessPass

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        rng = random.Random(7)
        t0 = time.perf_counter()
        repo, main_, side, files = build_repo(root, rng)
        db = root / "bench.db"
        build_store(db, args.facts, main_, side, files, rng)
        StalenessPass(str(db), [str(repo)]).run()
        print(f"built {args.facts:,} facts and ran a pass in {time.perf_counter() - t0:.1f} s")
        r = asyncio.run(run(db, repo))
    print(f"flagged facts: {r['flagged']:,}; rows in the table: {r['rows']:,}")
    print(f"Staleness tab → every flagged row in the table: {r['rows_s']:.2f} s; "
          f"reasons and repos judged for all of them: {r['load_s']:.2f} s")
    print(f"triage of the rows on screen: {r['visible_triage_s'] * 1000:.0f} ms; "
          f"after End: {r['end_triage_s'] * 1000:.0f} ms")
    print(f"mark all ({r['marked']:,} rows): {r['mark_all_s'] * 1000:.0f} ms")
    n = max(1, r["sort_triaged"])
    print(f"sort by triage ({r['sort_triaged']:,} rows triaged): {r['sort_s']:.2f} s "
          f"= {r['sort_s'] / n * 1000:.2f} ms per stale/flagged fact")
    print(f"outcomes: {r['outcomes']}")


if __name__ == "__main__":
    main()
