"""Benchmark the store calls behind the app's 1M-fact rows: header counts, tabs, a fact, a search.

    .venv/bin/python bench/big_store_bench.py [--facts 1000000] [--rounds 1] [--base REV]

Each child opens the store as the app does and times, wall and CPU (ms):

- ``store.counts`` (the header): the first call, a repeat with nothing changed (median of 5),
  and the first call after another connection committed one row (median of 3 commits);
- ``store.subjects`` (Subjects tab), first and repeated; ``store.diff`` (Changes tab) over the
  last 30 days of the store's own time, first and repeated; ``store.flagged`` (Staleness tab);
- ``store.why`` of 20 random facts (opening a fact), median and max;
- the opening empty-query recall (50 rows);
- a search queued behind a scan: a recall sent to the app's gateway while header counts are
  being recomputed (after a commit) — on the base code both share the one DB thread;
- peak RSS of the child;
- the app itself (``--app``, Pilot, headless): the first visit to Subjects and to Changes
  (key → pane settled, the app idle for a second after its first results, as a person who
  looks at them before switching), and an agent's write reaching the header: another
  connection commits one fact, and the time from its commit to the first frame whose status
  strip shows the new total (median and max of ``--writes``; the app's own poll interval
  included), then one more write whose writer first runs ``PRAGMA wal_checkpoint(RESTART)``:
  SQLite then starts the log afresh at that write (new salts), the case an automatic
  checkpoint makes every ~1,000 pages written, timed on its own ("after a log restart");
  then one landing 0.15 s after that one's commit (an agent writing twice in a row).
  Each round's writes are printed as they land (lag, gap since the previous write, restarted).

Counts, subjects, changes and flagged run on the Store the app runs them on (its read-only
scan twin, where the code has one); ``why`` and the opening recall on the app's own Store
(its scanning searches split across the cores, where the code does that).

Prints numbers only; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import add_arguments, code_dir, emit, interleaved, print_table  # noqa: E402
from seed import seed_store  # noqa: E402

CODE = code_dir()


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return 1000 * (time.perf_counter() - t), 1000 * (time.process_time() - c), out


SOON_AFTER = 0.15  # s: the last write of ``--app`` lands this soon after the one before


def _commit_one(db: str, n: int, *, restart: bool = False) -> bool:
    """Another connection commits one fact; with ``restart``, after a RESTART checkpoint
    (every frame copied into the file, readers off the log: this commit restarts it). True
    when the checkpoint was not refused (SQLite's busy flag)."""
    from memharness_tui.store import Store

    other = Store.open(db)
    done = True
    if restart:
        busy, _log, _copied = other.conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
        done = not busy
    other.remember("bench:writer", f"one more fact {n}")
    other.close()
    return done


async def _queued_search(db: str, query: str) -> float:
    """ms for a recall sent while header counts recompute (after a commit) on the gateway."""
    from memharness_tui.store import Store
    from memharness_tui.tui.services.gateway import StoreGateway

    gw = StoreGateway(lambda: Store.open(db))
    scan = getattr(gw, "call_scan", gw.call)  # the base code has one DB thread only
    try:
        await gw.call(lambda s: s.recall(query, limit=50))
        await scan(lambda s: s.counts())
        _commit_one(db, 9)
        counting = asyncio.ensure_future(scan(lambda s: s.counts()))
        await asyncio.sleep(0.02)  # the count is under way
        t = time.perf_counter()
        await gw.call(lambda s: s.recall(query, limit=50))
        ms = 1000 * (time.perf_counter() - t)
        await counting
        return ms
    finally:
        gw.close()


def _scanning_store(store: Any) -> Any:
    """The Store the app runs counts/subjects/changes/flagged on: its read-only scan twin
    (opened as ``tui/services/gateway.py`` opens it), or ``store`` itself on code without one."""
    try:
        from memharness_tui.tui.services.gateway import _scan_opener
    except ImportError:
        return store
    opener = _scan_opener(store)
    return store if opener is None else opener()


async def _app_rows(db: str, writes: int) -> dict[str, Any]:
    """The app's first visits to Subjects / Changes and an agent's write reaching the header."""
    import tui_bench  # the same Pilot helpers as the app bench (paint hooks, "settled")

    from memharness_tui.tui.widgets.header import StatusStrip
    from memharness_tui.tui.widgets.recall import RecallPane

    app = tui_bench._bench_app_class()(db, cursor_blink=False)
    out: dict[str, Any] = {}
    async with app.run_test(size=tui_bench.SIZE):
        await tui_bench._until(lambda: bool(app.screen.query(RecallPane)), what="recall pane")
        pane = app.pane = app.screen.query_one(RecallPane)
        await tui_bench._until(lambda: tui_bench._shown(pane) is not None, what="first results")
        await tui_bench._settled(app, time.perf_counter())
        await asyncio.sleep(1.0)  # a person reads the first results before switching
        await tui_bench._settled(app, time.perf_counter())
        underline = tui_bench._underline_rows(app)
        for key, name in (("2", "app_subjects_first"), ("3", "app_changes_first")):
            t0 = time.perf_counter()
            app.post_message(tui_bench._key(key))
            out[f"{name}_ms"] = await tui_bench._settled(app, t0, decoration=underline)
        app.post_message(tui_bench._key("1"))
        await tui_bench._settled(app, time.perf_counter())
        strip = app.screen.query_one(StatusStrip)
        lags, log = [], []
        last = time.perf_counter()
        for n, kind in enumerate(["write"] * writes + ["restart", "soon"]):
            if kind == "soon":  # the app not settled from the write before, 0.15 s after it
                await asyncio.sleep(max(0.0, last + SOON_AFTER - time.perf_counter()))
            else:
                await tui_bench._settled(app, time.perf_counter())
                await asyncio.sleep(0.3 + 0.37 * n % 0.5)  # not in step with the poll
            total = s_total(db)
            restart = kind == "restart"
            restarted = await asyncio.to_thread(_commit_one, db, 100 + n, restart=restart)
            t0 = time.perf_counter()
            want = f"{total + 1:,} total"
            await tui_bench._until_painted(
                app, lambda want=want: want in (strip._shown or ""), what="new header counts")
            lag = 1000 * (time.perf_counter() - t0)
            log.append([round(lag, 1), round(1000 * (t0 - last)), restart and restarted])
            last = t0
            if kind == "write":
                lags.append(lag)
            else:
                out[f"app_header_after_{kind}_ms"] = lag
        out["app_header_after_write_ms"] = statistics.median(lags)
        out["app_header_after_write_max"] = max(lags)
        out["app_writes"] = log  # printed by the parent
    app.gateway.close()
    return out


def s_total(db: str) -> int:
    from memharness_tui.store.driver import sqlite3

    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0])
    finally:
        conn.close()


def child(job: dict) -> None:
    from memharness_tui.store import Store

    db = job["db"]
    out: dict[str, Any] = {}
    main = Store.open(db)
    try:  # the app's DB thread splits its scanning searches across the cores
        from memharness_tui.tui.services.gateway import _split_searches
    except ImportError:
        pass
    else:
        _split_searches(main)
    s = _scanning_store(main)
    try:
        def put(name: str, fn: Callable[[], Any]) -> Any:
            wall, cpu, res = timed(fn)
            out[f"{name}_ms"], out[f"{name}_cpu"] = wall, cpu
            return res

        put("counts_first", s.counts)
        repeats = [timed(s.counts) for _ in range(5)]
        out["counts_repeat_ms"] = statistics.median(w for w, _, _ in repeats)
        after = []
        for n in range(3):
            _commit_one(db, n + 1)
            after.append(timed(s.counts))
        out["counts_after_commit_ms"] = statistics.median(w for w, _, _ in after)
        out["counts_after_commit_cpu"] = statistics.median(c for _, c, _ in after)
        put("subjects_first", s.subjects)
        put("subjects_repeat", s.subjects)
        newest = s.conn.execute("SELECT MAX(tx_at) FROM facts").fetchone()[0]
        since = (datetime.fromisoformat(newest.replace("Z", "+00:00"))
                 - timedelta(days=30)).strftime("%Y-%m-%d")
        put("diff_first", lambda: s.diff(since))
        put("diff_repeat", lambda: s.diff(since))
        put("flagged", lambda: s.flagged(limit=500))
        rng = random.Random(7)
        top = s.largest_id()
        whys = [timed(lambda: main.why(rng.randint(1, top)))[0] for _ in range(20)]
        out["why_p50_ms"], out["why_max_ms"] = statistics.median(whys), max(whys)
        put("recall_empty", lambda: main.recall("", limit=50))
    finally:
        if s is not main:
            s.close()
        main.close()
    out["queued_search_ms"] = asyncio.run(_queued_search(db, job["query"]))
    if job.get("app_writes"):
        os.environ.setdefault("MEMHARNESS_TUI_CONFIG_DIR", tempfile.mkdtemp(prefix="big-bench-cfg-"))
        out.update(asyncio.run(_app_rows(db, job["app_writes"])))
    out["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    emit(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--app", action="store_true",
                    help="also time the app: first visits to Subjects/Changes, a write → header")
    ap.add_argument("--writes", type=int, default=5, help="agent writes timed with --app")
    add_arguments(ap, rounds=1)
    args = ap.parse_args()
    if args.child_json:
        child(json.loads(args.child_json))
        return
    work = Path(tempfile.mkdtemp(prefix="big-store-bench-"))
    try:
        db = seed_store(work, args.facts)
        from memharness_tui.store import Store

        Store.open(str(db)).close()  # migrate (if ever needed) before anything is timed
        print(f"store: {args.facts:,} facts, {db.stat().st_size / 1e6:.0f} MB")
        probe = Store.open(str(db), readonly=True)
        word = probe.get(probe.largest_id() // 2).fact.split()[0]  # a word the store holds
        probe.close()
        def writes_landed(r: int, side: str, res: dict) -> None:
            if res.get("app_writes"):
                print(f"round {r + 1}, {side}: write → header ms, ms since the previous write, "
                      f"after a log restart: {res['app_writes']}", flush=True)

        sides, results = interleaved(
            Path(__file__), args,
            {"db": str(db), "query": word, "app_writes": args.writes if args.app else 0},
            on_round=writes_landed)
        rows = []
        for name, label in (("counts_first", "header counts, first"),
                            ("counts_after_commit", "header counts after a commit"),
                            ("subjects_first", "subjects (Subjects tab), first"),
                            ("subjects_repeat", "subjects, repeated"),
                            ("diff_first", "diff, 30 days (Changes tab), first"),
                            ("diff_repeat", "diff, repeated"),
                            ("flagged", "flagged (Staleness tab)"),
                            ("recall_empty", "opening recall (empty query)")):
            rows += [(label + ", wall", f"{name}_ms", "ms"), (label + ", CPU", f"{name}_cpu", "ms")]
        rows[2:2] = [("header counts, nothing changed (median of 5)", "counts_repeat_ms", "ms")]
        rows += [("open a fact: why, p50 of 20", "why_p50_ms", "ms"),
                 ("open a fact: why, max of 20", "why_max_ms", "ms"),
                 ("a search sent while counts recompute", "queued_search_ms", "ms"),
                 ("peak RSS", "maxrss_mb", "MB")]
        if args.app:
            rows += [("app: first visit to Subjects, settled", "app_subjects_first_ms", "ms"),
                     ("app: first visit to Changes, settled", "app_changes_first_ms", "ms"),
                     ("app: an agent's write → header, median", "app_header_after_write_ms", "ms"),
                     ("app: an agent's write → header, max", "app_header_after_write_max", "ms"),
                     ("app: a write after a log restart → header",
                      "app_header_after_restart_ms", "ms"),
                     ("app: a write 0.15 s after another → header",
                      "app_header_after_soon_ms", "ms")]
        print_table(f"store calls on {args.facts:,} facts", sides, results, rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
