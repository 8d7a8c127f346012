"""Opt-in: the CPU each test costs, summed by file and by test (#25).

The suite is CPU-bound on a small machine, and wall time there mostly measures the other
workers, so this records ``time.process_time()`` (every thread of the worker process: the
app's DB thread too, plus the subprocesses it waited for) around each test's setup, call and teardown. A module- or session-scoped
fixture is charged to the first test that uses it.

    .venv/bin/python -m pytest -p tests.cpu_report --cpu-report=/tmp/cpu -n 2 tests
    .venv/bin/python -m tests.cpu_report /tmp/cpu          # the summary again

Each worker writes ``<prefix>.<worker>.jsonl`` (one line per test, then one for the worker's
start-up and collection); the controller prints the top files and tests at the end.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

_START = time.process_time()  # the worker's import of pytest and the plugins is before this


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cpu-report", metavar="PREFIX", default=None,
                     help="write each test's CPU seconds to PREFIX.<worker>.jsonl and sum them")


def _out(config: pytest.Config) -> Path | None:
    prefix = config.getoption("--cpu-report")
    if not prefix:
        return None
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    return Path(f"{prefix}.{worker}.jsonl")


def pytest_configure(config: pytest.Config) -> None:
    out = _out(config)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    out = _out(item.config)
    if out is None:
        yield
        return
    first = not hasattr(item.config, "_cpu_report_first")
    if first:
        item.config._cpu_report_first = time.process_time() - _START  # type: ignore[attr-defined]
        with out.open("a") as f:
            f.write(json.dumps({"startup": item.config._cpu_report_first}) + "\n")  # type: ignore[attr-defined]
    cpu, wall, kids = time.process_time(), time.perf_counter(), _children()
    yield
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    kids = _children() - kids
    with out.open("a") as f:
        f.write(json.dumps({"test": item.nodeid, "cpu": cpu + kids, "wall": wall}) + "\n")


def _children() -> float:
    """CPU of the subprocesses the test started and waited for (the CLI, git, a pass)."""
    t = os.times()
    return t.children_user + t.children_system


def summarise(prefix: str, top: int = 25) -> str:
    by_test: dict[str, tuple[float, float]] = {}
    startup = 0.0
    parent = Path(prefix).parent
    for path in sorted(parent.glob(Path(prefix).name + ".*.jsonl")):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            if "startup" in row:
                startup += row["startup"]
            else:
                by_test[row["test"]] = (row["cpu"], row["wall"])
    by_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for name, (cpu, _wall) in by_test.items():
        entry = by_file[name.split("::")[0]]
        entry[0] += cpu
        entry[1] += 1
    total = sum(cpu for cpu, _ in by_test.values())
    lines = [f"CPU: {total:.1f} s in {len(by_test)} tests, {startup:.1f} s start-up + collection"]
    lines.append(f"-- top {top} files (cpu s, tests) --")
    for name, (cpu, n) in sorted(by_file.items(), key=lambda kv: -kv[1][0])[:top]:
        lines.append(f"{cpu:8.2f} {int(n):4d}  {name}")
    lines.append(f"-- top {top} tests (cpu s, wall s) --")
    for name, (cpu, wall) in sorted(by_test.items(), key=lambda kv: -kv[1][0])[:top]:
        lines.append(f"{cpu:8.2f} {wall:7.2f}  {name}")
    return "\n".join(lines)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter,
                            config: pytest.Config) -> None:
    prefix = config.getoption("--cpu-report")
    if prefix and os.environ.get("PYTEST_XDIST_WORKER") is None:
        terminalreporter.write_line(summarise(prefix))


if __name__ == "__main__":
    print(summarise(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 25))
