"""Edge cases found in review: JS tokenizing, as_of decay time, damaged chains, side files."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, InvalidInput, Store, StoreOpenError, SystemClock
from memharness_tui.store.ranking import age_days, score
from memharness_tui.store.types import RankingSettings


def test_query_tokens_split_like_javascript(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "s.db"), clock=FakeClock("2026-01-01")) as s:
        s.remember("t", "foo x bar")
        # U+FEFF is JS whitespace: two tokens, both match (AND), no fallback
        r = s.recall("foo\ufeffbar")
        assert r.ids == [1] and not r.used_fallback
        # U+001C and U+0085 are not JS whitespace: one token, no FTS match, substring misses
        for q in ("foo\x1cbar", "foo\x85bar"):
            r = s.recall(q)
            assert r.ids == [] and r.used_fallback


def test_as_of_decay_uses_the_clock_not_a_newer_writer(tmp_path: Path) -> None:
    path = str(tmp_path / "s.db")
    with Store.open(path, clock=FakeClock("2026-01-01T00:00:00Z")) as a:
        a.remember("t", "early fact")
    with Store.open(path, clock=FakeClock("2026-07-01T00:00:00Z")) as b:
        b.remember("t", "fact from a writer whose clock runs ahead")
    with Store.open(path, clock=FakeClock("2026-01-02T00:00:00Z")) as reader:
        r = reader.recall(as_of="2026-01-01T12:00:00Z")
        f = r.facts[0]
    want = score(fts_rank=None, confidence=1.0, importance=5, kind="semantic",
                 age=age_days("2026-01-02T00:00:00.000Z", None, f.tx_at), freshness=None,
                 r=RankingSettings())
    assert r.ids == [1] and math.isclose(f.score, want, rel_tol=1e-9)


def test_a_supersession_loop_is_an_error_not_a_hang(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Store.open(str(path), clock=FakeClock("2026-01-01")) as s:
        s.remember("t", "one")
        s.remember("t", "two")
    conn = sqlite3.connect(path)
    conn.execute("UPDATE facts SET superseded_by = 2 WHERE id = 1")
    conn.execute("UPDATE facts SET superseded_by = 1 WHERE id = 2")
    conn.commit()
    conn.close()
    with Store.open(str(path)) as s:
        with pytest.raises(StoreOpenError, match="loops"):
            s.why(1)
        with pytest.raises(StoreOpenError, match="loops"):
            s.revise(1, "three")
        assert s.remember("t", "the write lock was released")[0] == 3


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_side_files_are_refused(tmp_path: Path, suffix: str) -> None:
    side = tmp_path / f"memory.db{suffix}"
    side.write_bytes(b"")
    with pytest.raises(StoreOpenError, match="side files"):
        Store.open(str(side))
    assert side.read_bytes() == b""


def test_tilde_paths_expand_to_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "sub").mkdir()  # an explicit path's folder must exist
    with Store.open("~/sub/m.db") as s:
        assert s.path == str(tmp_path / "sub" / "m.db")
        s.remember("s", "f")  # the file is created by the first write
    assert (tmp_path / "sub" / "m.db").exists()


def test_system_clocks_never_repeat_within_a_process() -> None:
    a, b = SystemClock(), SystemClock()
    stamps = [c.now() for _ in range(300) for c in (a, b)]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)


def test_non_ascii_digits_are_not_dates(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "s.db")) as s, pytest.raises(InvalidInput, match="as_of"):
        s.recall(as_of="٢٠٢٦-٠١-٠٢")
