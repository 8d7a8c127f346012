"""sqlite-vec in the store's SQLite: loaded into every connection when it can be, else noted.

The reference server loads the same extension (``loadVecExtension``) and, when it cannot,
stays FTS-only; so does the store. Loading never fails a connection: ``problem()`` says why
it did not load (one sentence the app and ``doctor`` can show), ``available()`` whether it did.
"""

from __future__ import annotations

import os
from typing import Any

ENV_VAR = "MEMHARNESS_SQLITE_VEC"
"""``off`` keeps the extension out (keyword-only recall, as where it cannot load)."""

_problem: str | None = None


def _extension_path() -> str:
    """The bundled ``vec0`` library's path, as ``sqlite_vec.loadable_path()`` gives it, found
    without importing the package: its ``__init__`` imports numpy (~40 ms, on the DB thread
    that runs the app's opening search) for helpers the store never calls."""
    from importlib.util import find_spec

    spec = find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("sqlite_vec")
    return os.path.normpath(os.path.join(next(iter(spec.submodule_search_locations)), "vec0"))


def load_into(conn: Any) -> bool:
    """Load sqlite-vec into ``conn``; True if ``vec_version()`` then answers. Never raises."""
    global _problem
    if os.environ.get(ENV_VAR, "").strip().lower() in ("off", "0", "no"):
        _problem = f"{ENV_VAR} turns sqlite-vec off"
        return False
    try:
        path = _extension_path()
    except ImportError:
        _problem = "the sqlite-vec package is not installed (pip install sqlite-vec)"
        return False
    try:
        conn.enable_load_extension(True)
        try:
            conn.load_extension(path)
        finally:
            conn.enable_load_extension(False)
        conn.execute("SELECT vec_version()").fetchone()
    except AttributeError:
        _problem = "this Python's SQLite module cannot load extensions"
        return False
    except Exception as exc:  # the driver's OperationalError (either module)
        _problem = f"sqlite-vec did not load into SQLite: {exc}"
        return False
    _problem = None
    return True


def problem() -> str | None:
    """Why the last load failed (None when it loaded, or before any connection)."""
    return _problem


def loaded(conn: Any) -> bool:
    """Whether ``conn`` has sqlite-vec's functions."""
    try:
        conn.execute("SELECT vec_version()").fetchone()
        return True
    except Exception:
        return False


def version(conn: Any) -> str | None:
    """sqlite-vec's version on ``conn`` (``v0.1.9``), or None when it is not loaded."""
    try:
        return str(conn.execute("SELECT vec_version()").fetchone()[0])
    except Exception:
        return None
