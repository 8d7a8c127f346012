"""What the Store's modules share: a row as a Fact, SQLite's sort order, the supersession
chain walk, and the decorator that turns SQLite failures into one-sentence errors."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from . import sql
from .driver import sqlite3
from .errors import StoreOpenError, translate_sqlite

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from .clock import Clock
    from .handle import StoreFile
    from .models import FactModel
    from .types import RankingSettings

from .types import FACT_COLUMNS, DiffResult, Fact

_NCOLS = len(FACT_COLUMNS)


def _fact(row: Sequence[Any], score: float | None = None) -> Fact:
    return Fact(*row[:_NCOLS], score=score)  # type: ignore[misc]  # the row stops before score


def _chain_loop(fact_id: int) -> StoreOpenError:
    """A superseded_by cycle can only come from a damaged file; never loop on it."""
    return StoreOpenError(f"the supersession chain loops at #{fact_id}; the file is damaged")


def _successors(conn: sqlite3.Connection, fact: Fact, seen: set[int]) -> list[Fact]:
    """The rows that superseded ``fact``, nearest first (``seen`` guards against loops)."""
    out: list[Fact] = []
    cursor = fact
    while cursor.superseded_by is not None:
        nxt = conn.execute(sql.GET_FACT, (cursor.superseded_by,)).fetchone()
        if nxt is None:
            break
        cursor = _fact(nxt)
        if cursor.id in seen:
            raise _chain_loop(cursor.id)
        seen.add(cursor.id)
        out.append(cursor)
    return out


def _sqlite_order(value: Any) -> tuple[int, Any]:
    """A sort key that orders mixed values as SQLite does: NULL, numbers, text, blobs."""
    if value is None:
        return (0, 0)
    if isinstance(value, int | float):
        return (1, value)
    if isinstance(value, str):
        return (2, value)
    return (3, bytes(value))


def _copied(d: DiffResult) -> DiffResult:
    """A remembered diff with fresh lists (callers may filter or extend theirs)."""
    return DiffResult(since=d.since, learned=list(d.learned), revised=list(d.revised),
                      retracted=list(d.retracted))


_F = TypeVar("_F", bound=Callable[..., Any])


def _guarded(*, writing: bool) -> Callable[[_F], _F]:
    """Store parts' methods: known SQLite failures become one-sentence errors
    (errors.translate_sqlite). Also picks up a file another process created while this
    store was still fresh."""

    def deco(fn: _F) -> _F:
        @functools.wraps(fn)
        def wrapper(self: StorePart, *args: Any, **kwargs: Any) -> Any:
            file = self.file
            with translate_sqlite(file.path, writing=writing):
                if file.fresh_pending:
                    file.adopt_if_created()
                return fn(self, *args, **kwargs)

        return wrapper  # type: ignore[return-value]  # functools.wraps keeps fn's signature

    return deco


class StorePart:
    """One part of the Store (browse, recall, writes, the verdict writer, the split scans,
    the remembered answers): it is given the :class:`~.handle.StoreFile` it works on, and
    reads what it needs of it through the names below."""

    def __init__(self, file: StoreFile) -> None:
        self.file = file

    @property
    def conn(self) -> sqlite3.Connection:
        return self.file.conn

    @property
    def clock(self) -> Clock:
        return self.file.clock

    @property
    def ranking(self) -> RankingSettings:
        return self.file.ranking

    @property
    def path(self) -> str:
        return self.file.path

    @property
    def readonly(self) -> bool:
        return self.file.readonly

    @property
    def Fact(self) -> type[FactModel]:  # noqa: N802 (the Peewee model's own name)
        return self.file.Fact

    def _writable(self) -> None:
        self.file.writable()

    def _write(self, *, creates: bool = False) -> AbstractContextManager[sqlite3.Connection]:
        """One write transaction on the file (``StoreFile.write``)."""
        return self.file.write(creates=creates)

    def _effective_now(self, clock_now: str) -> str:
        return self.file.effective_now(clock_now)
