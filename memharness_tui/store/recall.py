"""Recall (SPEC §7): the agent's view, ranked exactly as the reference ranks it."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from . import hybrid, sql, vector_ext
from .age_bound import AgeBound
from .driver import sqlite3
from .errors import InvalidInput
from .handle import StoreFile
from .rows import StorePart, _fact, _guarded
from .split_scan import SplitScans
from .timeutil import js_split, js_trim, normalize_iso
from .types import FRESHNESS_FILTERS, Fact, RecallResult
from .validation import check_kind, check_positive_int, check_query, check_str


def _fts_phrases(query: str) -> list[str]:
    """Each whitespace token as a quoted FTS5 phrase (inner quotes doubled): never a syntax error."""
    return ['"' + t.replace('"', '""') + '"' for t in js_split(query)]


def _like_pattern(query: str) -> str:
    escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


#: A scan with a subject reads that subject's rows only (through idx_facts_subject). Below
#: this many of them the rows are ranked whole: learning an age bound (store/age_bound.py)
#: or splitting the scan across threads costs more than scoring them.
NARROW_SCAN_ROWS = 20_000


def estimate_tokens(text: str) -> int:
    """ceil(length / 4), length in UTF-16 code units as JavaScript counts it."""
    return math.ceil(len(text.encode("utf-16-le")) // 2 / 4)


class RecallReads(StorePart):
    """``Store.recall`` and the split scan behind its scanning queries."""

    def __init__(self, file: StoreFile, scans: SplitScans, age: AgeBound) -> None:
        super().__init__(file)
        self._scans = scans
        self._age = age
        #: Set only during ``Store.recall_first_screen`` (store/first_screen.py): the scanning
        #: queries rank just the rows with a larger id.
        self.scan_above: int | None = None

    @_guarded(writing=False)
    def recall(
        self,
        query: str = "",
        *,
        subject: str = "",
        kind: str | None = None,
        as_of: str | None = None,
        limit: int = 8,
        max_tokens: int | None = None,
        freshness: str | None = None,
        reinforce: bool = False,
        query_vector: Sequence[float] | None = None,
    ) -> RecallResult:
        """The agent's view (SPEC §7), ranked in SQL. Never writes unless ``reinforce``.

        ``query_vector`` (the query's embedding): hybrid recall exactly as the reference's
        ``recall()`` runs it when sqlite-vec is loaded (``vec_enabled``); without the
        extension, or with an empty vector, keyword-only as without one.
        """
        query = check_query(query)
        subject = js_trim(check_str(subject if subject is not None else "", "subject"))
        limit = check_positive_int(limit, "limit")
        if max_tokens is not None:
            max_tokens = check_positive_int(max_tokens, "max_tokens")
        if freshness is not None and freshness not in FRESHNESS_FILTERS:
            raise InvalidInput(
                f"freshness must be one of {', '.join(FRESHNESS_FILTERS)}, got {freshness!r}"
            )
        if reinforce:
            self._writable()
        asof = normalize_iso(as_of, "as_of") if as_of is not None else None
        knd = check_kind(kind) if kind is not None else None

        r = self.ranking
        filters = [sql.AS_OF_FILTER if asof is not None else sql.CURRENT_FILTER]
        params: dict[str, Any] = {
            # SPEC §7: in as_of mode "now" (decay only) is the clock's now, not T.
            "now": self.clock.now() if asof is not None else self._effective_now(self.clock.now()),
            "hl_semantic": r.half_life_days,
            "hl_episodic": r.kind_half_life_days.get("episodic", r.half_life_days),
            "hl_procedural": r.kind_half_life_days.get("procedural", r.half_life_days),
            "importance_weight": r.importance_weight,
            "importance_hl_weight": r.importance_half_life_weight,
            "min_hl_factor": r.min_half_life_factor,
            "stale_weight": r.stale_weight,
            "unresolved_weight": r.unresolved_weight,
            "limit": limit,
        }
        if asof is not None:
            params["as_of"] = asof
        if subject:
            filters.append(sql.SUBJECT_FILTER)
            params["subject"] = subject
        if knd is not None:
            filters.append(sql.KIND_FILTER)
            params["kind"] = knd
        if freshness == "unchecked":
            filters.append(sql.UNCHECKED_FILTER)
        elif freshness is not None:
            filters.append(sql.FRESHNESS_FILTER)
            params["freshness"] = freshness

        conn = self.conn
        used_fallback = False
        rows: list[Any] = []
        if query_vector is not None and len(query_vector) > 0 and self.vec_enabled:
            rows, used_fallback = self._hybrid_rows(query, query_vector, filters, params)
        elif query:
            phrases = _fts_phrases(query)
            matches = [" ".join(phrases)]
            if len(phrases) > 1:
                matches.append(" OR ".join(phrases))
            fts_sql = sql.recall_query(fts=True, filters=filters)
            fts_params = {**params, "rrf_k": r.rrf_k, "cap": max(limit, r.candidate_cap)}
            for match in matches:
                try:
                    rows = conn.execute(fts_sql, {**fts_params, "match": match}).fetchall()
                except sqlite3.OperationalError:
                    rows = []
                if rows:
                    break
            if not rows:
                used_fallback = True
                rows = self._ranked_scan([*filters, sql.LIKE_FILTER],
                                         {**params, "pattern": _like_pattern(query)})
        else:
            rows = self._ranked_scan(filters, params)

        facts: list[Fact] = []
        truncated = False
        if max_tokens is None:  # no budget: nothing to count
            facts = [_fact(row, score=row[-1]) for row in rows]
        else:
            budget = max_tokens
            for row in rows:
                f = _fact(row, score=row[-1])
                cost = estimate_tokens(" ".join(x for x in (f.subject, f.predicate, f.fact) if x))
                if cost > budget:
                    truncated = True
                    break
                budget -= cost
                facts.append(f)

        if reinforce and asof is None and facts:
            ids = json.dumps([f.id for f in facts])
            with self._write() as conn:
                conn.execute(sql.REINFORCE_ACCESS, (self.clock.now(), ids))
        return RecallResult(facts=facts, as_of=asof, truncated=truncated, used_fallback=used_fallback)

    @property
    def vec_enabled(self) -> bool:
        """Whether sqlite-vec is loaded here (else recall is keyword-only, as the server's)."""
        return vector_ext.loaded(self.conn)

    def _hybrid_rows(
        self, query: str, vector: Sequence[float], filters: list[str], params: dict[str, Any]
    ) -> tuple[list[Any], bool]:
        """The reference's hybrid legs: FTS + vector when there is text (vector only when the
        FTS parse fails), vector only without text, then the LIKE scan if both whiffed."""
        blob, dim = hybrid.to_blob(vector)
        r = self.ranking
        vec_params = {**params, "rrf_k": r.rrf_k, "cap": max(params["limit"], r.candidate_cap),
                      "query_vec": blob, "query_dim": dim}
        vec_only = hybrid.hybrid_recall_query(fts=False, vec=True, filters=filters)
        conn = self.conn
        try:
            if query:
                match = " OR ".join(_fts_phrases(query))
                both = hybrid.hybrid_recall_query(fts=True, vec=True, filters=filters)
                try:
                    rows = conn.execute(both, {**vec_params, "match": match}).fetchall()
                except sqlite3.OperationalError:
                    rows = conn.execute(vec_only, vec_params).fetchall()
            else:
                rows = conn.execute(vec_only, vec_params).fetchall()
        except sqlite3.OperationalError:
            damaged = hybrid.damaged_vectors(conn, dim)  # the vector leg failed: say why
            if damaged is None:
                raise
            raise damaged from None
        if query and not rows:
            return self._ranked_scan([*filters, sql.LIKE_FILTER],
                                     {**params, "pattern": _like_pattern(query)}), True
        return rows, False

    def _ranked_scan(self, filters: list[str], params: dict[str, Any]) -> list[Any]:
        """Rows of the scanning recall query (the empty query, the LIKE fallback). Split:
        each id range ranks its own best ``limit`` ids, and the one query ranks their union —
        the overall best are among them, so rows and order are the unsplit query's."""
        if self.scan_above is not None:
            return self._ranked_scan_above(filters, params, self.scan_above)
        if sql.SUBJECT_FILTER in filters and self._narrow(params["subject"]):
            return self.conn.execute(sql.recall_query(fts=False, filters=filters),
                                     params).fetchall()
        cuts = self._age.recent_enough(filters, params)  # store/age_bound.py
        if cuts is not None:
            # before any LIKE: an old row is then dropped without reading its text
            filters = [filters[0], sql.RECENT_ENOUGH, *filters[1:]]
            params = {**params, **cuts}
        parts = self._scans.split_rows(sql.ranked_ids_query([*filters, sql.IN_RANGE]), params)
        if parts is not None:
            filters = [*filters, sql.AMONG_IDS]
            params = {**params, "ids": json.dumps([i for part in parts for (i,) in part])}
        return self.conn.execute(sql.recall_query(fts=False, filters=filters), params).fetchall()

    def _narrow(self, subject: str) -> bool:
        """Whether ``subject`` has fewer than ``NARROW_SCAN_ROWS`` rows (counted in its index,
        at most that many)."""
        bound = NARROW_SCAN_ROWS
        if bound <= 0:
            return False
        (n,) = self.conn.execute(sql.SUBJECT_ROWS_UP_TO,
                                 {"subject": subject, "bound": bound}).fetchone()
        return int(n) < bound

    def _ranked_scan_above(self, filters: list[str], params: dict[str, Any], above: int
                           ) -> list[Any]:
        """The scanning recall query over the rows with an id above ``above`` only."""
        return self.conn.execute(sql.recall_query(fts=False, filters=[*filters, sql.ABOVE_ID]),
                                 {**params, "above": above}).fetchall()
