"""The app in a real terminal: cold start next to a bare Textual app, and a half-typed word.

    .venv/bin/python bench/terminal_bench.py [--facts 100000] [--words 6] [--starts 3]
                                             [--rounds 2] [--base main]

Each process runs in a pseudo-terminal of ``--size`` (default 120×36) that this script reads
and feeds to a VT parser (``pyte``, the ``bench`` extra: ``.venv/bin/pip install -e ".[bench]"``),
so "visible" means what a person would see on the screen, not a frame the app produced:

- **cold start**: spawning ``python -m memharness_tui --db FILE`` → the first screen showing
  the Recall tab's results (its status line says how many); alternately with a bare Textual
  app (an ``Input`` over a 20-row ``DataTable``, ``textual_floor.py``'s) spawned the same
  way → its rows visible. The ratio app/bare is per round (same load).
- **a half-typed word**: after the start settles, ``/`` and then, per word, the middle of a
  stored word (4 letters from its second: not a full-text token, so the substring fallback)
  typed key by key; each key written to the terminal → the screen shows results for the
  text including it ("first": any list for it, e.g. a first screen labelled "not yet
  exact"; "exact": the status line without that label). Each key waits for its exact
  answer before the next one, so no answer is superseded. ``ctrl+u`` clears the box between
  words (its empty-query answer is awaited, not timed).

Each side (``--base`` commit, this checkout; see ``bench/compare.py``) runs in its own child,
interleaved, and the table prints medians and ratios new/base. Stores come from
``bench/seed.py`` (cached). Prints numbers only; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import random
import re
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import add_arguments, code_dir, emit, interleaved, print_table  # noqa: E402
from textual_floor import ROWS  # noqa: E402 - the bare app's rows (the last one shows it is up)

CODE = code_dir()
LABEL = "not yet exact"
FOR = re.compile(r"\bfor (.*?)(?:  ·  |\s*$)")
COUNT = re.compile(r"^\s*(\d+ results?|No matching memories)")


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))]


# ----- a process in a pseudo-terminal -------------------------------------------------------
class Terminal:
    """A child process on a pty of ``cols``×``rows``; its output is parsed into a screen."""

    def __init__(self, argv: list[str], cols: int, rows: int, *, cwd: Path,
                 env: dict[str, str]) -> None:
        import pyte

        self.screen = pyte.Screen(cols, rows)
        self._stream = pyte.ByteStream(self.screen)
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd,
                                     env=env, start_new_session=True, close_fds=True)
        os.close(slave)
        self.master = master

    def lines(self) -> list[str]:
        return self.screen.display

    def write(self, data: bytes) -> float:
        """Send keys; the time they were written."""
        t = time.perf_counter()
        os.write(self.master, data)
        return t

    def pump(self, timeout: float) -> bool:
        """Read what the child wrote within ``timeout`` s into the screen; False on EOF."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.master, 1 << 16)
        except OSError:  # EIO: the child closed the terminal
            return False
        if not data:
            return False
        self._stream.feed(data)
        return True

    def until(self, seen: Callable[[list[str]], bool], timeout: float, what: str) -> float:
        """Read until ``seen(screen lines)``; the time of the read that made it so."""
        deadline = time.perf_counter() + timeout
        while True:
            if seen(self.lines()):
                return time.perf_counter()
            left = deadline - time.perf_counter()
            if left <= 0 or not self.pump(min(left, 0.05)):
                tail = "\n".join(line.rstrip() for line in self.lines() if line.strip())
                raise SystemExit(f"never saw {what} (the screen:\n{tail})")

    def quiet(self, for_s: float, timeout: float) -> None:
        """Read until nothing is written for ``for_s`` s (or ``timeout`` s have passed)."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([self.master], [], [], for_s)
            if not ready:
                return
            self.pump(0)

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)  # the session we started for it
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        os.close(self.master)


def status_line(lines: list[str]) -> str | None:
    """The Recall tab's status line (``50 results  ·  …``), or None before it shows one."""
    for line in lines:
        if COUNT.match(line) and "·" in line:
            return line.strip()
    return None


def shows(query: str, *, exact: bool) -> Callable[[list[str]], bool]:
    """The screen shows results for ``query`` (exact: and no "not yet exact" label)."""
    def seen(lines: list[str]) -> bool:
        line = status_line(lines)
        if line is None or (exact and LABEL in line):
            return False
        found = FOR.search(line)
        return (found.group(1) if found else "") == query

    return seen


# ----- the two programs -----------------------------------------------------------------
def _env(config: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL")}
    env.update(TERM="xterm-256color", COLORTERM="truecolor", PYTHONPATH=str(CODE),
               MEMHARNESS_TUI_CONFIG_DIR=config)
    return env


def app_terminal(db: Path, size: tuple[int, int], config: str) -> Terminal:
    return Terminal([sys.executable, "-m", "memharness_tui", "--db", str(db)], *size,
                    cwd=CODE, env=_env(config))


def bare_terminal(size: tuple[int, int], config: str) -> Terminal:
    return Terminal([sys.executable, __file__, "--bare-app"], *size, cwd=CODE,
                    env=_env(config))


def bare_app() -> None:
    """The framework's floor, run for real: ``textual_floor.py``'s app (Input + 20 rows)."""
    from textual_floor import floor_app

    floor_app()().run()


def bare_visible(lines: list[str]) -> bool:
    return any(f"static fact text number {ROWS - 1}" in line for line in lines)


# ----- measurements ----------------------------------------------------------------------
def cold_starts(db: Path, starts: int, size: tuple[int, int], config: str
                ) -> tuple[list[float], list[float]]:
    """ms from spawning to the first results visible: the app's and the bare app's, started
    alternately (bare first in even runs)."""
    app_ms: list[float] = []
    bare_ms: list[float] = []
    for i in range(starts):
        order = ("bare", "app") if i % 2 == 0 else ("app", "bare")
        for which in order:
            if which == "app":
                term = app_terminal(db, size, config)
                seen: Callable[[list[str]], bool] = lambda lines: status_line(lines) is not None  # noqa: E731
            else:
                term = bare_terminal(size, config)
                seen = bare_visible
            try:
                t = term.until(seen, 120, f"the {which}'s first results")
                (app_ms if which == "app" else bare_ms).append(1000 * (t - term.started))
            finally:
                term.close()
    return app_ms, bare_ms


def typing(db: Path, words: list[str], size: tuple[int, int], config: str) -> dict[str, list]:
    """Per key of each half-typed word: ms to the first results for it and to the exact."""
    first: list[float] = []
    exact: list[float] = []
    labelled = 0
    term = app_terminal(db, size, config)
    try:
        term.until(shows("", exact=True), 120, "the opening results")
        term.quiet(0.5, 30)  # the other tabs build after the first results; let them
        term.write(b"/")
        term.quiet(0.2, 5)
        for word in words:
            for n in range(1, len(word) + 1):
                text = word[:n]
                t0 = term.write(text[-1].encode())
                t_first = term.until(shows(text, exact=False), 120, f"results for {text!r}")
                if LABEL in (status_line(term.lines()) or ""):
                    labelled += 1
                t_exact = term.until(shows(text, exact=True), 120, f"exact results for {text!r}")
                first.append(1000 * (t_first - t0))
                exact.append(1000 * (t_exact - t0))
            term.write(b"\x15")  # ctrl+u: clear the box
            term.until(shows("", exact=True), 120, "the empty query's results")
            term.quiet(0.1, 5)
    finally:
        term.close()
    return {"first": first, "exact": exact, "labelled": [labelled]}


def pick_words(db: Path, n: int, rng: random.Random) -> list[str]:
    """The middle of ``n`` stored words: 4 letters from the second of a ≥6-letter word."""
    from memharness_tui.store.driver import sqlite3

    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        top = conn.execute("SELECT MAX(id) FROM facts").fetchone()[0]
        out: list[str] = []
        while len(out) < n:
            row = conn.execute("SELECT fact FROM facts WHERE id = ?",
                               (rng.randint(1, top),)).fetchone()
            long = [w.lower() for w in (row[0].split() if row else []) if w.isalpha()
                    and len(w) >= 6]
            if long:
                out.append(rng.choice(long)[1:5])
    finally:
        conn.close()
    return out


def child(job: dict) -> None:
    from tui_bench import byte_compile

    byte_compile(CODE)  # as an install leaves it (this environment writes no bytecode)
    db = Path(job["db"])
    size = (job["cols"], job["rows"])
    config = tempfile.mkdtemp(prefix="terminal-bench-cfg-")
    try:
        app_ms, bare_ms = cold_starts(db, job["starts"], size, config)
        typed = typing(db, job["words"], size, config)
    finally:
        shutil.rmtree(config, ignore_errors=True)
    ratios = [a / b for a, b in zip(app_ms, bare_ms, strict=True)]
    emit({
        "start_ms": statistics.median(app_ms), "bare_ms": statistics.median(bare_ms),
        "start_ratio": statistics.median(ratios),
        "first_p50": pct(typed["first"], 50), "first_p95": pct(typed["first"], 95),
        "first_max": max(typed["first"]),
        "exact_p50": pct(typed["exact"], 50), "exact_p95": pct(typed["exact"], 95),
        "exact_max": max(typed["exact"]),
        "keys": len(typed["first"]), "labelled": typed["labelled"][0],
    })


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--words", type=int, default=6, help="half-typed words per child")
    ap.add_argument("--starts", type=int, default=3, help="cold starts of each app per child")
    ap.add_argument("--size", default="120x36", help="the terminal, COLSxROWS")
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--bare-app", action="store_true", help=argparse.SUPPRESS)
    add_arguments(ap, rounds=2)
    args = ap.parse_args()
    if args.bare_app:
        bare_app()
        return
    if args.child_json:
        child(json.loads(args.child_json))
        return
    try:
        import pyte  # noqa: F401
    except ImportError:
        raise SystemExit("terminal_bench.py reads the screen with pyte, the bench extra: "
                         "pip install -e '.[bench]'") from None
    cols, _, rows = args.size.partition("x")
    from seed import seed_store

    work = Path(tempfile.mkdtemp(prefix="terminal-bench-"))
    try:
        db = seed_store(work, args.facts)
        from memharness_tui.store import Store

        Store.open(str(db)).close()  # migrate (if ever needed) before anything is timed
        words = pick_words(db, args.words, random.Random(args.seed))
        job = {"db": str(db), "words": words, "starts": args.starts,
               "cols": int(cols), "rows": int(rows)}
        print(f"store: {args.facts:,} facts; terminal {cols}×{rows}; half-typed words "
              f"{words} ({sum(map(len, words))} keys); load average "
              f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}")
        sides, results = interleaved(Path(__file__), args, job)
        print_table(f"the app in a {cols}×{rows} pty on {args.facts:,} facts", sides, results, [
            ("cold start → first results visible", "start_ms", "ms"),
            ("bare Textual app → its rows visible", "bare_ms", "ms"),
            ("cold start ratio app/bare, same round", "start_ratio", "×"),
            ("half-typed word: key → first results, p50", "first_p50", "ms"),
            ("half-typed word: key → first results, p95", "first_p95", "ms"),
            ("half-typed word: key → first results, max", "first_max", "ms"),
            ("half-typed word: key → exact results, p50", "exact_p50", "ms"),
            ("half-typed word: key → exact results, p95", "exact_p95", "ms"),
            ("half-typed word: key → exact results, max", "exact_max", "ms"),
            ("keys answered first by a labelled list", "labelled", "keys"),
        ])
        print(f"load average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
