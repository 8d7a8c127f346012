"""A theme's name may be 64 characters, not one more: the limit is where the docs put it."""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.tui.themes import MAX_NAME, load_theme_file


def _theme(tmp_path: Path, name: str) -> Path:
    path = tmp_path / "mine.toml"
    path.write_text(f'name = "{name}"\nprimary = "#3366cc"\n')
    return path


def test_a_64_character_name_loads(tmp_path: Path) -> None:
    assert MAX_NAME == 64
    name = "n" * 64
    assert load_theme_file(_theme(tmp_path, name)).name == name


def test_a_65_character_name_is_refused_with_the_limit(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="^the name is longer than 64 characters$"):
        load_theme_file(_theme(tmp_path, "n" * 65))
