"""Where things live: the database (SPEC §1) and our own settings (platformdirs)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "memharness-tui"


def default_db_path() -> str:
    """SPEC §1: MEMHARNESS_DB, else $XDG_DATA_HOME/memharness/memory.db (Linux), else ~/.memharness."""
    env = os.environ.get("MEMHARNESS_DB")
    if env:
        return env
    xdg = os.environ.get("XDG_DATA_HOME")
    if xdg and os.name == "posix" and os.uname().sysname == "Linux":
        return str(Path(xdg) / "memharness" / "memory.db")
    return str(Path.home() / ".memharness" / "memory.db")


def config_dir() -> Path:
    """Our settings folder (theme, repos, user themes); MEMHARNESS_TUI_CONFIG_DIR overrides."""
    env = os.environ.get("MEMHARNESS_TUI_CONFIG_DIR")
    if env:
        return Path(env)
    return Path(platformdirs.user_config_dir(APP_NAME))


def cache_dir() -> Path:
    """Cache folder (the demo store and repo); MEMHARNESS_TUI_CACHE_DIR overrides."""
    env = os.environ.get("MEMHARNESS_TUI_CACHE_DIR")
    if env:
        return Path(env)
    return Path(platformdirs.user_cache_dir(APP_NAME))


def data_dir() -> Path:
    """Our data folder (the undo journals); MEMHARNESS_TUI_DATA_DIR overrides."""
    env = os.environ.get("MEMHARNESS_TUI_DATA_DIR")
    if env:
        return Path(env)
    return Path(platformdirs.user_data_dir(APP_NAME))
