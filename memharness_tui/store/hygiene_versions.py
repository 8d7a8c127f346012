"""The reads the content detectors of hygiene need (secrets, instructions, contradictions):
every version's text (a secret outlives its revision), a row's whole chain, and the current
rows with their writers. A part of ``Store`` like ``hygiene_reads.py``. Nothing here writes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from . import sql
from .rows import StorePart, _chain_loop, _guarded
from .timeutil import normalize_iso
from .validation import check_id

__all__ = ["VersionReads", "VersionRow"]


@dataclass(frozen=True, slots=True)
class VersionRow:
    """One row of the facts table as the content detectors read it."""

    id: int
    subject: str
    fact: str
    superseded_by: int | None
    retracted_at: str | None
    source_agent: str
    source_ref: str
    #: a current belief (or, with ``as_of``, one believed then)
    current: bool = False

    @property
    def status(self) -> str:
        """``retracted``, ``superseded`` or ``current`` (as the row stands now)."""
        if self.retracted_at is not None:
            return "retracted"
        return "superseded" if self.superseded_by is not None else "current"


_COLS = ("f.id, f.subject, f.fact, f.superseded_by, f.retracted_at, f.source_agent, "
         "f.source_ref")
_ROWS = f"SELECT {_COLS} FROM facts f WHERE f.id IN ({{}})"
_SUCCESSOR = "SELECT f.superseded_by FROM facts f WHERE f.id = ?"
_PREDECESSORS = "SELECT f.id FROM facts f WHERE f.superseded_by = ?"
_WRITERS = ("SELECT f.source_agent, COUNT(*) FROM facts f GROUP BY f.source_agent "
            "ORDER BY COUNT(*) DESC")


def _marked(r: Sequence[Any]) -> VersionRow:
    """A row of ``_COLS`` and its belief flag."""
    return VersionRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]))


class VersionReads(StorePart):
    """``Store``'s reads for the content detectors."""

    @_guarded(writing=False)
    def versions_where(self, keep: Callable[[str], bool], *, as_of: str | None = None,
                       current_only: bool = False) -> list[VersionRow]:
        """Every row (all versions; with ``as_of`` those written by then) whose text ``keep``
        accepts, in id order, each marked ``current`` by SPEC's belief filter (one read).
        ``current_only``: the current beliefs only."""
        belief = sql.AS_OF_FILTER if as_of is not None else sql.CURRENT_FILTER
        params: dict[str, str] = (
            {"as_of": normalize_iso(as_of, "as_of")} if as_of is not None
            else {"now": self.clock.peek()})
        where = (f"WHERE {belief}" if current_only
                 else "WHERE f.tx_at <= :as_of" if as_of is not None else "")
        query = (f"SELECT {_COLS}, CASE WHEN {belief} THEN 1 ELSE 0 END FROM facts f {where} "
                 "ORDER BY f.id")
        out: list[VersionRow] = []
        cursor = self.conn.execute(query, params)
        while True:
            chunk = cursor.fetchmany(5000)
            if not chunk:
                return out
            out.extend(_marked(r) for r in chunk if keep(r[2]))

    @_guarded(writing=False)
    def versions_matching(self, likes: Sequence[str], *, upper_or_wide: bool = False,
                          as_of: str | None = None) -> list[VersionRow]:
        """Every row (all versions; with ``as_of`` those written by then) whose text contains
        one of ``likes`` (case-blind for ASCII, SQLite's LIKE) — or, with ``upper_or_wide``,
        holds a digit, a capital letter or a character outside ASCII — in id order, each marked
        ``current``. The test runs in SQLite: a Python test on every row of a big store costs
        several times the read (and a GLOB with a leading ``*`` as much as ten LIKEs)."""
        belief = sql.AS_OF_FILTER if as_of is not None else sql.CURRENT_FILTER
        params: dict[str, str] = (
            {"as_of": normalize_iso(as_of, "as_of")} if as_of is not None
            else {"now": self.clock.peek()})
        tests = []
        for k, word in enumerate(likes):
            params[f"l{k}"] = "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace(
                "_", "\\_") + "%"
            tests.append(f"f.fact LIKE :l{k} ESCAPE '\\'")
        if upper_or_wide:
            tests += ["f.fact <> lower(f.fact)", "f.fact GLOB '*[0-9]*'",
                      "length(f.fact) <> length(CAST(f.fact AS BLOB))"]
        if not tests:
            return []
        where = "(" + " OR ".join(tests) + ")"
        if as_of is not None:
            where += " AND f.tx_at <= :as_of"
        query = (f"SELECT {_COLS}, CASE WHEN {belief} THEN 1 ELSE 0 END FROM facts f "
                 f"WHERE {where} ORDER BY f.id")
        return [_marked(r) for r in self.conn.execute(query, params)]

    @_guarded(writing=False)
    def chain_ids(self, fact_id: int) -> list[int]:
        """Every id linked to ``fact_id`` by supersession, either way (a merge's several
        predecessors included), sorted. NotFound for an unknown id."""
        fact_id = check_id(fact_id)
        from .errors import NotFound

        conn = self.conn
        if conn.execute(_SUCCESSOR, (fact_id,)).fetchone() is None:
            raise NotFound(f"no fact with id {fact_id}")
        seen, todo = {fact_id}, [fact_id]
        while todo:
            fid = todo.pop()
            linked = [r[0] for r in conn.execute(_PREDECESSORS, (fid,))]
            succ = conn.execute(_SUCCESSOR, (fid,)).fetchone()
            if succ is not None and succ[0] is not None:
                linked.append(succ[0])
            for other in linked:
                if other not in seen:
                    if len(seen) > 100_000:
                        raise _chain_loop(other)
                    seen.add(other)
                    todo.append(other)
        return sorted(seen)

    @_guarded(writing=False)
    def version_rows(self, ids: list[int]) -> list[VersionRow]:
        """The rows with these ids, in id order (missing ids left out)."""
        out: list[VersionRow] = []
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            out.extend(VersionRow(*r) for r in self.conn.execute(
                _ROWS.format(",".join("?" * len(part))), part))
        return sorted(out, key=lambda r: r.id)

    @_guarded(writing=False)
    def writers(self) -> list[tuple[str, int]]:
        """(source_agent, rows) of every writer of the file, most rows first."""
        return [(str(a), int(n)) for a, n in self.conn.execute(_WRITERS)]
