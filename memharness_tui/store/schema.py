"""Migrations m001..m005 (SPEC §3): forward-only DDL, one list of statements per version.

Each entry is split into single statements on purpose: Peewee's ``execute_sql``
runs one statement, and ``executescript`` would commit the migration transaction.
The object names matter — the reference server looks for them.
"""

from __future__ import annotations

_FTS_TRIGGERS = [
    """CREATE TRIGGER facts_ai AFTER INSERT ON facts BEGIN
  INSERT INTO facts_fts(rowid, subject, predicate, fact)
  VALUES (new.id, new.subject, new.predicate, new.fact);
END""",
    """CREATE TRIGGER facts_ad AFTER DELETE ON facts BEGIN
  INSERT INTO facts_fts(facts_fts, rowid, subject, predicate, fact)
  VALUES ('delete', old.id, old.subject, old.predicate, old.fact);
END""",
    """CREATE TRIGGER facts_au AFTER UPDATE ON facts BEGIN
  INSERT INTO facts_fts(facts_fts, rowid, subject, predicate, fact)
  VALUES ('delete', old.id, old.subject, old.predicate, old.fact);
  INSERT INTO facts_fts(rowid, subject, predicate, fact)
  VALUES (new.id, new.subject, new.predicate, new.fact);
END""",
]

M001 = [
    """CREATE TABLE facts (
  id            INTEGER PRIMARY KEY,
  subject       TEXT NOT NULL,
  predicate     TEXT NOT NULL DEFAULT '',
  fact          TEXT NOT NULL,
  confidence    REAL NOT NULL DEFAULT 1.0 CHECK (confidence >= 0 AND confidence <= 1),
  valid_from    TEXT NOT NULL,
  valid_to      TEXT,
  tx_at         TEXT NOT NULL,
  superseded_by INTEGER REFERENCES facts(id),
  source_agent  TEXT NOT NULL DEFAULT '',
  source_ref    TEXT NOT NULL DEFAULT '',
  retracted_at  TEXT,
  embedding     BLOB
)""",
    "CREATE INDEX idx_facts_subject ON facts(subject)",
    "CREATE INDEX idx_facts_current ON facts(valid_to) WHERE valid_to IS NULL",
    "CREATE INDEX idx_facts_tx ON facts(tx_at)",
    "CREATE INDEX idx_facts_source_ref ON facts(source_ref)",
    "CREATE INDEX idx_facts_superseded_by ON facts(superseded_by)",
    """CREATE VIRTUAL TABLE facts_fts USING fts5(
  subject, predicate, fact, content='facts', content_rowid='id'
)""",
    *_FTS_TRIGGERS,
]

M002 = [
    "DROP TRIGGER facts_ai",
    "DROP TRIGGER facts_ad",
    "DROP TRIGGER facts_au",
    "DROP TABLE facts_fts",
    """CREATE VIRTUAL TABLE facts_fts USING fts5(
  subject, predicate, fact, content='facts', content_rowid='id',
  tokenize='porter unicode61'
)""",
    *_FTS_TRIGGERS,
    "INSERT INTO facts_fts(facts_fts) VALUES ('rebuild')",
]

M003 = [
    "ALTER TABLE facts ADD COLUMN importance INTEGER NOT NULL DEFAULT 5\n"
    "  CHECK (importance BETWEEN 1 AND 10)",
    "ALTER TABLE facts ADD COLUMN kind TEXT NOT NULL DEFAULT 'semantic'\n"
    "  CHECK (kind IN ('semantic','episodic','procedural'))",
    "ALTER TABLE facts ADD COLUMN last_accessed_at TEXT",
]

M004 = [
    "ALTER TABLE facts ADD COLUMN embedding_dim INTEGER",
    "ALTER TABLE facts ADD COLUMN embedding_model TEXT",
]

M005 = [
    "ALTER TABLE facts ADD COLUMN source_commit TEXT",
    "ALTER TABLE facts ADD COLUMN source_path TEXT",
    "ALTER TABLE facts ADD COLUMN freshness TEXT\n"
    "  CHECK (freshness IS NULL OR freshness IN ('current','stale','unresolved'))",
    "ALTER TABLE facts ADD COLUMN checked_at TEXT",
    "ALTER TABLE facts ADD COLUMN checked_head TEXT",
    """CREATE INDEX idx_facts_pinned ON facts(source_commit)
  WHERE source_commit IS NOT NULL AND retracted_at IS NULL AND superseded_by IS NULL""",
]

MIGRATIONS: list[list[str]] = [M001, M002, M003, M004, M005]
SCHEMA_VERSION = len(MIGRATIONS)
