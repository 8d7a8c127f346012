"""One door each (#22 item 4): the UI opens no Store and calls no staleness engine itself;
follow mode and ``staleness --watch`` share one HEAD rule (item 5)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import memharness_tui
from memharness_tui.staleness.watch import SettledHeads, watch
from memharness_tui.tui.services import StoreGateway, StoreService
from memharness_tui.tui.widgets.staleness.follow import Follower

TUI = Path(memharness_tui.__file__).parent / "tui"


def _ui_files() -> list[Path]:
    return [p for p in TUI.rglob("*.py") if "services" not in p.relative_to(TUI).parts]


def test_no_ui_module_outside_the_services_imports_the_store_class_or_the_engine() -> None:
    found = []
    for path in _ui_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or node.module is None:
                continue
            names = {a.name for a in node.names}
            if node.module == "memharness_tui.store" and names - {"formats"}:
                found.append(f"{path.name}: from {node.module} import {sorted(names)}")
            if node.module.startswith("memharness_tui.staleness") \
                    and node.module != "memharness_tui.staleness.pins":
                found.append(f"{path.name}: from {node.module}")
    assert found == []


async def test_a_pass_gets_its_own_connection_from_the_service(tmp_path: Path) -> None:
    from memharness_tui.store import Store

    db = tmp_path / "m.db"
    with Store.open(str(db)) as s:
        s.remember("a", "b")
    service = StoreService(StoreGateway(lambda: Store.open(str(db))))
    try:
        with pytest.raises(RuntimeError, match="not open yet"):
            service.own_connection()
        await service.open()
        assert service.own_connection() == str(db)
    finally:
        service.close()


class _Head:
    def __init__(self, script: list[str | None]) -> None:
        self.script = script
        self.i = 0

    def read(self) -> str | None:
        return self.script[min(self.i, len(self.script) - 1)]

    def subject(self, sha: str) -> str:
        return f"subject {sha[:3]}"


def test_follow_mode_and_watch_decide_alike() -> None:
    """The same HEAD history, polled at the same instants: follow mode is due exactly where
    ``staleness --watch`` runs a pass (one rule, staleness/watch.py's SettledHeads)."""
    heads = ["a" * 40, "a" * 40, "b" * 40, "c" * 40, "c" * 40, "c" * 40, "c" * 40, "a" * 40,
             "a" * 40, "a" * 40, None, None, None, None]
    times = [float(i) for i in range(len(heads))]

    src = _Head(heads)
    follower = Follower([src], settle=2.0, clock=lambda: times[src.i])
    follow_due = []
    for i in range(1, len(heads)):
        src.i = i
        if follower.due():
            follow_due.append(i)

    src2 = _Head(heads)
    ran: list[int] = []

    def run_pass() -> str:
        ran.append(src2.i)
        return "0 stale"

    def sleep(_s: float) -> None:
        src2.i += 1

    watch([src2], run_pass, lambda _l: None, poll=1.0, settle=2.0,
          clock=lambda: times[src2.i], sleep=sleep, max_polls=len(heads) - 1)
    assert follow_due == [5, 9]
    assert ran[:2] == follow_due  # watch also runs one for the HEAD gone (no line printed)


def test_settled_heads_is_the_one_rule() -> None:
    src = _Head(["a" * 40])
    f = Follower([src], settle=1.0)
    assert isinstance(f.heads, SettledHeads)
