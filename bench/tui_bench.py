"""Benchmark the app as a user feels it: typing queries, cold start, opening a fact, tabs, RSS.

    .venv/bin/python bench/tui_bench.py [--facts 100000] [--queries 40] [--rounds 2]

Drives the real app headless (Pilot) with its real search scheduling (the app's own default
debounce unless ``--debounce`` is given) and types realistic queries key by key: 1–3 words
taken in order from a stored fact, each key after a human-like pause (about 110 ms, jittered),
so the app sees every prefix as it is typed. Measured from the moment a key is posted (as the
terminal driver does) to the first frame painted that shows results for the text including
that key:

- **settled**: the last key of each query (the user stops typing and waits) — the issue's row;
- **every key**: every key, including ones whose own results are superseded by the next key.

Also: cold start (process start → first results painted; next to it the framework's floor, a
bare Textual app's first frame from ``textual_floor.py``), opening the first result (Enter →
detail screen settled; then the next five results, one by one), switching tabs (2, 3, 4, 1 →
pane settled; frames that only move the tab bar's underline, which slides for 0.3 s after
every switch, are decoration and not counted — the "incl. the underline's slide" row counts
them; then three more cycles through the tabs, each pane already built and loaded: the
"again" rows), peak RSS, and the store calls alone (recall of the final queries, the header counts). Each side (``--base`` commit,
this checkout; see ``bench/compare.py``) runs in its own child processes, interleaved, and the
table prints medians and ratios. ``--facts 100000`` uses the reference seed; other sizes a
generated store (``bench/seed.py``). Prints numbers only; nothing here asserts a time.
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
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import add_arguments, code_dir, emit, interleaved, print_table  # noqa: E402
from seed import seed_store  # noqa: E402
from textual_floor import floor_start  # noqa: E402

CODE = code_dir()
SIZE = (160, 48)
TAB_REPEATS = 3  # cycles through the tabs after the first visits (each pane already loaded)
OPEN_AGAIN = 5  # facts opened after the first one (the next results, one by one)


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def pick_queries(db: Path, n: int, rng: random.Random) -> list[str]:
    """1–3 consecutive words of a random current fact, lower case (so most queries match)."""
    from memharness_tui.store.driver import sqlite3

    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        top = conn.execute("SELECT MAX(id) FROM facts").fetchone()[0]
        out: list[str] = []
        while len(out) < n:
            row = conn.execute(
                "SELECT fact FROM facts WHERE id = ? AND valid_to IS NULL AND retracted_at IS NULL",
                (rng.randint(1, top),),
            ).fetchone()
            if row is None:
                continue
            words = [w.lower() for w in row[0].split() if w.isalpha()]
            k = min(len(words), rng.choice((1, 1, 2, 2, 3)))
            if k:
                start = rng.randrange(len(words) - k + 1)
                out.append(" ".join(words[start : start + k]))
        return out
    finally:
        conn.close()


def typing_gaps(queries: list[str], rng: random.Random) -> list[list[float]]:
    """Seconds before each key: a fast typist, ~110 ms a key, jittered."""
    return [[min(0.3, max(0.04, rng.gauss(0.11, 0.035))) for _ in q] for q in queries]


def _note_shown_queries() -> None:
    """Make the recall pane remember the query of the results it last put on screen.

    Wraps ``RecallPane._show(params, result, ...)`` (present before and after the TUI
    refactor) rather than reading a pane attribute that may move.
    """
    from memharness_tui.tui.widgets.recall import RecallPane

    if getattr(RecallPane, "_bench_wrapped", False):
        return
    original = RecallPane._show

    def _show(self, params, *args, **kwargs):  # type: ignore[no-untyped-def]
        original(self, params, *args, **kwargs)
        self.bench_shown = params.query

    RecallPane._show = _show  # type: ignore[method-assign]
    RecallPane._bench_wrapped = True  # type: ignore[attr-defined]


def _shown(pane: object) -> str | None:
    return getattr(pane, "bench_shown", None)


def _bench_app_class():
    """The app, noting every frame it renders and which query the results showed then."""
    from textual._compositor import CompositorUpdate

    from memharness_tui.tui.app import MemharnessApp

    _note_shown_queries()

    class BenchApp(MemharnessApp):
        find_pane: type | None = None
        """Set: look the results pane up at each paint until it exists (cold starts)."""
        paints: list[tuple[float, str | None]] = []
        painted_rows: list[frozenset[int] | None] = []
        """Per paint: the screen rows it changed (None: the whole screen)."""
        pane = None
        painted: asyncio.Event | None = None  # set on every frame (waiters wake on paints)

        def _display(self, screen, renderable) -> None:  # type: ignore[override]
            super()._display(screen, renderable)
            if isinstance(renderable, CompositorUpdate):
                renderable.render_segments(self.console)  # the terminal bytes: part of the cost
                if self.pane is None and self.find_pane is not None:
                    found = self.screen.query(self.find_pane)
                    self.pane = found.first() if found else None
                self.paints.append((time.perf_counter(), _shown(self.pane)))
                spans = getattr(renderable, "spans", None)
                self.painted_rows.append(None if spans is None
                                         else frozenset(y for y, _, _ in spans))
                if self.painted is not None:
                    self.painted.set()

    return BenchApp


def _key(ch: str):
    from textual import events

    return events.Key("space", " ") if ch == " " else events.Key(ch, ch)


async def _until(predicate, timeout: float = 30.0, what: str = "state") -> None:
    end = time.perf_counter() + timeout
    while not predicate():
        if time.perf_counter() > end:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.0005)


async def _until_painted(app, predicate, timeout: float = 30.0, what: str = "state") -> None:
    """Wait for a frame after which ``predicate`` holds, woken by paints — not by polling,
    which would take the app's event loop away from it while a key is being measured."""
    app.painted = app.painted or asyncio.Event()
    end = time.perf_counter() + timeout
    while not predicate():
        app.painted.clear()
        try:
            await asyncio.wait_for(app.painted.wait(), max(0.0, end - time.perf_counter()))
        except TimeoutError:
            raise TimeoutError(f"timed out waiting for {what}") from None


async def _settled(app, t0: float, quiet: float = 0.12,
                   decoration: frozenset[int] = frozenset()) -> float:
    """ms from t0 to the last frame painted once no worker runs and nothing paints for `quiet` s.

    A frame that changed only rows in ``decoration`` (the tab bar's sliding underline) does
    not count as the last frame: the pane was complete before it.
    """
    while True:
        await _until(lambda: not any(w.is_running for w in app.workers), what="workers")
        n = len(app.paints)
        await asyncio.sleep(quiet)
        if len(app.paints) == n and not any(w.is_running for w in app.workers):
            rows = app.painted_rows
            after = [t for i, (t, _) in enumerate(app.paints) if t >= t0
                     and not (decoration and rows[i] is not None and rows[i] <= decoration)]
            return 1000 * ((after[-1] if after else time.perf_counter()) - t0)


def _underline_rows(app) -> frozenset[int]:
    """The screen rows of the tab bar's underline, which slides for 0.3 s after a switch."""
    from textual.widgets._tabs import Underline

    region = app.screen.query_one(Underline).region
    return frozenset(range(region.y, region.bottom))


def _key_latencies(keys: list[tuple[float, str]], paints: list[tuple[float, str | None]],
                   final: str) -> list[float]:
    """Per key: ms until a frame shows results for its text or a longer prefix of ``final``."""
    out = []
    for t, text in keys:
        want = text.strip()
        for pt, shown in paints:
            if pt > t and shown is not None and final.startswith(shown) and len(shown) >= len(want):
                out.append(1000 * (pt - t))
                break
    return out


async def session(db: Path, queries: list[str], gaps: list[list[float]],
                  debounce: float | None) -> dict[str, object]:
    from textual.widgets import Input

    from memharness_tui.tui.widgets.recall import RecallPane

    kw = {} if debounce is None else {"search_debounce": debounce}
    app = _bench_app_class()(str(db), cursor_blink=False, **kw)
    settled: list[float] = []
    every: list[float] = []
    result: dict[str, object] = {}
    async with app.run_test(size=SIZE) as pilot:
        await _until(lambda: bool(app.screen.query(RecallPane)), what="the recall pane")
        pane = app.pane = app.screen.query_one(RecallPane)
        await _until(lambda: _shown(pane) is not None, what="first results")
        box = app.screen.query_one("#search", Input)
        while app.focused is not box:
            box.focus()
            await pilot.pause(0.01)
        for q, q_gaps in zip(queries, gaps, strict=True):
            box.value = ""
            await _until(lambda: _shown(pane) == "", what="cleared results")
            await _settled(app, time.perf_counter())
            app.paints.clear()
            app.painted_rows.clear()
            keys: list[tuple[float, str]] = []
            for i, (ch, gap) in enumerate(zip(q, q_gaps, strict=True)):
                await asyncio.sleep(gap)
                keys.append((time.perf_counter(), q[: i + 1]))
                app.post_message(_key(ch))
            await _until_painted(app, lambda q=q: any(s == q for _, s in app.paints),
                                 what=f"results for {q!r}")
            lat = _key_latencies(keys, app.paints, q)
            settled.append(lat[-1])
            every.extend(lat)
        # open the first result of the last query, then come back
        table = app.screen.query_one("#results")
        table.focus()
        await _settled(app, time.perf_counter())
        result["open_fact_ms"] = await _open_and_back(app, pilot)
        again = []
        for _ in range(OPEN_AGAIN):  # down the list, opening each result in turn
            await pilot.press("down")
            await _settled(app, time.perf_counter())
            again.append(await _open_and_back(app, pilot))
        result["open_again_ms"] = again
        tabs, slides = [], []
        underline = _underline_rows(app)
        for key in "2341":
            t0 = time.perf_counter()
            app.post_message(_key(key))
            tabs.append(await _settled(app, t0, decoration=underline))
            slides.append(await _settled(app, t0))  # the same switch, the slide's frames too
        result["tab_ms"] = tabs
        result["tab_slide_ms"] = slides
        repeats: dict[str, list[float]] = {key: [] for key in "2341"}
        for _ in range(TAB_REPEATS):  # every pane built and loaded: what a switch costs then
            for key in "2341":
                t0 = time.perf_counter()
                app.post_message(_key(key))
                repeats[key].append(await _settled(app, t0, decoration=underline))
        result["tab_repeat_ms"] = repeats
    app.gateway.close()
    result.update(settled=settled, every=every,
                  maxrss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return result


async def _open_and_back(app, pilot) -> float:  # noqa: ANN001 - the bench app, its Pilot
    """ms from Enter on the highlighted result to the detail screen settled; then back."""
    screen = app.screen
    t0 = time.perf_counter()
    app.post_message(_key_enter())
    await _until(lambda: app.screen is not screen, what="the detail screen")
    ms = await _settled(app, t0)
    await pilot.press("escape")
    await _settled(app, time.perf_counter())
    return ms


def _key_enter():
    from textual import events

    return events.Key("enter", "\r")


def _open_early(db: Path) -> None:
    """What the command line does before it imports the app: import the CLI module (which
    imports the store), then, where the code has it (``tui/app_early.py``), start the store's
    open and the opening search, which run while Textual is imported. Code without it starts
    as its command line did."""
    import memharness_tui.cli  # noqa: F401 - the command line's own imports, in its order

    try:
        from memharness_tui.tui.app_early import open_early
    except ImportError:
        return
    open_early(str(db))


async def _start_child(db: Path) -> None:
    """One cold start: print when the first frame showing results was painted, then when the
    app went idle (wall-clock times, so the parent can subtract its own spawn time)."""
    from memharness_tui.tui.widgets.recall import RecallPane

    def wall(t: float) -> float:  # a perf_counter reading as wall-clock time
        return time.time() - (time.perf_counter() - t)

    app = _bench_app_class()(str(db), cursor_blink=False)
    app.find_pane = RecallPane
    async with app.run_test(size=SIZE) as pilot:
        await _until(lambda: any(s is not None for _, s in app.paints), what="first results")
        first = next(t for t, s in app.paints if s is not None)
        print(f"PAINTED {wall(first)!r}", flush=True)
        await pilot.pause()
        print(f"IDLE {time.time()!r}", flush=True)
    app.gateway.close()


def byte_compile(code: Path) -> None:
    """Write the bytecode caches of the code under test (and this folder's modules), as any
    install or first run does. Without them every start compiles the package from source:
    this environment sets ``PYTHONDONTWRITEBYTECODE=1``, so no run ever writes them, and the
    cold start measured ~0.1–0.2 s of compiling that no user sees. Textual's are installed."""
    for folder in _own_folders(code):
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder)], check=True,
                       stdout=subprocess.DEVNULL)


def drop_bytecode(code: Path) -> None:
    """Delete those caches (``--no-bytecode``: the cold start as measured before)."""
    for folder in _own_folders(code):
        for cache in folder.rglob("__pycache__"):
            shutil.rmtree(cache, ignore_errors=True)


def _own_folders(code: Path) -> tuple[Path, Path]:
    return code / "memharness_tui", Path(__file__).resolve().parent


def cold_starts(db: Path, runs: int, *, compiled: bool = True
                ) -> tuple[list[float], list[float], list[float]]:
    """ms from spawning the process to (first results painted, the app idle after that), and
    the framework's floor (``textual_floor.py``: a bare Textual app's first frame), started
    alternately with the app's so both see the same load. ``compiled``: bytecode caches
    written first (see ``byte_compile``)."""
    (byte_compile if compiled else drop_bytecode)(CODE)
    painted, idle, floor = [], [], []
    for _ in range(runs):
        floor.append(floor_start())
        t0 = time.time()
        proc = subprocess.Popen([sys.executable, __file__, "--child-start", str(db)],
                                stdout=subprocess.PIPE, text=True, cwd=CODE)
        assert proc.stdout is not None
        for line in proc.stdout:
            word, _, when = line.partition(" ")
            if word == "PAINTED":
                painted.append(1000 * (float(when) - t0))
            elif word == "IDLE":
                idle.append(1000 * (float(when) - t0))
                break
        proc.wait()
    return painted, idle, floor


def store_only(db: Path, queries: list[str]) -> dict[str, float]:
    from memharness_tui.store import Store

    s = Store.open(str(db), readonly=True)
    try:
        rec = []
        for q in queries:
            t = time.perf_counter()
            s.recall(q, limit=50)
            rec.append(1000 * (time.perf_counter() - t))
        counts = []
        for _ in range(5):
            t = time.perf_counter()
            s.counts()
            counts.append(1000 * (time.perf_counter() - t))
    finally:
        s.close()
    return {"store_recall_p50": pct(rec, 50), "store_recall_p95": pct(rec, 95),
            "counts_ms": statistics.median(counts)}


def child(job: dict) -> None:
    db = Path(job["db"])
    os.environ.setdefault("MEMHARNESS_TUI_CONFIG_DIR", tempfile.mkdtemp(prefix="tui-bench-cfg-"))
    starts, idle, floor = cold_starts(db, job["starts"], compiled=not job["no_bytecode"])
    r = asyncio.run(session(db, job["queries"], job["gaps"], job["debounce"]))
    settled, every, tabs = r["settled"], r["every"], r["tab_ms"]
    out = {
        "settled_p50": pct(settled, 50), "settled_p95": pct(settled, 95),
        "settled_max": max(settled),
        "every_p50": pct(every, 50), "every_p95": pct(every, 95), "every_max": max(every),
        "start_ms": statistics.median(starts), "start_idle_ms": statistics.median(idle),
        "floor_ms": statistics.median(floor),
        "above_floor_ms": statistics.median(starts) - statistics.median(floor),
        "open_fact_ms": r["open_fact_ms"],
        "open_again_ms": statistics.median(r["open_again_ms"]),
        "open_p95": pct([r["open_fact_ms"], *r["open_again_ms"]], 95),
        **{f"tab_{k}": v for k, v in zip("2341", tabs, strict=True)},
        "tab_slide_median": statistics.median(r["tab_slide_ms"]), "maxrss_mb": r["maxrss_mb"],
        **{f"tab_again_{k}": statistics.median(v) for k, v in r["tab_repeat_ms"].items()},
        "tab_again_p95": pct([ms for v in r["tab_repeat_ms"].values() for ms in v], 95),
        **store_only(db, job["queries"]),
    }
    emit(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--starts", type=int, default=3, help="cold starts per child")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="cold starts without bytecode caches (compile from source each start)")
    ap.add_argument("--debounce", type=float, help="override the app's search debounce (s)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--child-start", help=argparse.SUPPRESS)
    add_arguments(ap, rounds=2)
    args = ap.parse_args()
    if args.child_start:
        os.environ.setdefault("MEMHARNESS_TUI_CONFIG_DIR", tempfile.mkdtemp(prefix="tui-bench-cfg-"))
        _open_early(Path(args.child_start))  # before the app (and Textual) is imported
        asyncio.run(_start_child(Path(args.child_start)))
        return
    if args.child_json:
        child(json.loads(args.child_json))
        return
    work = Path(tempfile.mkdtemp(prefix="tui-bench-"))
    try:
        db = seed_store(work, args.facts)
        from memharness_tui.store import Store

        Store.open(str(db)).close()  # migrate (if ever needed) before anything is timed
        rng = random.Random(args.seed)
        queries = pick_queries(db, args.queries, rng)
        job = {"db": str(db), "queries": queries, "gaps": typing_gaps(queries, rng),
               "debounce": args.debounce, "starts": args.starts,
               "no_bytecode": args.no_bytecode}
        print(f"store: {args.facts:,} facts, {db.stat().st_size / 1e6:.0f} MB; "
              f"{len(queries)} queries, {sum(map(len, queries))} keys, e.g. {queries[:4]}")
        sides, results = interleaved(Path(__file__), args, job)
        print_table(f"the app on {args.facts:,} facts", sides, results, [
            ("keystroke → results painted, settled p50", "settled_p50", "ms"),
            ("keystroke → results painted, settled p95", "settled_p95", "ms"),
            ("keystroke → results painted, settled max", "settled_max", "ms"),
            ("keystroke → results painted, every key p50", "every_p50", "ms"),
            ("keystroke → results painted, every key p95", "every_p95", "ms"),
            ("keystroke → results painted, every key max", "every_max", "ms"),
            ("cold start → first results painted", "start_ms", "ms"),
            ("cold start → app idle after that", "start_idle_ms", "ms"),
            ("floor: bare Textual app (Input + 20-row table) → first frame", "floor_ms", "ms"),
            ("cold start above the floor (same child, same load)", "above_floor_ms", "ms"),
            ("open a fact (Enter → detail settled), the first", "open_fact_ms", "ms"),
            (f"open the next {OPEN_AGAIN} results one by one, median", "open_again_ms", "ms"),
            ("open a fact, p95 of all opened", "open_p95", "ms"),
            ("switch to tab 2 (Subjects), settled", "tab_2", "ms"),
            ("switch to tab 3 (Changes), settled", "tab_3", "ms"),
            ("switch to tab 4 (Staleness), settled", "tab_4", "ms"),
            ("back to tab 1 (Recall), settled", "tab_1", "ms"),
            ("tab switch incl. the underline's slide, median", "tab_slide_median", "ms"),
            ("switch to Subjects again (pane loaded), median", "tab_again_2", "ms"),
            ("switch to Changes again, median", "tab_again_3", "ms"),
            ("switch to Staleness again, median", "tab_again_4", "ms"),
            ("switch to Recall again, median", "tab_again_1", "ms"),
            ("any switch again, p95", "tab_again_p95", "ms"),
            ("header counts (store.counts)", "counts_ms", "ms"),
            ("store.recall alone, p50", "store_recall_p50", "ms"),
            ("store.recall alone, p95", "store_recall_p95", "ms"),
            ("peak RSS of the typing session", "maxrss_mb", "MB"),
        ])
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
