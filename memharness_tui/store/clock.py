"""Clocks that issue strictly increasing canonical timestamps (SPEC §4, fixtures/README)."""

from __future__ import annotations

import threading
import time
from typing import Protocol

from .timeutil import format_ms, parse_ms


class Clock(Protocol):
    def now(self) -> str:
        """Issue a timestamp (consumes it)."""
        ...

    def peek(self) -> str:
        """The instant now() would issue next, without consuming it."""
        ...


class SystemClock:
    """Wall clock; issued stamps strictly increase across the whole process.

    The last issued millisecond is shared by every SystemClock, so two Stores in one
    process (the app's and a staleness pass's) never issue the same or an older stamp.
    """

    _last = 0
    _lock = threading.Lock()

    def now(self) -> str:
        cls = SystemClock
        with cls._lock:
            ms = time.time_ns() // 1_000_000
            if ms <= cls._last:
                ms = cls._last + 1
            cls._last = ms
            return format_ms(ms)

    def peek(self) -> str:
        return format_ms(max(time.time_ns() // 1_000_000, SystemClock._last + 1))


class FakeClock:
    """Deterministic clock: now() returns the current instant, then advances by ``step_ms``."""

    def __init__(self, start: str = "2026-01-01T00:00:00.000Z", step_ms: int = 1000) -> None:
        from .timeutil import normalize_iso

        self._ms = parse_ms(normalize_iso(start, "clock start"))
        self.step_ms = step_ms
        self._last = -(10**18)
        self._lock = threading.Lock()

    def now(self) -> str:
        with self._lock:
            issue = self._ms
            if issue <= self._last:
                issue = self._last + 1
            self._last = issue
            self._ms = issue + self.step_ms
            return format_ms(issue)

    def advance(self, ms: int) -> None:
        """Move the clock without issuing a timestamp."""
        with self._lock:
            self._ms += ms

    def peek(self) -> str:
        return format_ms(self._ms)
