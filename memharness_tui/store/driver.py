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

import contextlib
import functools
import importlib
import os
import sqlite3 as _stdlib
import sys
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


SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE = 1006  # sqlite3.h
#: connections that could not be told to skip their close-time checkpoint: never closed
_KEPT_OPEN: list[Any] = []


def _raw_handle(conn: Any) -> Any:
    """The ``sqlite3 *`` of a connection of CPython's ``sqlite3`` or of ``pysqlite3``.

    Both declare the connection object as ``PyObject_HEAD`` followed by ``sqlite3 *db``
    (Modules/_sqlite/connection.h, in every CPython this project supports), so the handle
    is the pointer just after the object header. The caller checks it names the file it
    expects before using it (``sqlite3_db_filename``)."""
    import ctypes

    return ctypes.c_void_p.from_address(id(conn) + object.__basicsize__).value


def _library_of(conn: Any) -> Any:
    """The SQLite library ``conn`` runs on, for ctypes: its module's own binary (its
    symbols, or those of the libsqlite3 it links, are that library's); None for a
    connection of neither module."""
    import ctypes

    if isinstance(conn, _stdlib.Connection):
        name = "_sqlite3"
    elif sqlite3 is not _stdlib and isinstance(conn, sqlite3.Connection):
        name = "pysqlite3._sqlite3"
    else:
        return None
    return ctypes.CDLL(importlib.import_module(name).__file__)


def _no_checkpoint_on_close(conn: Any, path: str) -> bool:
    """Set SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE on ``conn``; True when it is set."""
    module = _stdlib if isinstance(conn, _stdlib.Connection) else sqlite3
    op = getattr(module, "SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE", None)
    setconfig = getattr(conn, "setconfig", None)
    if op is not None and setconfig is not None:  # Python 3.12+: the documented way
        try:
            setconfig(op, True)
            return bool(conn.getconfig(op))
        except Exception:  # noqa: BLE001 - fall through to ctypes
            pass
    if sys.implementation.name != "cpython":
        return False
    try:
        import ctypes

        lib = _library_of(conn)
        if lib is None:
            return False
        lib.sqlite3_db_filename.restype = ctypes.c_char_p
        lib.sqlite3_db_filename.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        handle = _raw_handle(conn)
        if not handle:
            return False  # closed already
        named = lib.sqlite3_db_filename(handle, b"main")
        if named is None or os.path.realpath(os.fsdecode(named)) != os.path.realpath(path):
            return False
        out = ctypes.c_int(-1)
        rc = lib.sqlite3_db_config(ctypes.c_void_p(handle), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
                                   ctypes.c_int(1), ctypes.byref(out))
        return rc == 0 and out.value == 1
    except (ImportError, OSError, AttributeError, TypeError, ValueError):
        return False


def close_without_checkpoint(conn: Any, path: str) -> bool:
    """Close ``conn`` (open on ``path``) without SQLite's work on closing the last connection:
    no checkpoint of its write-ahead log into the file and no removal of the ``-wal``/``-shm``.

    That work goes through the *path*: after ``rm memory.db-wal memory.db-shm`` another
    process's connection makes new ones there, and a close-time checkpoint of this
    connection's old log into the shared file followed by unlinking the path's ``-wal``
    and ``-shm`` would lose that process's commits (and can corrupt the file). SQLite's
    switch for it is ``SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE``, set through ``setconfig`` where
    the module has it (Python 3.12+) and otherwise through ctypes on the connection's own
    library. Where neither works the connection is kept open until the process ends (its
    locks then go with the process, and nothing is checkpointed or removed); False then.
    That fallback is for builds where ctypes cannot reach the library: a reopen of the
    file in the same process would share the kept connection's old wal-index (SQLite keeps
    one per file per process), so there only a restart is safe.
    """
    if _no_checkpoint_on_close(conn, path):
        conn.close()
        return True
    import ctypes

    with contextlib.suppress(Exception):
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(conn))  # never deallocated, never closed
    _KEPT_OPEN.append(conn)
    return False
