"""The store works on either SQLite module: the bundled pysqlite3 or the standard library.

The module is chosen once, at import (``memharness_tui.store.driver``), so the other module
is exercised in a subprocess with ``MEMHARNESS_SQLITE`` forcing it; there the reference
fixture interop and recall parity tests must pass unchanged.
"""

from __future__ import annotations

import importlib.util
import os
import sqlite3 as stdlib_sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memharness_tui.store import Store, driver
from tests.conftest import REPO_ROOT, fixtures_dir

HAVE_PYSQLITE3 = importlib.util.find_spec("pysqlite3") is not None
MODULES = ["stdlib"] + (["pysqlite3"] if HAVE_PYSQLITE3 else [])


def test_stdlib_preference_is_the_standard_library() -> None:
    assert driver._choose("stdlib") is stdlib_sqlite3


def test_auto_prefers_the_newer_sqlite() -> None:
    chosen = driver._choose("auto")
    assert chosen.sqlite_version_info >= stdlib_sqlite3.sqlite_version_info
    if not HAVE_PYSQLITE3:
        assert chosen is stdlib_sqlite3


def test_an_unknown_preference_is_one_clear_error() -> None:
    with pytest.raises(SystemExit, match="MEMHARNESS_SQLITE='sqlite4' is not one of"):
        driver._choose("sqlite4")


def test_version_line_names_the_library_and_module() -> None:
    assert driver.sqlite_version() == driver.sqlite3.sqlite_version
    assert driver.describe() == f"SQLite {driver.sqlite3.sqlite_version} ({driver.driver_name()})"
    expected = "sqlite3" if driver.sqlite3 is stdlib_sqlite3 else "pysqlite3"
    assert driver.driver_name() == expected


def test_peewee_connects_with_the_chosen_module(tmp_path: Path) -> None:
    """Peewee picks pysqlite3 by itself; the store must override that with the one choice."""
    with Store.open(str(tmp_path / "m.db")) as store:
        assert isinstance(store.conn, driver.sqlite3.Connection)
        version = store.conn.execute("SELECT sqlite_version()").fetchone()[0]
        assert version == driver.sqlite_version()
        store.remember("a", "hello world")
        assert [f.fact for f in store.recall("hello").facts] == ["hello world"]


@pytest.mark.parametrize("module", MODULES)
def test_fixture_interop_and_recall_parity_on(module: str) -> None:
    env = {**os.environ, "MEMHARNESS_SQLITE": module, "MEMHARNESS_FIXTURES": str(fixtures_dir())}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            # plugins these tests do not use: ~0.6 s of start-up each run
            "-p",
            "no:xdist",
            "-p",
            "no:hypothesispytest",
            "tests/store/test_fixture_interop.py",
            "tests/store/test_driver.py::test_peewee_connects_with_the_chosen_module",
            "tests/store/test_driver.py::test_version_line_names_the_library_and_module",
            # the first statement on a corrupt file fails differently across SQLite versions
            "tests/test_cli.py::test_corrupt_file_is_one_clear_line",
        ],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "11 passed" in proc.stdout
    probe = "from memharness_tui.store import driver; print(driver.driver_name())"
    name = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, env=env, capture_output=True, text=True
    ).stdout.strip()
    assert name == ("sqlite3" if module == "stdlib" else "pysqlite3")


def test_math_function_probe_matches_the_library() -> None:
    conn = driver.sqlite3.connect(":memory:")
    try:
        conn.execute("SELECT pow(2, 2)")
        native = True
    except driver.sqlite3.OperationalError:
        native = False
    finally:
        conn.close()
    assert driver.has_math_functions() is native


MEMORY_PROBE = """
import ctypes, importlib, sys
{before}
from memharness_tui.store import Store, driver
lib = ctypes.CDLL(importlib.import_module("pysqlite3._sqlite3").__file__)
lib.sqlite3_memory_used.restype = ctypes.c_int64
with Store.open(sys.argv[1]) as store:
    store.remember("a", "hello world")
    found = [f.fact for f in store.recall("hello").facts]
    print(driver.MEMORY_STATISTICS_OFF, lib.sqlite3_memory_used() > 0, found)
"""


def _memory_probe(tmp_path: Path, before: str = "") -> str:
    proc = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE.format(before=before), str(tmp_path / "m.db")],
        cwd=REPO_ROOT, env={**os.environ, "MEMHARNESS_SQLITE": "pysqlite3"},
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip()


@pytest.mark.skipif(not HAVE_PYSQLITE3, reason="pysqlite3 is not installed on this platform")
def test_pysqlite3_runs_without_memory_statistics(tmp_path: Path) -> None:
    """Its SQLite keeps no running allocation total (a global mutex per malloc) once chosen."""
    assert _memory_probe(tmp_path) == "True False ['hello world']"


@pytest.mark.skipif(not HAVE_PYSQLITE3, reason="pysqlite3 is not installed on this platform")
def test_memory_statistics_stay_on_when_sqlite_is_already_in_use(tmp_path: Path) -> None:
    """A connection opened before the store's import: SQLite cannot be reconfigured safely."""
    before = "import pysqlite3.dbapi2 as early; held = early.connect(':memory:')"
    assert _memory_probe(tmp_path, before) == "False True ['hello world']"


def test_the_standard_library_sqlite_is_never_reconfigured() -> None:
    assert driver._without_memory_statistics(stdlib_sqlite3) is False
