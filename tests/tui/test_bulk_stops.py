"""The app's writes under a failure (issue #20, item 3): a new fact and its verdict are one
transaction; a bulk action that stops early says exactly what it wrote."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from memharness_tui.store import FakeClock, Store
from memharness_tui.store.errors import DiskFull
from memharness_tui.tui.services import git
from memharness_tui.tui.services.gateway import StoreGateway
from memharness_tui.tui.services.store import FactValues, StoreService

HEAD = "c" * 40


def _facts(path: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT id, fact, freshness, superseded_by, source_agent "
                            "FROM facts ORDER BY id").fetchall()
    finally:
        conn.close()


def _service(opener: Any) -> StoreService:
    return StoreService(StoreGateway(opener))


def _judged(freshness: str = "stale") -> git.Judged:
    return git.Judged(freshness=freshness, reason="changed since", repo="/r", head=HEAD,
                      resolved=True)


def test_a_new_fact_whose_verdict_fails_is_not_written(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "memory.db"
    with Store.open(str(db), clock=FakeClock("2026-02-01")) as s:
        s.remember("proj", "already here")
    conn = sqlite3.connect(db)
    conn.execute("CREATE TRIGGER no_verdicts BEFORE UPDATE OF freshness ON facts "
                 "BEGIN SELECT RAISE(ABORT, 'injected: the verdict write failed'); END")
    conn.close()
    before = _facts(db)

    async def judge(*_a: Any) -> git.Judged:
        return _judged()

    monkeypatch.setattr(git, "judge", judge)
    service = _service(lambda: Store.open(str(db), clock=FakeClock("2026-02-02")))
    values = FactValues(fact="pinned and judged", subject="proj", source_commit="a" * 40)
    try:
        with pytest.raises(Exception, match="injected"):
            asyncio.run(service.new_fact(values, ["/r"]))
    finally:
        service.close()
    # no row without its verdict: saving again cannot make a duplicate
    assert _facts(db) == before


def _failing_from(call: int, method: str) -> type[Store]:
    class Failing(Store):
        calls = 0

    def wrapper(self: Any, *a: Any, **kw: Any) -> Any:
        Failing.calls += 1
        if Failing.calls >= call:
            raise DiskFull(f"the disk holding {self.path} is full; nothing was written — "
                           "free some space and try again")
        return getattr(Store, method)(self, *a, **kw)

    setattr(Failing, method, wrapper)
    return Failing


def _store_of(db: Path, n: int) -> list[Any]:
    with Store.open(str(db), clock=FakeClock("2026-02-01")) as s:
        ids = [s.remember("proj", f"fact {i}", source_commit="a" * 40, source_path="f.py")[0]
               for i in range(n)]
        return [s.get(i) for i in ids]


def test_still_true_stopped_at_fact_k_says_what_it_wrote(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "memory.db"
    facts = _store_of(db, 6)

    async def plan(_repos: Any, fs: Any, **_kw: Any) -> list[git.StillTrue]:
        return [git.StillTrue(fact=f, head=HEAD, judged=_judged("current")) for f in fs]

    monkeypatch.setattr(git, "still_true_plan", plan)
    failing = _failing_from(3, "revise")  # facts 1 and 2 are re-verified, then the disk fills
    service = _service(lambda: failing.open(str(db), clock=FakeClock("2026-02-02")))
    try:
        result = asyncio.run(service.still_true(facts, ["/r"]))
    finally:
        service.close()
    rows = _facts(db)
    new_rows = [r for r in rows if r[4] == "memharness-tui/still-true"]
    assert len(new_rows) == 2 and all(r[2] == "current" for r in new_rows)  # with verdicts
    assert result.summary("Re-verified") == (
        f"Re-verified 2 of 6 facts (#1 → #{new_rows[0][0]}, #2 → #{new_rows[1][0]}), then the "
        f"disk holding {db} is full; the rest are unchanged — free some space and try again")


def test_downgrade_stopped_at_fact_k_and_a_skip_is_still_a_skip(
        tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    facts = _store_of(db, 5)
    with Store.open(str(db), clock=FakeClock("2026-02-01T01:00:00Z")) as s:
        s.revise(facts[0].id, "revised by someone else")  # that fact's own problem: skipped

    class Failing(Store):
        calls = 0

        def downgrade(self, *a: Any, **kw: Any) -> Any:
            type(self).calls += 1
            if type(self).calls == 4:
                raise DiskFull(f"the disk holding {self.path} is full; nothing was written "
                               "— free some space and try again")
            return super().downgrade(*a, **kw)

    service = _service(lambda: Failing.open(str(db), clock=FakeClock("2026-02-02")))
    try:
        result = asyncio.run(service.downgrade(facts, 0.5, HEAD))
    finally:
        service.close()
    assert [i for i, _ in result.skipped] == [facts[0].id]
    assert len(result.changed) == 2
    written = [r for r in _facts(db) if r[4] == "memharness-tui/downgrade"]
    assert len(written) == 2
    text = result.summary("Downgraded")
    assert text.startswith("Downgraded 2 of 5 facts (")
    assert f"; skipped 1: #{facts[0].id} " in text
    assert text.endswith(f", then the disk holding {db} is full; the rest are unchanged — "
                         "free some space and try again")
    assert "nothing was written" not in text
