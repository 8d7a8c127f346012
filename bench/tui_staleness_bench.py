"""Benchmark: a full staleness pass in the app on a 10,000-pin store, as a person waits for it.

Builds the repo and store with ``bench/staleness_bench.py``'s builders (1,000 commits, 10,000
facts), then runs the app headless (Pilot) on that store through its real DB thread and starts
a pass from the Staleness tab, twice on fresh copies: once only watching the screen (a person
waiting for the pass), once also pressing a key every few milliseconds and timing how long each
press takes to reach its handler. Also times the same pass headless, three times on fresh
copies around those (the median is every ratio's denominator). Prints numbers; asserts
nothing.

What a person waits for (issue #26): from the start key until the counts and the flagged list
are settled — the pass's summary shown, the header's counts, the flagged list's rows and what
git says about each (its reason and repo) no longer changing, no load of the list pending.
That moment is the last change seen while polling every few ms (the poll goes on until 1.5 s
pass without a change and no load is pending or running). Its ratio to the headless pass on
the same store, in the same child process, is the issue's row, from the run without keys (to
round 8 the one run pressed keys all along: a key every 5 ms, 200 a second, is no one waiting,
and on two cores the app's handling of them is taken from the pass; that run's ratio is still
printed). The CPU each process used during the pass (the app's includes this bench's polls)
says what the app's side takes from the pass on a busy machine, where wall times swing. Each side
(``--base`` commit, this checkout; ``bench/compare.py``) runs in its own children,
interleaved, and the table prints medians and ratios between sides.

    .venv/bin/python bench/tui_staleness_bench.py [--facts 10000] [--batch 200] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from compare import add_arguments, code_dir, emit, interleaved, print_table  # noqa: E402

code_dir()


def _builders():
    spec = importlib.util.spec_from_file_location("staleness_bench", ROOT / "bench" / "staleness_bench.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.build_repo, mod.build_store


def _pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


async def run_in_app(db: Path, repo: Path, batch: int, probe_every: float,
                     keys: bool = True) -> dict[str, object]:
    """One pass in the app, from the start key until the screen settles. ``keys``: press a key
    every ``probe_every`` s meanwhile and time each one to its handler (else only poll what is
    on screen, as often: a person waiting for the pass)."""
    from memharness_tui.tui.app import build_app
    from memharness_tui.tui.widgets.dashboard import StalenessDashboard

    try:  # where the TUI refactor (issue #9's sibling work) keeps it
        from memharness_tui.tui.state import StalenessOptions  # type: ignore[import-not-found]
    except ImportError:
        from memharness_tui.tui.widgets.dashboard import StalenessOptions

    app = build_app(str(db), cursor_blink=False, config_dir=db.parent / "config")
    app.staleness_options = StalenessOptions(  # type: ignore[attr-defined]
        batch_size=batch, repos=[str(repo)], cwd=str(db.parent))
    reached: list[float] = []
    async with app.run_test(size=(160, 48)) as pilot:
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
        shown = [0]  # progress events the dashboard showed (each one a redraw of the counters)
        apply = dash.apply

        def counted(st: object, ev: object) -> None:
            shown[0] += 1
            apply(st, ev)  # type: ignore[arg-type]

        dash.apply = counted  # type: ignore[method-assign]
        from textual import events

        sent: list[float] = []

        def send_key(name: str = "k") -> None:  # how a terminal's key reaches the app
            key = events.Key(name, name)
            key.set_sender(app)
            app._driver.send_message(key)  # type: ignore[union-attr]

        t0, cpu0, child0 = time.perf_counter(), time.process_time(), _child_cpu(dash)
        send_key("s")  # not pilot.press: it waits for a quiet app, i.e. the whole pass
        while dash.state is None:
            await asyncio.sleep(0.001)
        # press k every few ms without waiting for the app to be idle (Pilot.press would wait
        # for a quiet moment, which a streaming pass rarely has); pair sends with handler runs
        while dash.state is None or not dash.state.done:
            if keys:
                sent.append(time.perf_counter())
                send_key()
            await asyncio.sleep(probe_every)
        t_done = time.perf_counter()
        t_pass = t_done - t0
        cpu_app, child1 = time.process_time() - cpu0, _child_cpu(dash)
        cpu_child = child1 - child0 if child0 is not None and child1 is not None else None
        n_during = len(sent)
        summary = dash.state.spass.report.summary_line()  # the pass's own report, as headless
        panel = dash.panel
        strip = app.screen.query_one("#status-strip")

        judged_rows: dict[int, int] = {}  # per rows dict (a load replaces it): rows judged

        def picture() -> tuple[object, ...]:
            """What the person sees settle: the counters, the header's counts, the list."""
            rows = panel.rows
            if id(rows) not in judged_rows:  # counted once per load (this poll runs on the
                judged_rows.clear()          # app's loop: it must not slow what it times)
                judged_rows[id(rows)] = sum(1 for i in rows.values() if i.judged is not None)
            return (dash.query_one("#dash-counters").render().plain, str(strip.render()),
                    panel.flagged_total, len(panel.flagged), judged_rows[id(rows)])

        def loading() -> bool:
            return panel._needs_load or any(
                w.group == "flagged" and not w.is_finished for w in app.workers)

        seen, t_settled = picture(), t_done
        while True:
            if keys:
                sent.append(time.perf_counter())
                send_key()
            await asyncio.sleep(probe_every)
            now = time.perf_counter()
            if (shown_now := picture()) != seen:
                seen, t_settled = shown_now, now
            elif not loading() and now - t_settled > 1.5 or now - t_done > 30:
                break
        await pilot.pause(0.2)
        flagged = len(panel.flagged)
        to_handler = [(r - s) * 1000 for s, r in zip(sent, reached, strict=False)]
        during, after = to_handler[:n_during], to_handler[n_during:]
    return {"pass_s": t_pass, "cpu_app": cpu_app, "cpu_child": cpu_child,
            "events": shown[0], "summary": summary, "during": during,
            "after": after, "settled_s": t_settled - t0, "reload_s": t_settled - t_done,
            "flagged": flagged}


def _child_cpu(dash: object) -> float | None:
    """CPU seconds the pass process has used so far (Linux ``/proc``; None elsewhere, or
    where the app keeps it under another name)."""
    try:
        pid = dash.controller.worker._proc.pid  # type: ignore[attr-defined]
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except Exception:  # noqa: BLE001 - a bench's extra row: no number rather than no run
        return None


HEADLESS_RUNS = 3  # the headless pass, per child: the median is each ratio's denominator


def child(job: dict) -> None:
    """Headless pass and in-app pass, each on its own fresh copy of the same store."""
    from memharness_tui.staleness.runner import StalenessPass

    db, repo, root, batch = Path(job["db"]), Path(job["repo"]), Path(job["tmp"]), job["batch"]
    work = root / f"side-{os.getpid()}"
    work.mkdir()
    try:
        app_db, keys_db = work / "app.db", work / "keys.db"
        for copy in (app_db, keys_db):
            shutil.copyfile(db, copy)
        # the headless pass three times, each on its own copy, around the runs in the app: one
        # run of it swung by a quarter from child to child on this machine, and it is the
        # denominator of every ratio here
        times = []
        headless = None
        for i in range(HEADLESS_RUNS):
            if i == 1:
                r = asyncio.run(run_in_app(app_db, repo, batch, job["probe_every"], keys=False))
                k = asyncio.run(run_in_app(keys_db, repo, batch, job["probe_every"], keys=True))
            headless_db = work / f"headless-{i}.db"
            shutil.copyfile(db, headless_db)
            report = StalenessPass(headless_db, [repo], batch_size=batch).run()
            headless = headless or report
            times.append(report.elapsed)
        assert headless is not None
        during = k["during"] or [float("nan")]
        assert isinstance(during, list)
        took = statistics.median(times)
        emit({"headless_s": took, "app_s": r["pass_s"],
              "ratio": r["pass_s"] / took, "reload_s": r["reload_s"],
              "settled_s": r["settled_s"], "waited": r["settled_s"] / took,
              "flagged": r["flagged"], "cpu_app": r["cpu_app"],
              "cpu_child": r["cpu_child"] if r["cpu_child"] is not None else float("nan"),
              "events": r["events"], "keys_settled_s": k["settled_s"],
              "keys_waited": k["settled_s"] / took, "keys_cpu_app": k["cpu_app"],
              "key_p50": statistics.median(during),
              "key_p95": _pct(during, 95), "key_max": max(during),
              "summary": str(r["summary"]), "keys_summary": str(k["summary"]),
              "headless_summary": headless.summary_line()})
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--facts", type=int, default=10_000)
    ap.add_argument("--batch", type=int, default=200)
    ap.add_argument("--probe-every", type=float, default=0.005, help="seconds between key presses")
    ap.add_argument("--seed", type=int, default=7)
    add_arguments(ap, rounds=2)
    args = ap.parse_args()
    if args.child_json:
        child(json.loads(args.child_json))
        return
    build_repo, build_store = _builders()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="tui-staleness-bench-") as tmp:
        root = Path(tmp)
        t = time.perf_counter()
        repo, main_shas, side, files = build_repo(root, rng)
        db = root / "memory.db"
        build_store(db, args.facts, main_shas, side, files, rng)
        print(f"built: {len(main_shas)} commits, {args.facts} facts ({time.perf_counter() - t:.1f} s)")
        job = {"db": str(db), "repo": str(repo), "tmp": tmp, "batch": args.batch,
               "probe_every": args.probe_every}
        sides, results = interleaved(
            Path(__file__), args, job,
            on_round=lambda r, name, res: print(
                f"  round {r + 1} {name}: start → settled {res['settled_s']:.3f} s (pass "
                f"{res['app_s']:.3f} s), headless {res['headless_s']:.3f} s "
                f"({res['waited']:.2f}x; with keys {res.get('keys_waited', float('nan')):.2f}x)"
                f", {res['flagged']} flagged  {res['summary']}"),
        )
        print_table(f"staleness pass in the app vs headless, {args.facts} pins", sides, results, [
            ("headless pass (writes), median of 3 in the child", "headless_s", "s"),
            ("in-app pass (writes)", "app_s", "s"),
            ("in-app / headless, same child", "ratio", "x"),
            ("start key → counts and flagged list settled", "settled_s", "s"),
            ("  of which after the pass ended", "reload_s", "s"),
            ("settled / headless pass, same child (the #26 row)", "waited", "x"),
            ("CPU of the app's process, start key → pass ended", "cpu_app", "s"),
            ("CPU of the pass process, start key → pass ended", "cpu_child", "s"),
            ("progress events shown", "events", "n"),
            ("with a key every 5 ms: start key → settled", "keys_settled_s", "s"),
            ("  settled / headless pass", "keys_waited", "x"),
            ("  CPU of the app's process, start key → pass ended", "keys_cpu_app", "s"),
            ("key → handler during the pass, p50", "key_p50", "ms"),
            ("key → handler during the pass, p95", "key_p95", "ms"),
            ("key → handler during the pass, max", "key_max", "ms"),
        ])


if __name__ == "__main__":
    main()
