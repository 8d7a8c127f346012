"""store/damage.py remembers where its record is, and follows the cache folder when it moves."""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.store import damage


def test_the_record_follows_the_cache_folder_setting(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMHARNESS_TUI_CACHE_DIR", str(tmp_path / "one"))
    assert damage._record_path() == tmp_path / "one" / damage.RECORD
    monkeypatch.setenv("MEMHARNESS_TUI_CACHE_DIR", str(tmp_path / "two"))
    assert damage._record_path() == tmp_path / "two" / damage.RECORD
    monkeypatch.setenv("MEMHARNESS_TUI_CACHE_DIR", str(tmp_path / "one"))
    assert damage._record_path() == tmp_path / "one" / damage.RECORD
