"""Argument validation shared by every Store method (SPEC §6, §10): one message per rule.

Public so the app's forms use the store's own rules rather than a copy.
"""

from __future__ import annotations

import math

from .errors import InvalidInput, InvalidText, QueryTooLong
from .timeutil import js_split, js_trim
from .types import KINDS

_INT64_MAX = 2**63 - 1

#: Recall's bound on the search text (ours; the reference has none and fails past ~50,000
#: characters with "LIKE or GLOB pattern too complex"). Beyond either limit recall refuses
#: at once with QueryTooLong instead of running: AND/OR over n phrases costs about n^1.5
#: (1,000 words ≈ 0.8 s, 5,000 ≈ 6.6 s on 5k facts), and a 10 MB paste ran for minutes.
#: 10,000 characters also keep the LIKE fallback's pattern (≤ 4 bytes a character) under
#: SQLite's 50,000-byte limit.
MAX_QUERY_CHARS = 10_000
MAX_QUERY_WORDS = 256


def no_surrogates(value: str, label: str) -> str:
    """SQLite stores UTF-8: a lone surrogate (e.g. from undecodable argv) cannot be stored."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidText(
            f"{label} is not valid UTF-8 text (it holds undecodable bytes or a lone surrogate); "
            "nothing was stored or searched — pass it as UTF-8"
        ) from None
    return value


def require_text(value: object, label: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{label} must be a non-empty string")
    trimmed = js_trim(no_surrogates(value, label))
    if trimmed == "":
        raise InvalidInput(f"{label} must be a non-empty string")
    return trimmed


def check_confidence(value: object) -> float:
    """SPEC §6/§10: a real number in [0, 1] (not a bool, not a string). Public: forms use it."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or math.isnan(value)
        or value < 0
        or value > 1
    ):
        raise InvalidInput(f"confidence must be a number in [0, 1], got {value!r}")
    return float(value)


def check_importance(value: object) -> int:
    """SPEC §6/§10: an integer 1..10 (5.0 counts as 5). Public: forms use it."""
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or (isinstance(value, float) and not value.is_integer()) or not 1 <= value <= 10):
        raise InvalidInput(f"importance must be an integer in [1, 10], got {value!r}")
    return int(value)


def check_kind(value: object) -> str:
    if value not in KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(KINDS)}, got {value!r}")
    return str(value)


def check_str(value: object, label: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{label} must be a string, got {value!r}")
    return no_surrogates(value, label)


def check_pin(value: object, label: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{label} must be a string, got {value!r}")
    trimmed = js_trim(no_surrogates(value, label))
    return trimmed or None


def check_positive_int(value: object, label: str) -> int:
    """A positive integer; an integral float (3.0, as JSON clients send) counts, as for importance."""
    whole = int(value) if isinstance(value, float) and value.is_integer() else value
    if isinstance(whole, bool) or not isinstance(whole, int) or not 1 <= whole <= _INT64_MAX:
        raise InvalidInput(f"{label} must be a positive integer, got {value!r}")
    return whole


def check_id(value: object, label: str = "id") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > _INT64_MAX:
        raise InvalidInput(f"{label} must be an integer fact id, got {value!r}")
    return value


def check_query(query: object) -> str:
    """The trimmed search text, refused (QueryTooLong) beyond MAX_QUERY_CHARS / MAX_QUERY_WORDS."""
    if query is None:
        return ""
    if isinstance(query, str) and len(query) > MAX_QUERY_CHARS:
        # Checked before anything else looks at it: a 10 MB paste is refused at once.
        query = js_trim(query)
        if len(query) > MAX_QUERY_CHARS:
            raise QueryTooLong(
                f"the search text is too long ({len(query):,} characters; recall takes at most "
                f"{MAX_QUERY_CHARS:,}) — search for a few distinctive words instead"
            )
    text = js_trim(check_str(query, "query"))
    words = len(js_split(text))
    if words > MAX_QUERY_WORDS:
        raise QueryTooLong(
            f"the search text has {words:,} words (recall takes at most {MAX_QUERY_WORDS}) — "
            "search for a few distinctive words instead"
        )
    return text
