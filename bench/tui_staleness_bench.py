"""Benchmark: a full staleness pass in the app on a 10,000-pin store, and UI responsiveness during it.

Builds the repo and store with ``bench/staleness_bench.py``'s builders (1,000 commits, 10,000
facts), then runs the app headless (Pilot) on that store through its real DB thread, starts a
pass from the Staleness tab, and while it runs presses a key every few milliseconds, timing how
long each press takes to reach its handler and to finish. Also times the same pass headless.
Prints numbers; asserts nothing.

    .venv/bin/python bench/tui_staleness_bench.py [--facts 10000] [--batch 200]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _builders():
    spec = importlib.util.spec_from_file_location("staleness_bench", ROOT / "bench" / "staleness_bench.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.build_repo, mod.build_store


def _pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


async def run_in_app(db: Path, repo: Path, batch: int, probe_every: float) -> dict[str, object]:
    from memharness_tui.tui.app import MemharnessApp
    from memharness_tui.tui.widgets.dashboard import StalenessDashboard, StalenessOptions

    app = MemharnessApp(str(db), cursor_blink=False, config_dir=db.parent / "config")
    app.staleness_options = StalenessOptions(  # type: ignore[attr-defined]
        batch_size=batch, repos=[str(repo)], cwd=str(db.parent))
    reached: list[float] = []
    progress_events: list[object] = []

    def hook(message: object) -> None:
        from memharness_tui.tui.widgets.staleness.controller import PassProgressed

        if isinstance(message, PassProgressed):
            progress_events.append(message)

    async with app.run_test(size=(160, 48), message_hook=hook) as pilot:
        for _ in range(500):
            if app.main_screen() is not None:
                break
            await pilot.pause(0.01)
        await pilot.press("4")
        await pilot.pause(0.3)
        await app.workers.wait_for_complete()
        dash = app.screen.query_one("#staleness-pane", StalenessDashboard)
        original = dash.action_toggle_check_only

        def probe() -> None:  # the key's handler: note when it ran
            reached.append(time.perf_counter())
            original()

        dash.action_toggle_check_only = probe  # type: ignore[method-assign]
        from textual import events

        sent: list[float] = []

        def send_key(name: str = "k") -> None:  # how a terminal's key reaches the app
            key = events.Key(name, name)
            key.set_sender(app)
            app._driver.send_message(key)  # type: ignore[union-attr]

        t0 = time.perf_counter()
        send_key("s")  # not pilot.press: it waits for a quiet app, i.e. the whole pass
        while dash.state is None:
            await asyncio.sleep(0.001)
        # press k every few ms without waiting for the app to be idle (Pilot.press would wait
        # for a quiet moment, which a streaming pass rarely has); pair sends with handler runs
        while dash.state is None or not dash.state.done:
            sent.append(time.perf_counter())
            send_key()
            await asyncio.sleep(probe_every)
        t_pass = time.perf_counter() - t0
        n_during = len(sent)
        events_shown = len(progress_events)
        from memharness_tui.tui.widgets.staleness.counters import PassCounters

        summary = dash.query_one(PassCounters).text()
        t1 = time.perf_counter()
        while dash.panel._needs_load or not dash.panel.flagged or app.workers._workers:
            sent.append(time.perf_counter())
            send_key()
            await asyncio.sleep(probe_every)
            if time.perf_counter() - t1 > 30:
                break
        t_reload = time.perf_counter() - t1
        await pilot.pause(0.2)
        flagged = len(dash.panel.flagged)
        to_handler = [(r - s) * 1000 for s, r in zip(sent, reached, strict=False)]
        during, after = to_handler[:n_during], to_handler[n_during:]
    return {"pass_s": t_pass, "events": events_shown, "summary": summary, "during": during,
            "after": after, "reload_s": t_reload, "flagged": flagged}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--facts", type=int, default=10_000)
    ap.add_argument("--batch", type=int, default=200)
    ap.add_argument("--probe-every", type=float, default=0.005, help="seconds between key presses")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    build_repo, build_store = _builders()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="tui-staleness-bench-") as tmp:
        root = Path(tmp)
        t = time.perf_counter()
        repo, main_shas, side, files = build_repo(root, rng)
        db = root / "memory.db"
        build_store(db, args.facts, main_shas, side, files, rng)
        print(f"built: {len(main_shas)} commits, {args.facts} facts ({time.perf_counter() - t:.1f} s)")

        from memharness_tui.staleness.runner import StalenessPass

        check = StalenessPass(db, [repo], check_only=True, batch_size=args.batch).run()
        print(f"headless check-only pass:   {check.elapsed:.3f} s   {check.summary_line()}")

        import shutil

        fresh = root / "fresh.db"
        shutil.copyfile(db, fresh)  # the same store, for a headless first pass to compare with
        r = asyncio.run(run_in_app(db, repo, args.batch, args.probe_every))
        print(f"in-app pass (writes):       {r['pass_s']:.3f} s   {r['summary']}")
        print(f"  progress events shown:    {r['events']}")
        print(f"  after the pass, reload of counts, lists and {r['flagged']} flagged rows: "
              f"{r['reload_s']:.3f} s")
        for label in ("during", "after"):
            th = r[label]
            assert isinstance(th, list)
            if th:
                print(f"  key → handler {label + ' the pass':16s} n={len(th):4d}  median "
                      f"{statistics.median(th):6.1f} ms  p95 {_pct(th, 95):6.1f} ms  "
                      f"max {max(th):6.1f} ms  ({sum(v <= 100 for v in th)}/{len(th)} within 100 ms)")

        first = StalenessPass(fresh, [repo], batch_size=args.batch).run()
        print(f"headless pass (writes), same fresh store: {first.elapsed:.3f} s   "
              f"{first.summary_line()}")
        again = StalenessPass(db, [repo], batch_size=args.batch).run()
        print(f"headless pass (writes), same store afterwards: {again.elapsed:.3f} s   "
              f"{again.summary_line()}")


if __name__ == "__main__":
    main()
