"""The one place that chooses the SQLite module: ``pysqlite3`` when installed and newer, else stdlib.

``pysqlite3-binary`` bundles a recent SQLite (3.51 at the time of writing) whose FTS5 and
query planner are measurably faster on the recall tail than the SQLite that ships with a
given Python build (3.40 on the reference machine). It is a dependency only where a wheel
exists; everywhere else the standard library's ``sqlite3`` is used, unchanged.

Every connection the store opens — Peewee's and the plain ones — comes from this module, so
the exception classes the store catches match the connections it makes. Set
``MEMHARNESS_SQLITE=stdlib`` to force the standard library (``pysqlite3`` to require it).
"""

from __future__ import annotations

import functools
import importlib
import os
import sqlite3 as _stdlib
from types import ModuleType
from typing import Any

ENV_VAR = "MEMHARNESS_SQLITE"
CHOICES = ("auto", "stdlib", "pysqlite3")


def _choose(preference: str) -> ModuleType:
    """The module for a preference from ``CHOICES`` (anything else is one clear error)."""
    if preference not in CHOICES:
        raise SystemExit(f"{ENV_VAR}={preference!r} is not one of {', '.join(CHOICES)}")
    if preference == "stdlib":
        return _stdlib
    try:
        from pysqlite3 import dbapi2 as bundled  # type: ignore[import-not-found]
    except ImportError:
        if preference == "pysqlite3":
            raise SystemExit(
                f"{ENV_VAR}=pysqlite3 but pysqlite3 is not installed "
                "(pip install pysqlite3-binary)"
            ) from None
        return _stdlib
    if preference == "auto" and bundled.sqlite_version_info < _stdlib.sqlite_version_info:
        return _stdlib
    return bundled


sqlite3: Any = _choose(os.environ.get(ENV_VAR, "auto").strip().lower() or "auto")
"""The chosen DB-API module; import it as ``from .driver import sqlite3``."""

SQLITE_CONFIG_MEMSTATUS = 9  # sqlite3.h


@functools.cache  # once per module: after it, sqlite3_memory_used() is always 0
def _without_memory_statistics(module: ModuleType) -> bool:
    """Turn off SQLite's memory statistics in pysqlite3's own copy of SQLite; True if done.

    With them on (pysqlite3-binary's build default) every allocation takes a global mutex
    to keep a running total nobody reads here: ~5 % of a recall's instructions. SQLite
    recommends building with SQLITE_DEFAULT_MEMSTATUS=0, and the reference core's SQLite
    is built that way; ``sqlite3_config`` is the run-time form of the same setting. It may
    only change while SQLite holds no memory, i.e. before any connection is open (at this
    module's import), so it is applied only when ``sqlite3_memory_used()`` is 0. The
    standard library's SQLite is the system's, shared with the rest of the process: never
    touched.
    """
    if module is _stdlib:
        return False
    try:
        import ctypes

        lib = ctypes.CDLL(importlib.import_module("pysqlite3._sqlite3").__file__)
        lib.sqlite3_memory_used.restype = ctypes.c_int64
        if lib.sqlite3_memory_used() != 0:
            return False
        lib.sqlite3_shutdown()
        done = lib.sqlite3_config(SQLITE_CONFIG_MEMSTATUS, ctypes.c_int(0)) == 0
        return lib.sqlite3_initialize() == 0 and done
    except (ImportError, OSError, AttributeError, TypeError):
        return False


MEMORY_STATISTICS_OFF = _without_memory_statistics(sqlite3)


def sqlite_version() -> str:
    """The SQLite library version the store runs on, e.g. ``"3.51.1"``."""
    return str(sqlite3.sqlite_version)


def driver_name() -> str:
    """``"pysqlite3"`` or ``"sqlite3"`` (the standard library)."""
    return "sqlite3" if sqlite3 is _stdlib else "pysqlite3"


def describe() -> str:
    """One line for ``--version``/``stats``: ``SQLite 3.51.1 (pysqlite3)``."""
    return f"SQLite {sqlite_version()} ({driver_name()})"


class ChosenDriver:
    """Mixin for a Peewee ``SqliteDatabase``: connect with the module chosen here.

    Peewee makes its own choice at import (pysqlite3 when newer); overriding ``_connect``
    keeps Peewee on the same module as the rest of the store, including when
    ``MEMHARNESS_SQLITE=stdlib`` forces the standard library.
    """

    server_version = sqlite3.sqlite_version_info

    def _connect(self) -> Any:
        conn = sqlite3.connect(
            self.database,  # type: ignore[attr-defined]
            timeout=self._timeout,  # type: ignore[attr-defined]
            isolation_level=None,
            **self.connect_params,  # type: ignore[attr-defined]
        )
        try:
            from .vector_ext import load_into

            load_into(conn)  # sqlite-vec for hybrid recall; never fails the connection
            self._add_conn_hooks(conn)  # type: ignore[attr-defined]
        except Exception:
            conn.close()
            raise
        return conn


@functools.cache
def has_math_functions() -> bool:
    """Whether this SQLite build has ``pow()`` built in (a library property, probed once).

    Probed on ``:memory:``: a probe on the store's own connection would read the file's
    schema, so a corrupt file would fail inside Peewee's connect hooks instead of where
    the store turns it into one clear error.
    """
    probe = sqlite3.connect(":memory:")
    try:
        probe.execute("SELECT pow(2, 2)").fetchone()
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        probe.close()
