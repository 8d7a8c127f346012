"""Skip scoring rows too old to reach the answer: the scanning recalls, same answer, less work.

The empty query and the LIKE fallback score every row that passes the filters: two-thirds
of their time is ``julianday`` and ``pow`` for rows that end far below the top ``limit``.
Every factor of the score is at most a known bound (confidence <= 1, the largest importance
boost and freshness factor the settings allow), and the decay falls with age. So once a
score ``theta`` is known to be reached by ``limit`` rows (ranking the newest rows first, a
rowid range), a row can only reach the answer if

    M * 0.5 ** (age / HL) >= theta,   i.e.   age <= HL * log2(M / theta)

with ``M`` the largest product of the other factors and ``HL`` the longest half-life.
``sql.RECENT_ENOUGH`` keeps every row whose reference time (``last_accessed_at`` or
``tx_at``) is on or after a cut date a week earlier than that age allows, and every row
whose reference time has no ``-`` as its fifth character (those are scored as before):

- of the texts ``julianday`` reads, those with a ``-`` fifth are ``YYYY-MM-DD…`` dates and
  numbers with a negative exponent and at most three characters before it (``999e-1``:
  julian day 99.9, thousands of years before any cut, which is after year 1000);
- a ``YYYY-MM-DD…`` text is a time within that date, shifted by at most an hour 24, a day
  31 in a short month (+3 days) and a ±14:59 offset; so a date before the cut is older than
  the bound allows, with days to spare (other texts with a ``-`` fifth read as NULL: such
  a score sorts below theta's rows);
- the remaining slack (1e-9 of theta) covers the floating-point products.

A row it drops therefore scores below theta and cannot be among the first ``limit`` (ties
with theta are kept). Rows, scores and order are the unpruned query's
(tests/store/test_age_bound.py checks them against it, odd timestamps included).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any

from . import sql
from .rows import StorePart
from .timeutil import parse_ms

#: Below this many rows a scan is quick anyway: score every row, as before.
PRUNE_FROM_ROWS = 20_000
#: How many of the newest rows are ranked first to learn theta (then 4x, up to an eighth).
THETA_WINDOW_ROWS = 2_000
#: How much earlier than the bound the cut date lies (see the module docstring).
CUT_SLACK = timedelta(days=7)
IMPORTANCE = range(1, 11)  # the schema's CHECK (importance BETWEEN 1 AND 10)


KINDS = {"semantic": "hl_semantic", "episodic": "hl_episodic", "procedural": "hl_procedural"}


def class_bounds(p: dict[str, Any]) -> dict[tuple[str, int], tuple[float, float]] | None:
    """For each kind and importance: (M, HL), the largest product of confidence, importance
    boost and freshness factor, and the half-life, that the score's SQL gives such a row.
    None when a factor could be negative or a half-life not positive (nothing is skipped)."""
    fresh = [1.0, float(p["stale_weight"]), float(p["unresolved_weight"])]
    if min(fresh) < 0 or not all(math.isfinite(x) for x in fresh):
        return None
    out = {}
    for kind, param in KINDS.items():
        for i in IMPORTANCE:
            boost = 1.0 + p["importance_weight"] * (i - 5)
            hl = p[param] * max(p["min_hl_factor"], 1.0 + p["importance_hl_weight"] * (i - 5))
            if not (boost >= 0 and hl > 0 and math.isfinite(boost) and math.isfinite(hl)):
                return None
            out[kind, i] = (boost * max(fresh), hl)
    return out


def cut_date(now_ms: int, theta: float, ceiling: float, half_life: float) -> str:
    """The ``YYYY-MM-DD`` before which a row's reference time means a score below theta
    ('' when none: every row is kept)."""
    if ceiling <= 0:  # the row scores 0 (or less) whatever its age; theta > 0 beats it
        return "9999-99-99"
    days = half_life * max(0.0, math.log2(ceiling / (theta * (1 - 1e-9))))
    try:
        cut = datetime.fromtimestamp(now_ms / 1000, UTC) - timedelta(days=days) - CUT_SLACK
    except (OverflowError, ValueError):
        return ""
    return cut.strftime("%Y-%m-%d") if cut.year >= 1000 else ""


class AgeBound(StorePart):
    """The recall's scanning query with ``sql.RECENT_ENOUGH`` when it provably changes nothing."""

    def recent_enough(self, filters: list[str], params: dict[str, Any]) -> dict[str, str] | None:
        """The cut dates for ``sql.RECENT_ENOUGH``, by parameter (None: score every row)."""
        bounds = class_bounds(params)
        if bounds is None:
            return None
        try:
            now_ms = parse_ms(params["now"])
        except ValueError:  # "now" is a newer tx_at that is not a canonical time: no bound
            return None
        conn = self.conn
        top = int(conn.execute(sql.MAX_ID).fetchone()[0])
        if top < PRUNE_FROM_ROWS:
            return None
        limit = int(params["limit"])
        # The newest rows first, 4x more each time until ``limit`` of them pass the filters
        # (a rare LIKE pattern); past an eighth of the table, give up and score every row.
        window = THETA_WINDOW_ROWS
        while True:
            scores = conn.execute(sql.top_scores_query([*filters, sql.ABOVE_ID]),
                                  {**params, "above": top - window}).fetchall()
            if len(scores) >= limit:
                break
            window *= 4
            if window > top // 8:
                return None
        if scores[-1][0] is None:
            return None
        theta = float(scores[-1][0])
        if not (theta > 0 and math.isfinite(theta)):
            return None
        cuts = {f"cut_{kind}_{i}": cut_date(now_ms, theta, m, hl)
                for (kind, i), (m, hl) in bounds.items()}
        return {**cuts, "cut_min": min(cuts.values())}
