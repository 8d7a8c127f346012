"""Store.near_duplicates: bad input is one clear sentence; a fresh store answers empty."""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, Store
from memharness_tui.store.errors import InvalidInput


def test_bad_input_is_refused_with_the_field_named(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "m.db"), clock=FakeClock()) as s:
        s.remember("user", "likes green tea")
        with pytest.raises(InvalidInput, match="^subject must be a non-empty string$"):
            s.near_duplicates("  ", "likes green tea")
        with pytest.raises(InvalidInput, match="^text must be a non-empty string$"):
            s.near_duplicates("user", "")
        with pytest.raises(InvalidInput, match="^limit must be a positive integer, got 0$"):
            s.near_duplicates("user", "tea", limit=0)
        with pytest.raises(InvalidInput, match="^query_vector must be a sequence of numbers$"):
            s.near_duplicates("user", "tea", query_vector=["a", "b"])
        with pytest.raises(InvalidInput, match="^query_vector must hold float32 numbers$"):
            s.near_duplicates("user", "tea", query_vector=[1e300])
        assert [n.id for n in s.near_duplicates("user", "green tea")] == [1]


def test_a_fresh_store_has_no_near_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"
    with Store.open(str(path), clock=FakeClock()) as s:
        assert s.near_duplicates("user", "anything") == []
    assert not path.exists()
