"""Every SQL string of the store (named parameters, run on the sqlite3 connection directly)."""

from __future__ import annotations

from collections.abc import Callable

from .types import FACT_COLUMNS

COLS = ", ".join(f"f.{c}" for c in FACT_COLUMNS)


def run_time(param: str) -> str:
    """A LIMIT or OFFSET parameter as ``:param + 0``, never a bare ``:param``.

    SQLite (3.47 and later) plans a bare parameter there with the value bound at the time and
    marks the statement to be prepared again whenever that parameter is bound, which is every
    call: the recall query was compiled anew on each keystroke (~6 % of a recall's
    instructions). An expression is read when the statement runs, so the cached statement is
    reused; the plans are the same (tests/store/test_sql_limits.py checks both).
    """
    return f":{param} + 0"


LIMIT = f"LIMIT {run_time('limit')}"

INSERT_FACT = """INSERT INTO facts (subject, predicate, fact, confidence, importance, kind,
  valid_from, valid_to, tx_at, source_agent, source_ref, source_commit, source_path)
VALUES (:subject, :predicate, :fact, :confidence, :importance, :kind,
  :valid_from, NULL, :tx_at, :source_agent, :source_ref, :source_commit, :source_path)"""

GET_FACT = f"SELECT {COLS} FROM facts f WHERE f.id = ?"
GET_PREDECESSOR = f"SELECT {COLS} FROM facts f WHERE f.superseded_by = ?"
SUPERSEDE_FACT = "UPDATE facts SET valid_to = :ts, superseded_by = :new_id WHERE id = :old_id"
RETRACT_BY_ID = (
    "UPDATE facts SET retracted_at = :ts WHERE id = :id AND retracted_at IS NULL RETURNING id"
)
RETRACT_BY_SOURCE_REF = (
    "UPDATE facts SET retracted_at = :ts WHERE source_ref = :source_ref "
    "AND retracted_at IS NULL RETURNING id"
)
MAX_TX_AT = "SELECT MAX(tx_at) FROM facts"
MAX_ID = "SELECT COALESCE(MAX(id), 0) FROM facts"
DATA_VERSION = "PRAGMA data_version"
# One id range of a whole-table scan split across threads (store/split_scan.py).
IN_RANGE = "f.id > :lo AND f.id <= :hi"


# The belief rules (SPEC §6/§7), defined once. ``f`` is the table's alias and ``t`` the
# instant's placeholder: the SQL strings here use ``f.`` and a named parameter; the Peewee
# queries of store/browse.py render the same text with bare columns and ``?``
# (``peewee_rule``), so the two paths cannot drift apart.
def known_rule(f: str = "f.", t: str = ":as_of") -> str:
    """Rows the store had learned by ``t``: the scope of a time-travel view's totals."""
    return f"{f}tx_at <= {t}"


def as_of_rule(f: str = "f.", t: str = ":as_of") -> str:
    """Believed at ``t``: known by then, valid from then, not yet ended nor retracted."""
    return f"""{known_rule(f, t)} AND {f}valid_from <= {t}
  AND ({f}valid_to IS NULL OR {f}valid_to > {t})
  AND ({f}retracted_at IS NULL OR {f}retracted_at > {t})"""


def current_rule(f: str = "f.", t: str = ":now") -> str:
    """Believed now: valid from ``t`` on, never ended, superseded or retracted."""
    return (f"{f}valid_from <= {t} AND {f}valid_to IS NULL AND {f}superseded_by IS NULL "
            f"AND {f}retracted_at IS NULL")


def peewee_rule(rule: Callable[..., str]) -> tuple[str, int]:
    """A rule above as a Peewee ``SQL`` fragment (bare columns, ``?``) and how many times the
    instant is bound."""
    text = rule(f="", t="?")
    return f"({text})", text.count("?")


CURRENT_FILTER = current_rule()
AS_OF_FILTER = as_of_rule()
SUBJECT_FILTER = "f.subject = :subject"
KIND_FILTER = "f.kind = :kind"
FRESHNESS_FILTER = "f.freshness = :freshness"
UNCHECKED_FILTER = "f.freshness IS NULL"
LIKE_FILTER = """(f.subject LIKE :pattern ESCAPE '\\'
  OR f.predicate LIKE :pattern ESCAPE '\\'
  OR f.fact LIKE :pattern ESCAPE '\\')"""

EFFECTIVE_HALFLIFE = """((CASE f.kind
     WHEN 'episodic'   THEN :hl_episodic
     WHEN 'procedural' THEN :hl_procedural
     ELSE :hl_semantic
   END) * max(:min_hl_factor, 1.0 + :importance_hl_weight * (f.importance - 5)))"""
AGE = "max(0, julianday(:now) - julianday(COALESCE(f.last_accessed_at, f.tx_at)))"
DECAY = f"pow(0.5, {AGE} / {EFFECTIVE_HALFLIFE})"
IMPORTANCE_BOOST = "(1.0 + :importance_weight * (f.importance - 5))"
FRESHNESS_FACTOR = """(CASE f.freshness
  WHEN 'stale'      THEN :stale_weight
  WHEN 'unresolved' THEN :unresolved_weight
  ELSE 1.0 END)"""


# The FTS candidates: the best ``cap`` matches by rank, numbered. The reference writes
# ``ORDER BY rank LIMIT cap``, which FTS5 serves by sorting EVERY match (its rank sort does
# not know the LIMIT): a term in every row sorted all 100k. ``ORDER BY +rank`` is the same
# order (the same rank column, the table's own rank function) sorted by SQLite with the
# LIMIT, keeping ``cap`` rows; both sorts keep equal ranks in rowid order, as FTS5 yields
# them, so the ids and their numbers are the reference's (tests/store/test_fts_candidates.py).
FTS_CANDIDATES = f"""
  SELECT id, row_number() OVER (ORDER BY r) AS fts_rank FROM (
    SELECT rowid AS id, rank AS r FROM facts_fts WHERE facts_fts MATCH :match
    ORDER BY +rank LIMIT {run_time('cap')})
"""


def recall_query(*, fts: bool, filters: list[str]) -> str:
    """The ranked recall SELECT; the FTS variant drives from the capped match set."""
    where = f"WHERE {' AND '.join(filters)}" if filters else ""
    tail = f"{IMPORTANCE_BOOST} * {DECAY} * {FRESHNESS_FACTOR}"
    if fts:
        # MATERIALIZED pins the join order: drive from the small FTS candidate set.
        return f"""WITH m AS MATERIALIZED ({FTS_CANDIDATES})
SELECT {COLS}, m.fts_rank AS fts_rank,
  (1.0 / (:rrf_k + m.fts_rank)) * f.confidence * {tail} AS score
FROM m CROSS JOIN facts f ON f.id = m.id
{where}
ORDER BY score DESC, f.tx_at DESC, f.id DESC
{LIMIT}"""
    # Rank on (score, tx_at, id) alone, then read the winners' columns: a LIMIT sort builds
    # a record of every selected column for every row it sees (~10 % of a 1M-row scan).
    return f"""WITH top AS MATERIALIZED (
  SELECT f.id AS id, f.tx_at AS tx_at, 1.0 * f.confidence * {tail} AS score
  FROM facts f
  {where}
  ORDER BY score DESC, f.tx_at DESC, f.id DESC
  {LIMIT}
)
SELECT {COLS}, NULL AS fts_rank, top.score AS score
FROM top CROSS JOIN facts f ON f.id = top.id
ORDER BY top.score DESC, top.tx_at DESC, top.id DESC"""


def ranked_ids_query(filters: list[str]) -> str:
    """The ids the scanning recall query would rank first (``:limit`` of them): one id range's
    share of a split scan (store/split_scan.py). ``AMONG_IDS`` then ranks their union."""
    tail = f"{IMPORTANCE_BOOST} * {DECAY} * {FRESHNESS_FACTOR}"
    return f"""SELECT f.id FROM facts f
WHERE {' AND '.join(filters)}
ORDER BY 1.0 * f.confidence * {tail} DESC, f.tx_at DESC, f.id DESC
{LIMIT}"""


# How many rows a subject has, counted in idx_facts_subject up to ``:bound`` (a narrow scan?).
SUBJECT_ROWS_UP_TO = f"""SELECT COUNT(*) FROM (SELECT 1 FROM facts WHERE subject = :subject
  LIMIT {run_time('bound')})"""
AMONG_IDS = "f.id IN (SELECT value FROM json_each(:ids))"
# A first screen (store/first_screen.py): the newest rows only (a rowid range, no scan below).
ABOVE_ID = "f.id > :above"
# Rows that may still score high enough (store/age_bound.py): a reference time on or after
# the cut date of the row's kind and importance, or one without a '-' fifth (not YYYY-MM-DD…:
# a number or a time of day, see store/age_bound.py), a confidence above 1 or an importance
# outside 1..10: those are always scored. ``:cut_min`` (the earliest cut) first, so an old
# row is dropped after three cheap tests, without the CASEs.
REF_TIME = "COALESCE(f.last_accessed_at, f.tx_at)"


def _cut_by_importance(kind: str) -> str:
    whens = " ".join(f"WHEN {i} THEN :cut_{kind}_{i}" for i in range(1, 11))
    return f"(CASE f.importance {whens} ELSE '' END)"


RECENT_ENOUGH = f"""(substr({REF_TIME}, 5, 1) != '-' OR f.confidence > 1
  OR f.importance NOT BETWEEN 1 AND 10
  OR ({REF_TIME} >= :cut_min AND {REF_TIME} >= (CASE f.kind
    WHEN 'episodic' THEN {_cut_by_importance('episodic')}
    WHEN 'procedural' THEN {_cut_by_importance('procedural')}
    ELSE {_cut_by_importance('semantic')} END)))"""


def top_scores_query(filters: list[str]) -> str:
    """The scanning recall's best ``:limit`` scores (store/age_bound.py learns theta here)."""
    tail = f"{IMPORTANCE_BOOST} * {DECAY} * {FRESHNESS_FACTOR}"
    return f"""SELECT 1.0 * f.confidence * {tail} AS score FROM facts f
WHERE {' AND '.join(filters)}
ORDER BY score DESC
{LIMIT}"""

REINFORCE_ACCESS = (
    "UPDATE facts SET last_accessed_at = ? WHERE id IN (SELECT value FROM json_each(?))"
)

DIFF_LEARNED = f"""SELECT {COLS} FROM facts f
WHERE f.tx_at >= :since AND f.superseded_by IS NULL AND f.retracted_at IS NULL
  AND (:subject IS NULL OR f.subject = :subject)
ORDER BY f.tx_at, f.id"""
DIFF_REVISED = f"""SELECT {COLS} FROM facts f
WHERE f.valid_to >= :since AND f.superseded_by IS NOT NULL
  AND (:subject IS NULL OR f.subject = :subject)
ORDER BY f.valid_to, f.id"""
# DIFF_REVISED and DIFF_RETRACTED in one table scan (neither column is indexed); the store
# splits and orders the rows exactly as the two queries would.
DIFF_REVISED_OR_RETRACTED = f"""SELECT {COLS},
  (f.valid_to >= :since AND f.superseded_by IS NOT NULL) AS revised,
  (f.retracted_at >= :since) AS retracted
FROM facts f
WHERE ((f.valid_to >= :since AND f.superseded_by IS NOT NULL) OR f.retracted_at >= :since)
  AND (:subject IS NULL OR f.subject = :subject)"""
DIFF_REVISED_OR_RETRACTED_IN_RANGE = f"{DIFF_REVISED_OR_RETRACTED} AND {IN_RANGE}"
DIFF_RETRACTED = f"""SELECT {COLS} FROM facts f
WHERE f.retracted_at >= :since
  AND (:subject IS NULL OR f.subject = :subject)
ORDER BY f.retracted_at, f.id"""

STATS_TOTAL = "SELECT COUNT(*) FROM facts"
STATS_CURRENT = f"SELECT COUNT(*) FROM facts f WHERE {CURRENT_FILTER}"
STATS_TOP_SUBJECTS = f"""SELECT f.subject, COUNT(*) AS c FROM facts f
WHERE {CURRENT_FILTER}
GROUP BY f.subject ORDER BY c DESC, f.subject LIMIT 10"""

LIVE = "f.superseded_by IS NULL AND f.retracted_at IS NULL"
# Current beliefs are live rows with valid_to NULL and valid_from <= now. No index covers
# them, so these scan the table once in rowid order (NOT INDEXED: walking idx_facts_current
# and looking each row up is ~1.8x slower at 1M rows). Each also returns the earliest
# valid_from still in the future: the answer holds for every "now" before it (the cache).
CURRENT_ROW = f"f.valid_to IS NULL AND {LIVE}"
COUNT_CURRENT = f"""SELECT COALESCE(SUM(f.valid_from <= :now), 0),
  MIN(CASE WHEN f.valid_from > :now THEN f.valid_from END)
FROM facts f NOT INDEXED WHERE {CURRENT_ROW}"""
# Rows per subject from the covering index (no table pages), and the rows per subject that
# are NOT current from one scan (a ~12 % minority at 1M, so the GROUP BY sorter stays small):
# current = total - not current. The GROUP BY over every row was 1.3 s at 1M rows.
SUBJECT_TOTALS = "SELECT f.subject, COUNT(*) FROM facts f GROUP BY f.subject ORDER BY f.subject"
SUBJECT_NOT_CURRENT = f"""SELECT f.subject, COUNT(*),
  MIN(CASE WHEN {CURRENT_ROW} AND f.valid_from > :now THEN f.valid_from END)
FROM facts f NOT INDEXED
WHERE NOT ({CURRENT_ROW} AND f.valid_from <= :now)
GROUP BY f.subject"""
# The same two scans over one id range (store/split_scan.py runs them a range per core).
COUNT_CURRENT_IN_RANGE = f"{COUNT_CURRENT} AND {IN_RANGE}"
SUBJECT_NOT_CURRENT_IN_RANGE = SUBJECT_NOT_CURRENT.replace(
    "\nGROUP BY", f" AND {IN_RANGE}\nGROUP BY")
COUNT_PINNED = f"""SELECT COUNT(*),
  COALESCE(SUM(f.freshness = 'stale'), 0),
  COALESCE(SUM(f.freshness = 'unresolved'), 0)
FROM facts f INDEXED BY idx_facts_pinned
WHERE f.source_commit IS NOT NULL AND {LIVE}"""

# Live rows with a stale/unresolved verdict, by id (no index holds freshness: a scan).
FLAGGED_IN_RANGE = f"""SELECT {COLS} FROM facts f
WHERE f.freshness IN (:first, :second) AND {LIVE} AND {IN_RANGE}
ORDER BY f.id
{LIMIT}"""

COUNT_SUBJECT = "SELECT COUNT(*) FROM facts WHERE subject = ?"


def newest_of_subject(filters: list[str]) -> str:
    """A subject's rows newest first, walking idx_facts_tx (see Store._newest_of_big_subject)."""
    return f"""SELECT {COLS} FROM facts f INDEXED BY idx_facts_tx
WHERE f.subject = :subject AND {' AND '.join(filters)}
ORDER BY f.tx_at DESC, f.id DESC
{LIMIT} OFFSET {run_time('offset')}"""


STALENESS_TARGETS = f"""SELECT id, source_ref, source_commit, source_path FROM facts
WHERE source_commit IS NOT NULL AND retracted_at IS NULL AND superseded_by IS NULL
  AND id > :after_id
ORDER BY id {LIMIT}"""
BACKFILL_CANDIDATES = f"""SELECT id, source_ref, source_commit, source_path FROM facts
WHERE source_commit IS NULL AND retracted_at IS NULL AND superseded_by IS NULL
  AND source_ref != '' AND id > :after_id
ORDER BY id {LIMIT}"""
SET_STALENESS = """UPDATE facts SET
  freshness = :freshness,
  checked_at = :checked_at,
  checked_head = :checked_head,
  source_commit = COALESCE(:source_commit, source_commit),
  source_path = COALESCE(:source_path, source_path)
WHERE id = :id"""
# The pass's writes (below) carry the guard: only rows still live (and, for a backfill, still
# unpinned) take a verdict, so a fact another process revised or retracted mid-pass is never
# touched. A verdict that adopts no pin (the common case) leaves source_commit out of SET: any
# SET of that column makes SQLite update idx_facts_pinned (~half the UPDATE's own cost).
# The pass's batch as ONE statement per kind: the verdicts travel as a JSON array of
# [freshness, checked_at, checked_head, id(, source_commit, source_path)] and the UPDATE joins
# it by rowid. facts_au still fires for every row, but FTS5 flushes its pending terms to a new
# index segment at every statement boundary, so one UPDATE per row meant one tiny segment (and
# the merges that follow) per verdict: per batch it is one. ``NOT INDEXED``: rowid lookups only
# (otherwise the planner may walk idx_facts_superseded_by for the liveness test).
_BATCH_ROWS = """(SELECT json_extract(value, '$[0]') AS freshness,
          json_extract(value, '$[1]') AS checked_at,
          json_extract(value, '$[2]') AS checked_head,
          json_extract(value, '$[3]') AS id,
          json_extract(value, '$[4]') AS source_commit,
          json_extract(value, '$[5]') AS source_path
   FROM json_each(?1)) AS v"""
SET_VERDICTS_LIVE_JSON = f"""UPDATE facts NOT INDEXED SET
  freshness = v.freshness, checked_at = v.checked_at, checked_head = v.checked_head
FROM {_BATCH_ROWS}
WHERE facts.id = v.id AND facts.retracted_at IS NULL AND facts.superseded_by IS NULL"""
SET_STALENESS_LIVE_JSON = f"""UPDATE facts NOT INDEXED SET
  freshness = v.freshness, checked_at = v.checked_at, checked_head = v.checked_head,
  source_commit = COALESCE(v.source_commit, facts.source_commit),
  source_path = COALESCE(v.source_path, facts.source_path)
FROM {_BATCH_ROWS}
WHERE facts.id = v.id AND facts.retracted_at IS NULL AND facts.superseded_by IS NULL
  AND (v.source_commit IS NULL OR facts.source_commit IS NULL)"""
# Which of a batch's ids (a JSON array) are live, and whether each is still unpinned, as one
# JSON object {id: 1 if unpinned else 0}: one row, so one SQLite step.
LIVE_AMONG = """SELECT json_group_object(id, source_commit IS NULL) FROM facts NOT INDEXED
WHERE id IN (SELECT value FROM json_each(?1)) AND retracted_at IS NULL AND superseded_by IS NULL"""
# One verdict (not the pass): numbered parameters bound from a tuple.
SET_VERDICT_SEQ = """UPDATE facts SET freshness = ?1, checked_at = ?2, checked_head = ?3
WHERE id = ?4"""
SET_STALENESS_SEQ = """UPDATE facts SET freshness = ?1, checked_at = ?2, checked_head = ?3,
  source_commit = COALESCE(?5, source_commit), source_path = COALESCE(?6, source_path)
WHERE id = ?4"""

FTS_INTEGRITY_CHECK = "INSERT INTO facts_fts(facts_fts, rank) VALUES ('integrity-check', 1)"
