"""A downgrade, a still-true or a hygiene fix never brings back a retracted fact: each re-reads
its row inside its write transaction and leaves a row that is no longer a belief as it is
(store/beliefs.py). The user's own rewrite keeps the reference's revise. And every write's
"now" is the later of the clock's and the newest tx_at in the file, as the reads' is."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from memharness_tui.hygiene import apply, plan_pin
from memharness_tui.store import FakeClock, Store
from memharness_tui.store.beliefs import NotABelief
from memharness_tui.store.driver import sqlite3  # the store's own: shares its locks in-process
from memharness_tui.store.errors import InvalidInput
from tests.store.helpers import dump_facts
from tests.store.support import open_store

SHA = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
HEAD = "b" * 40


def _pinned(store: Store, text: str) -> int:
    fid, _ = store.remember("api", text, confidence=0.8, source_ref="repo@" + SHA,
                            source_commit=SHA, source_path="src/limits.py")
    store.set_staleness(fid, "stale", store.now(), HEAD)
    return fid


def _live_copies(db: Path, text: str) -> list[int]:
    """Ids of the believed rows reading ``text`` (what agents would recall)."""
    return [r["id"] for r in dump_facts(db) if r["fact"] == text and r["superseded_by"] is None
            and r["retracted_at"] is None]


def _agent_retracts(db: Path, fact_id: int) -> None:
    """Another process's ``forget``: its own connection, committed."""
    con = sqlite3.connect(db)
    with con:
        con.execute("UPDATE facts SET retracted_at = '2026-01-05T12:00:00.000Z' "
                    "WHERE id = ? AND retracted_at IS NULL", (fact_id,))
    con.close()


def _before_write(store: Store, monkeypatch: pytest.MonkeyPatch,
                  hook: Callable[[int], None]) -> None:
    """Run ``hook(n)`` just before the store's n-th write transaction takes the lock (n from
    1): another writer committing between a caller's read and its write, deterministically."""
    file = store._file  # noqa: SLF001 - the hook sits where the race window is
    original = file.write
    calls = 0

    def write(*, creates: bool = False) -> AbstractContextManager[sqlite3.Connection]:
        nonlocal calls
        calls += 1
        hook(calls)
        return original(creates=creates)

    monkeypatch.setattr(file, "write", write)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "m.db"


@pytest.fixture
def store(db: Path) -> Iterator[Store]:
    s = open_store(db)
    yield s
    s.close()


def test_a_downgrade_of_a_retracted_fact_writes_nothing(store: Store, db: Path) -> None:
    fid = _pinned(store, "rate limit is 100/s")
    store.forget(fact_id=fid)
    before = dump_facts(db)
    with pytest.raises(NotABelief, match=f"#{fid} was retracted by an agent since it was read; "
                                         "left as it is") as caught:
        store.downgrade(fid, 0.5, source_agent="memharness-tui/downgrade")
    assert caught.value.fact_id == fid and caught.value.retracted
    assert isinstance(caught.value, InvalidInput)  # one fact's refusal: a bulk goes on
    assert dump_facts(db) == before
    assert _live_copies(db, "rate limit is 100/s") == []


def test_a_still_true_revise_of_a_retracted_fact_is_refused(store: Store, db: Path) -> None:
    fid = _pinned(store, "rate limit is 100/s")
    store.forget(fact_id=fid)
    before = dump_facts(db)
    with pytest.raises(NotABelief, match="was retracted"):
        store.revise(fid, "rate limit is 100/s", source_commit=HEAD, verdict=("current", HEAD),
                     belief_only=True)
    assert dump_facts(db) == before


def test_the_users_own_rewrite_of_a_retracted_fact_revises_it_as_the_reference_does(
        store: Store, db: Path) -> None:
    fid = _pinned(store, "rate limit is 100/s")
    store.forget(fact_id=fid)
    _, new_id, _ = store.revise(fid, "rate limit is 200/s", source_agent="memharness-tui/rewrite")
    assert store.get(fid).superseded_by == new_id
    assert _live_copies(db, "rate limit is 200/s") == [new_id]


def test_a_superseded_fact_is_refused_quoting_the_head_of_its_chain(store: Store) -> None:
    fid = _pinned(store, "rate limit is 100/s")
    _, head, _ = store.revise(fid, "rate limit is 300/s")
    with pytest.raises(NotABelief, match=f'the head of the chain is #{head}: "rate limit is '
                                         '300/s"') as caught:
        store.downgrade(fid, 0.5, source_agent="memharness-tui/downgrade")
    assert caught.value.head is not None and caught.value.head.id == head
    assert caught.value.reason("you looked") == (
        f"was revised (now #{head}) since you looked; left as it is — open #{head} to change it")


def test_a_bulk_downgrade_leaves_a_fact_retracted_mid_run_as_it_is(
        store: Store, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = [_pinned(store, f"limit {n} is 100/s") for n in range(3)]
    read = sorted(store.list_facts(ids=ids), key=lambda f: f.id)  # the bulk's read
    assert [f.id for f in read] == ids and all(f.is_live for f in read)
    # an agent's forget of the second commits while the first downgrade is written
    _before_write(store, monkeypatch, lambda n: _agent_retracts(db, ids[1]) if n == 2 else None)
    changed, left = [], []
    for f in read:
        try:
            changed.append(store.downgrade(f.id, 0.5, source_agent="memharness-tui/downgrade")[0])
        except NotABelief as exc:
            left.append((exc.fact_id, exc.reason("you looked")))
    assert changed == [ids[0], ids[2]]
    assert left == [(ids[1], "was retracted by an agent since you looked; left as it is")]
    assert _live_copies(db, "limit 1 is 100/s") == []
    assert store.get(ids[1]).superseded_by is None  # left exactly as the agent left it


def test_a_hygiene_fix_refuses_a_fact_an_agent_retracted_after_the_preview(
        store: Store, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = _pinned(store, "map one")
    b = _pinned(store, "map two")
    plan = plan_pin(store, [a, b], "c" * 40, "src/app.ts")
    _before_write(store, monkeypatch, lambda n: _agent_retracts(db, b))
    before = dump_facts(db)
    with pytest.raises(NotABelief, match=f"fact #{b} changed since the preview; nothing was "
                                         "written — an agent retracted it; look again"):
        apply(store, plan)
    after = dump_facts(db)
    assert [r for r in after if r["id"] != b] == [r for r in before if r["id"] != b]
    assert len(after) == len(before) and after[b - 1]["retracted_at"] is not None
    assert _live_copies(db, "map two") == []


# --- the write's "now" --------------------------------------------------------------------


def _behind(store: Store) -> None:
    """This machine's clock a day behind the writer that wrote the file's rows."""
    store.clock = FakeClock("2026-01-04T09:00:00.000Z")


def test_a_revision_is_never_learned_before_the_row_it_supersedes(store: Store) -> None:
    old = _pinned(store, "rate limit is 100/s")
    seen = store.get(old).tx_at
    _behind(store)
    _, new, tx_at = store.revise(old, "rate limit is 200/s")
    assert tx_at >= seen and store.get(new).tx_at == tx_at
    assert store.get(new).valid_from >= seen
    assert store.get(old).valid_to is not None and store.get(old).valid_to >= seen
    assert store.get(new).is_live  # recalled now: valid_from is not in the future


def test_every_write_stamps_at_least_the_newest_tx_at_in_the_file(store: Store) -> None:
    pinned = _pinned(store, "rate limit is 100/s")
    plain, newest = store.remember("user", "likes tea")
    _behind(store)
    _, down, tx_down = store.downgrade(pinned, 0.5, source_agent="memharness-tui/downgrade")
    assert tx_down >= newest
    assert (store.get(down).checked_at or "") >= tx_down
    fresh, tx_new = store.remember("user", "likes coffee", verdict=("current", HEAD))
    assert tx_new >= tx_down and (store.get(fresh).checked_at or "") >= tx_new
    _, gone = store.forget(fact_id=plain)
    assert gone == [plain] and (store.get(plain).retracted_at or "") >= tx_new
    fixed = apply(store, plan_pin(store, [fresh], "c" * 40, None))
    assert fixed.tx_at >= tx_new


def test_a_trusted_clock_stamps_the_clocks_time(db: Path) -> None:
    with open_store(db) as s:
        s.remember("user", "likes tea")
    with Store.open(str(db), clock=FakeClock("2026-01-04T09:00:00.000Z"),
                    trust_clock=True) as audit:
        _, tx_at = audit.remember("user", "likes coffee")
    assert tx_at == "2026-01-04T09:00:00.000Z"
