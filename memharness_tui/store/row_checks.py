"""Rows the file holds that the store reads around, found for ``doctor`` (read-only).

Text that is not valid UTF-8 (a lone surrogate the reference's driver stored as ED A0 80)
reads with U+FFFD in its place (``db.LENIENT_TEXT``); a vector blob whose length is not
``embedding_dim`` float32 numbers makes sqlite-vec refuse the whole hybrid recall — the
reference's as well as ours. Each check names the rows, so a person can find and fix them.
"""

from __future__ import annotations

from typing import Any

BAD_VECTORS = """SELECT id, embedding_dim FROM facts
WHERE embedding IS NOT NULL AND (typeof(embedding) != 'blob' OR embedding_dim IS NULL
  OR typeof(embedding_dim) != 'integer' OR embedding_dim < 1
  OR length(embedding) != 4 * embedding_dim)
ORDER BY id"""
"""Vectors sqlite-vec cannot compare as their ``embedding_dim`` says (a blob of the wrong
length, one that is not a whole number of float32s, a missing or non-positive dimension)."""


def text_columns(conn: Any) -> list[str]:
    """The ``facts`` columns declared TEXT (the schema version decides which there are)."""
    return [str(r[1]) for r in conn.execute("PRAGMA table_info(facts)")
            if str(r[2]).upper() == "TEXT"]


def undecodable_text(conn: Any) -> list[int]:
    """Ids of the facts with a TEXT value that is not valid UTF-8, in id order.

    Reads each text column as its raw bytes (``CAST … AS BLOB``): one pass over the table,
    no row decoded by SQLite's text path, nothing written."""
    cols = text_columns(conn)
    if not cols:
        return []
    casts = ", ".join(f'CAST("{c}" AS BLOB)' for c in cols)
    found: list[int] = []
    for row in conn.execute(f"SELECT id, {casts} FROM facts ORDER BY id"):  # noqa: S608 (column names from the schema)
        for value in row[1:]:
            if value is None:
                continue
            try:
                bytes(value).decode("utf-8")
            except UnicodeDecodeError:
                found.append(int(row[0]))
                break
    return found


def bad_vectors(conn: Any) -> list[tuple[int, int | None]]:
    """(id, embedding_dim) of the facts whose vector blob does not hold ``embedding_dim``
    float32 numbers; the dimension is None where it is missing or not a positive integer
    (the vector leg never reads such a row)."""
    cols = {str(r[1]) for r in conn.execute("PRAGMA table_info(facts)")}
    if not {"embedding", "embedding_dim"} <= cols:
        return []
    return [(int(i), d if isinstance(d, int) and d > 0 else None)
            for i, d in conn.execute(BAD_VECTORS)]


def some_ids(ids: list[int], most: int = 10) -> str:
    """``#3, #9`` — at most ``most`` of them, then how many more."""
    shown = ", ".join(f"#{i}" for i in ids[:most])
    return shown + (f" and {len(ids) - most:,} more" if len(ids) > most else "")
