"""Canonical timestamps (SPEC §4) and JavaScript-compatible string trimming (SPEC §10)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from .errors import InvalidInput

# Exactly the characters JavaScript's String.prototype.trim removes.
_JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \u00a0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


_JS_SPLIT = re.compile(f"[{re.escape(_JS_WHITESPACE)}]+")


def js_trim(value: str) -> str:
    """Trim like JS ``String.prototype.trim`` (not Python's ``str.strip``)."""
    return value.strip(_JS_WHITESPACE)


def js_split(value: str) -> list[str]:
    """Split on runs of whitespace like JS ``value.split(/\\s+/).filter(Boolean)``."""
    return [t for t in _JS_SPLIT.split(value) if t]


_ISO_RE = re.compile(
    r"""^(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})
        (?:[Tt ](?P<h>\d{2}):(?P<mi>\d{2})
            (?::(?P<s>\d{2})(?:[.,](?P<frac>\d+))?)?
            (?P<tz>[Zz]|[+-]\d{2}(?::?\d{2})?)?
        )?$""",
    re.VERBOSE | re.ASCII,
)


def format_ts(dt: datetime) -> str:
    """Canonical fixed-width UTC form: ``YYYY-MM-DDTHH:MM:SS.sssZ``."""
    dt = dt.astimezone(UTC)
    # Not strftime: its %Y does not zero-pad years below 1000 on every platform.
    return (
        f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T{dt.hour:02d}:{dt.minute:02d}:"
        f"{dt.second:02d}.{dt.microsecond // 1000:03d}Z"
    )


def format_ms(epoch_ms: int) -> str:
    return format_ts(datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=epoch_ms))


def parse_ms(canonical: str) -> int:
    """Epoch milliseconds of a canonical timestamp."""
    dt = datetime.strptime(canonical, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return (dt - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(milliseconds=1)


def normalize_iso(value: object, field: str = "timestamp") -> str:
    """Normalize an ISO 8601 date or datetime to the canonical UTC form.

    A bare date is midnight UTC; no offset means UTC (never machine-local);
    offsets are converted; fractions beyond milliseconds are dropped.
    Impossible dates and times are rejected rather than rolled over.
    """
    if not isinstance(value, str):
        raise InvalidInput(f"{field} must be an ISO 8601 date or datetime string, got {value!r}")
    text = js_trim(value)
    m = _ISO_RE.match(text)
    if m is None:
        raise InvalidInput(
            f"{field} is not a valid ISO 8601 date or datetime: {value!r} "
            "(expected e.g. 2026-01-31 or 2026-01-31T14:05:00Z)"
        )
    try:
        year, month, day = int(m["y"]), int(m["mo"]), int(m["d"])
        hour = int(m["h"] or 0)
        minute = int(m["mi"] or 0)
        second = int(m["s"] or 0)
        millis = int((m["frac"] or "0")[:3].ljust(3, "0"))
        tz = UTC
        tzs = m["tz"]
        if tzs and tzs not in ("Z", "z"):
            sign = -1 if tzs[0] == "-" else 1
            digits = tzs[1:].replace(":", "")
            oh, om = int(digits[:2]), int(digits[2:4] or 0)
            if oh > 23 or om > 59:
                raise ValueError("offset out of range")
            tz = timezone(sign * timedelta(hours=oh, minutes=om))
        if year < 1:
            raise ValueError("year out of range")
        dt = datetime(year, month, day, hour, minute, second, millis * 1000, tzinfo=tz)
        utc = dt.astimezone(UTC)
    except (ValueError, OverflowError) as exc:
        raise InvalidInput(f"{field} is not a valid date or time: {value!r} ({exc})") from None
    return format_ts(utc)
