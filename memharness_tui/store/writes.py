"""The agent tools' writes (SPEC §6): remember, revise, forget, and the staleness downgrade,
each one transaction (``Store._write``). A part of ``Store`` like ``verdict_writer.py``.

Every write stamps "now" as the reads do: the later of the clock's and the newest ``tx_at``
in the file, read inside the write lock (``write_now``) — a revision is never recorded as
learned before the row it supersedes when this machine's clock is behind another writer's.
An automated or bulk supersede (a downgrade, a still-true: ``belief_only``) re-checks inside
its transaction that the row is still a belief (``beliefs.py``)."""

from __future__ import annotations

from typing import Any

from . import sql
from .beliefs import belief_in
from .driver import sqlite3
from .errors import InvalidInput
from .rows import StorePart, _guarded
from .timeutil import js_trim, normalize_iso
from .types import FRESHNESS_VALUES, Fact
from .validation import (
    check_confidence,
    check_id,
    check_importance,
    check_kind,
    check_pin,
    check_str,
    no_surrogates,
    require_text,
)


def write_now(conn: sqlite3.Connection, clock_now: str, *, trust_clock: bool) -> str:
    """A write's "now": ``clock_now``, or the newest tx_at in the file when that is later
    (unless the clock is trusted, as for ``--now`` audits). Inside the write lock, so no
    other writer commits a later row between this read and the write."""
    if trust_clock:
        return clock_now
    newest = conn.execute(sql.MAX_TX_AT).fetchone()[0]
    return newest if isinstance(newest, str) and newest > clock_now else clock_now


def _insert(conn: sqlite3.Connection, **row: Any) -> int:
    """INSERT one fact row (inside the caller's transaction); returns its id."""
    return int(conn.execute(sql.INSERT_FACT, row).lastrowid or 0)


Verdict = tuple[str, str]
"""(freshness, checked_head): a staleness verdict written with the row it judges."""


def _check_verdict(verdict: Verdict | None) -> Verdict | None:
    if verdict is None:
        return None
    freshness, head = verdict
    if freshness not in FRESHNESS_VALUES:
        raise InvalidInput(
            f"freshness must be one of {', '.join(FRESHNESS_VALUES)}, got {freshness!r}"
        )
    return freshness, check_str(head, "checked_head")


def _set_verdict(conn: sqlite3.Connection, fact_id: int, verdict: Verdict | None,
                 checked_at: str) -> None:
    """Record ``verdict`` on the new row, inside the transaction that wrote it."""
    if verdict is None:
        return
    conn.execute(sql.SET_STALENESS, {
        "id": fact_id, "freshness": verdict[0], "checked_at": checked_at,
        "checked_head": verdict[1], "source_commit": None, "source_path": None,
    })


class _Inherit:
    """Marker for downgrade arguments that default to the old row's own value."""

    def __repr__(self) -> str:
        return "INHERIT"


INHERIT: Any = _Inherit()


class FactWrites(StorePart):
    """``Store``'s write path: new rows, supersession, retraction."""

    def _now_in(self, conn: sqlite3.Connection, clock_now: str | None = None) -> str:
        """A write timestamp: ``clock_now`` (else a fresh one of the clock's), moved up to
        the newest tx_at in the file (``write_now``)."""
        stamp = self.clock.now() if clock_now is None else clock_now
        return write_now(conn, stamp, trust_clock=self.file.trust_clock)

    @_guarded(writing=True)
    def remember(
        self,
        subject: str,
        fact: str,
        *,
        predicate: str = "",
        confidence: float = 1.0,
        importance: int = 5,
        kind: str = "semantic",
        source_ref: str = "",
        source_agent: str = "",
        source_commit: str | None = None,
        source_path: str | None = None,
        valid_from: str | None = None,
        verdict: Verdict | None = None,
    ) -> tuple[int, str]:
        """Record a new belief. Returns (id, tx_at).

        ``verdict`` (freshness, checked_head): the pin's staleness verdict, recorded on the
        new row in the same transaction — a failure leaves neither, never a row without it.
        """
        self._writable()
        verdict = _check_verdict(verdict)
        subject = require_text(subject, "subject")
        fact = require_text(fact, "fact")
        confidence = check_confidence(confidence)
        importance = check_importance(importance)
        kind = check_kind(kind)
        predicate = js_trim(check_str(predicate, "predicate"))
        source_ref = check_str(source_ref, "source_ref")
        source_agent = check_str(source_agent, "source_agent")
        source_commit = check_pin(source_commit, "source_commit")
        source_path = check_pin(source_path, "source_path")
        clock_now = self.clock.now()  # consumed here whatever follows, as the reference's
        given_vf = normalize_iso(valid_from, "valid_from") if valid_from is not None else None
        with self._write(creates=True) as conn:
            tx_at = self._now_in(conn, clock_now)
            vf = given_vf if given_vf is not None else tx_at
            new_id = _insert(
                conn,
                subject=subject,
                predicate=predicate,
                fact=fact,
                confidence=confidence,
                importance=importance,
                kind=kind,
                valid_from=vf,
                tx_at=tx_at,
                source_agent=source_agent,
                source_ref=source_ref,
                source_commit=source_commit,
                source_path=source_path,
            )
            if verdict is not None:
                _set_verdict(conn, new_id, verdict, self._now_in(conn))
        return new_id, tx_at

    @_guarded(writing=True)
    def revise(
        self,
        old_id: int,
        new_fact: str,
        *,
        confidence: float = 1.0,
        importance: int | None = None,
        kind: str | None = None,
        source_ref: str = "",
        source_agent: str = "",
        source_commit: str | None = None,
        source_path: str | None = None,
        valid_from: str | None = None,
        verdict: Verdict | None = None,
        belief_only: bool = False,
    ) -> tuple[int, int, str]:
        """Supersede ``old_id`` with a corrected fact, in one transaction. Returns (old, new, tx_at).

        ``verdict`` (freshness, checked_head): recorded on the new row in that transaction.
        A retracted row is revised, as the reference does, unless ``belief_only`` (a write the
        user did not word: a still-true): then it is :class:`~.beliefs.NotABelief`, nothing
        written.
        """
        self._writable()
        verdict = _check_verdict(verdict)
        new_fact = require_text(new_fact, "new_fact")
        confidence = check_confidence(confidence)
        old_id = check_id(old_id, "old_id")
        source_ref = check_str(source_ref, "source_ref")
        source_agent = check_str(source_agent, "source_agent")
        source_commit = check_pin(source_commit, "source_commit")
        source_path = check_pin(source_path, "source_path")
        with self._write() as conn:
            old, new_id, tx_at = self._supersede(
                conn,
                old_id,
                new_fact,
                confidence=confidence,
                importance=importance,
                kind=kind,
                source_ref=source_ref,
                source_agent=source_agent,
                source_commit=source_commit,
                source_path=source_path,
                valid_from=valid_from,
                belief_only=belief_only,
            )
            if verdict is not None:
                _set_verdict(conn, new_id, verdict, self._now_in(conn))
        return old.id, new_id, tx_at

    def _supersede(
        self,
        conn: sqlite3.Connection,
        old_id: int,
        new_fact: str,
        *,
        confidence: float,
        importance: int | None,
        kind: str | None,
        source_ref: str,
        source_agent: str,
        source_commit: str | None,
        source_path: str | None,
        valid_from: str | None,
        belief_only: bool,
    ) -> tuple[Fact, int, str]:
        """The body of revise, inside the caller's write transaction (validated arguments).

        The old row is read here, inside the write lock (``beliefs.belief_in``): a superseded
        one is refused, and a retracted one too when ``belief_only``."""
        old = belief_in(conn, old_id, belief_only=belief_only)
        imp = check_importance(importance) if importance is not None else old.importance
        knd = check_kind(kind) if kind is not None else old.kind
        tx_at = self._now_in(conn)
        vf = tx_at
        if valid_from is not None:
            vf = normalize_iso(valid_from, "valid_from")
            if vf > tx_at:
                raise InvalidInput(
                    f"valid_from cannot be in the future: got {vf}, now is {tx_at}"
                )
            if old.valid_from < old.tx_at and vf < old.valid_from:
                raise InvalidInput(
                    f"cannot backdate below the old fact's valid_from ({old.valid_from}); "
                    "it was itself backdated, so an earlier correction would invert its "
                    f"validity interval. got {vf}"
                )
        new_id = _insert(
            conn,
            subject=old.subject,
            predicate=old.predicate,
            fact=new_fact,
            confidence=confidence,
            importance=imp,
            kind=knd,
            valid_from=vf,
            tx_at=tx_at,
            source_agent=source_agent,
            source_ref=source_ref,
            source_commit=source_commit,
            source_path=source_path,
        )
        conn.execute(sql.SUPERSEDE_FACT, {"ts": vf, "new_id": new_id, "old_id": old.id})
        return old, new_id, tx_at

    @_guarded(writing=True)
    def downgrade(
        self,
        fact_id: int,
        factor: float = 0.5,
        *,
        source_agent: str,
        freshness: str | None = INHERIT,
        checked_head: str | None = None,
        source_commit: str | None = INHERIT,
        source_path: str | None = INHERIT,
    ) -> tuple[int, int, str]:
        """SPEC §8 downgrade in ONE transaction: revise + verdict copy. Returns (old, new, tx_at).

        The new row has the old text, confidence × ``factor``, the old source_ref, the pin
        (the old row's unless given), importance and kind inherited; then, when there is a
        verdict (the old row's ``freshness`` unless given), it is recorded on the new row
        with a second timestamp as checked_at and ``checked_head`` (default: the old row's,
        else ""). A kill between the two can no longer leave a downgraded row without its
        verdict. Errors: NotFound, or :class:`~.beliefs.NotABelief` (an InvalidInput) when the
        row was superseded or retracted — a downgrade never makes a retracted fact current.
        """
        self._writable()
        fid = check_id(fact_id, "fact_id")
        if (
            isinstance(factor, bool)
            or not isinstance(factor, int | float)
            or not 0 <= factor <= 1  # also refuses NaN
        ):
            raise InvalidInput(f"factor must be a number in [0, 1], got {factor!r}")
        source_agent = check_str(source_agent, "source_agent")
        if freshness is not INHERIT and freshness is not None and freshness not in FRESHNESS_VALUES:
            raise InvalidInput(
                f"freshness must be one of {', '.join(FRESHNESS_VALUES)}, got {freshness!r}"
            )
        if checked_head is not None:
            checked_head = check_str(checked_head, "checked_head")
        with self._write() as conn:
            cur = belief_in(conn, fid)
            commit = cur.source_commit if source_commit is INHERIT else source_commit
            path = cur.source_path if source_path is INHERIT else source_path
            old, new_id, tx_at = self._supersede(
                conn,
                fid,
                require_text(cur.fact, "fact"),
                confidence=check_confidence(cur.confidence * factor),
                importance=None,
                kind=None,
                source_ref=cur.source_ref,
                source_agent=source_agent,
                source_commit=check_pin(commit, "source_commit"),
                source_path=check_pin(path, "source_path"),
                valid_from=None,
                belief_only=True,
            )
            verdict = old.freshness if freshness is INHERIT else freshness
            if verdict:
                head = checked_head if checked_head is not None else (old.checked_head or "")
                conn.execute(
                    sql.SET_STALENESS,
                    {
                        "id": new_id,
                        "freshness": verdict,
                        "checked_at": self._now_in(conn),
                        "checked_head": head,
                        "source_commit": None,
                        "source_path": None,
                    },
                )
        return old.id, new_id, tx_at

    @_guarded(writing=True)
    def forget(
        self, *, fact_id: int | None = None, source_ref: str | None = None
    ) -> tuple[int, list[int]]:
        """Retract by id or by exact source_ref. Returns (count, ids retracted now)."""
        self._writable()
        clock_now = self.clock.now()  # consumed here whatever follows, as the reference's
        params: dict[str, object]
        if fact_id is not None:
            fid = check_id(fact_id, "fact_id")
            stmt, params = sql.RETRACT_BY_ID, {"id": fid}
        elif source_ref is not None:
            if not isinstance(source_ref, str):
                raise InvalidInput(f"source_ref must be a string, got {source_ref!r}")
            ref = js_trim(no_surrogates(source_ref, "source_ref"))
            if ref == "":
                raise InvalidInput("source_ref must be non-empty (refusing to retract everything)")
            stmt, params = sql.RETRACT_BY_SOURCE_REF, {"source_ref": ref}
        else:
            raise InvalidInput("forget needs a fact_id or a source_ref")
        with self._write() as conn:
            params["ts"] = self._now_in(conn, clock_now)
            ids = sorted(int(r[0]) for r in conn.execute(stmt, params).fetchall())
        return len(ids), ids
