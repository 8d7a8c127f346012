"""Shared test helpers: where the reference fixtures live, and isolated user folders."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def fixtures_dir() -> Path:
    """The files the reference implementation wrote, kept in the repository (tests/fixtures)."""
    env = os.environ.get("MEMHARNESS_FIXTURES")
    path = Path(env) if env else REPO_ROOT / "tests" / "fixtures"
    if not (path / "v5.db").exists():
        raise RuntimeError(f"reference fixtures not found at {path} (set MEMHARNESS_FIXTURES)")
    return path


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Never touch the real home: config, cache and the default database live in a temp dir."""
    base = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("MEMHARNESS_TUI_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("MEMHARNESS_TUI_CACHE_DIR", str(base / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(base / "data"))
    monkeypatch.setenv("HOME", str(base / "home"))
    monkeypatch.delenv("MEMHARNESS_DB", raising=False)


@pytest.fixture(autouse=True)
def _collector_resumed() -> Iterator[None]:
    """The early start pauses Python's collector until the app resumes it; a test that starts
    the CLI without running the app (tests/test_readme.py) would leave every later test in
    its worker without one (tests/tui/test_gc_policy.py then fails)."""
    yield
    policy = sys.modules.get("memharness_tui.tui.gc_policy")
    if policy is not None:
        policy.resume()
