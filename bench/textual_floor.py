"""The framework's floor for a cold start: a bare Textual app, no store, no app code.

    .venv/bin/python bench/textual_floor.py [--starts 5]

Spawns a fresh interpreter that paints an ``Input`` over a ``DataTable`` of 20 rows of static
text (headless, Pilot, the size ``tui_bench.py`` uses) and times it exactly as
``tui_bench.py``'s cold start: from spawning the process to the first frame showing the rows.
Whatever the app's own cold start costs above this number is ours; this much is Python,
``textual.app``'s import, the built-in CSS and the first frame. ``tui_bench.py`` runs it
alongside the app's cold starts and prints it as its own row. Prints numbers only.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time

SIZE = (160, 48)
ROWS = 20


def floor_app():  # noqa: ANN201 - a Textual App class, imported only in the child
    """The bare app (an Input over a ``ROWS``-row DataTable); ``terminal_bench.py`` runs it
    in a pty, ``_child`` headless."""
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable, Input

    class Floor(App[None]):
        def compose(self) -> ComposeResult:
            yield Input(placeholder="Search facts — type to search…")
            table: DataTable[str] = DataTable(cursor_type="row")
            table.add_columns("ID", "Subject", "Predicate", "Fact", "Kind", "Score")
            for i in range(ROWS):
                table.add_row(str(i), f"subject-{i}", "uses", f"static fact text number {i}",
                              "semantic", f"{1 - i / 100:.3f}")
            yield table

    return Floor


async def _child() -> None:
    """One bare start: print the wall-clock time of the first frame that shows the table."""
    from textual._compositor import CompositorUpdate

    def wall(t: float) -> float:  # a perf_counter reading as wall-clock time
        return time.time() - (time.perf_counter() - t)

    painted: list[float] = []

    class Floor(floor_app()):  # type: ignore[misc]
        def _display(self, screen, renderable) -> None:  # type: ignore[override]
            super()._display(screen, renderable)
            if isinstance(renderable, CompositorUpdate):
                renderable.render_segments(self.console)  # the terminal bytes, as tui_bench
                painted.append(time.perf_counter())

    app = Floor()
    async with app.run_test(size=SIZE):
        while not painted:
            await asyncio.sleep(0.001)
        print(f"PAINTED {wall(painted[0])!r}", flush=True)


def floor_start() -> float:
    """ms from spawning a bare Textual app to its first painted frame."""
    t0 = time.time()
    proc = subprocess.run([sys.executable, __file__, "--child"], capture_output=True,
                          text=True, check=True)
    for line in proc.stdout.splitlines():
        word, _, when = line.partition(" ")
        if word == "PAINTED":
            return 1000 * (float(when) - t0)
    raise SystemExit(f"floor child printed no frame:\n{proc.stdout}\n{proc.stderr}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        asyncio.run(_child())
        return
    times = [floor_start() for _ in range(args.starts)]
    print(f"bare Textual app (Input + {ROWS}-row DataTable), cold start → first frame: "
          f"median {statistics.median(times):.0f} ms, min {min(times):.0f} ms "
          f"({', '.join(f'{t:.0f}' for t in times)})")


if __name__ == "__main__":
    main()
