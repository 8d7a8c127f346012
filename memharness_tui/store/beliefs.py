"""The one rule for writes the user did not word themselves: a row is superseded only while it
is still a belief.

A downgrade, a still-true, a staleness pass's downgrade and the hygiene fixes (merge, refile,
split, pin) revise rows that someone read a moment (or an hour) before; an agent may have
retracted or revised the row since. Each re-reads the row INSIDE its write transaction
(:func:`belief_in`) and leaves it as it is when it is no longer current — never writing a live
copy that would make a retracted belief current again. The user's own rewrite keeps the
reference's ``revise`` (which supersedes a retracted row: EDGE-CASES.md E3).
"""

from __future__ import annotations

from . import sql
from .driver import sqlite3
from .errors import InvalidInput, NotFound
from .rows import _fact, _successors
from .types import Fact


class NotABelief(InvalidInput):
    """The row an automated or bulk supersede was given is no longer a belief (retracted or
    superseded since it was read): nothing was written for it. One fact's refusal: a bulk
    action reports it and goes on."""

    def __init__(self, message: str, fact: Fact, head: Fact | None = None) -> None:
        super().__init__(message)
        self.fact = fact
        self.head = head

    @property
    def fact_id(self) -> int:
        return self.fact.id

    @property
    def retracted(self) -> bool:
        return self.fact.retracted_at is not None

    def reason(self, since: str = "it was read") -> str:
        """What happened to the row, after its ``#id`` ("was retracted by an agent since you
        looked; left as it is")."""
        if self.fact.superseded_by is not None:
            later = f"#{self.head.id}" if self.head is not None else f"#{self.fact.superseded_by}"
            return (f"was revised (now {later}) since {since}; left as it is — "
                    f"open {later} to change it")
        return f"was retracted by an agent since {since}; left as it is"


def superseded_message(old: Fact, head: Fact) -> str:
    """The reference's refusal of a revise of a superseded row: it quotes the chain's head."""
    return (
        f"fact #{old.id} is already superseded by #{old.superseded_by}; "
        f'the head of the chain is #{head.id}: "{head.fact}" — '
        f"re-check your correction against it, then revise #{head.id} if still needed"
    )


def chain_head(conn: sqlite3.Connection, fact: Fact) -> Fact:
    later = _successors(conn, fact, {fact.id})
    return later[-1] if later else fact


def belief_in(conn: sqlite3.Connection, fact_id: int, *, belief_only: bool = True) -> Fact:
    """The row ``fact_id`` read inside the caller's write transaction, while it is a belief.

    NotFound for an unknown id. With ``belief_only`` (a write the user did not word), a
    superseded or retracted row is :class:`NotABelief` (an InvalidInput; a superseded one
    with the reference's sentence, quoting the chain's head). Without it, the reference's
    ``revise``: a superseded row is refused (that sentence, a plain InvalidInput) and a
    retracted one is revised."""
    row = conn.execute(sql.GET_FACT, (fact_id,)).fetchone()
    if row is None:
        raise NotFound(f"no fact #{fact_id}")
    fact = _fact(row)
    if fact.superseded_by is not None:
        head = chain_head(conn, fact)
        if not belief_only:
            raise InvalidInput(superseded_message(fact, head))
        raise NotABelief(superseded_message(fact, head), fact, head)
    if fact.retracted_at is not None and belief_only:
        left = NotABelief("", fact)
        raise NotABelief(f"#{fact.id} {left.reason()}", fact)
    return fact
