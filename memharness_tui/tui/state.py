"""The app's shared state that is not a plain reactive: the staleness session.

``MemharnessApp`` owns one :class:`StalenessSession` (this database's repos live in the app's
``repos`` reactive; the options and the reasons for verdicts live here). Panes read it from the
app; none of them reads another pane's attributes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memharness_tui.tui.services.passes import PassProgress

DEFAULT_FACTOR = 0.5


@dataclass
class StalenessOptions:
    """Knobs for a staleness pass; tests set ``app.staleness_options`` to freeze time and pace."""

    clock: Any = None  # the pass's store clock (None: the system clock)
    timer: Callable[[], float] = time.perf_counter  # elapsed and rate
    batch_size: int = 200
    factor: float = DEFAULT_FACTOR
    repos: list[str] | None = None  # None: the list saved for this database (default: cwd's repo)
    cwd: str | None = None  # for the default repo and short display paths
    throttle: Callable[[PassProgress], None] | None = None  # called in the pass thread per event
    drift_delay: float = 0.15  # debounce before computing drift for rows on screen
    follow_poll: float = 1.0  # follow mode: seconds between HEAD reads
    follow_settle: float = 3.0  # follow mode: a pass runs this long after HEAD last moved


@dataclass
class StalenessSession:
    """Why facts have their verdicts, as learned in this session.

    ``reasons``: from the last pass and from the app's own writes (authoritative).
    ``seen``: what git said when the flagged list was last judged (a fallback).
    """

    reasons: dict[int, str] = field(default_factory=dict)
    seen: dict[int, str] = field(default_factory=dict)

    def new_pass(self) -> None:
        self.reasons.clear()

    def note(self, reasons: Mapping[int, str]) -> None:
        self.reasons.update(reasons)

    def note_seen(self, reasons: Mapping[int, str]) -> None:
        self.seen = dict(reasons)

    def reason_for(self, fact_id: int) -> str | None:
        reason = self.reasons.get(fact_id)
        return reason if reason is not None else self.seen.get(fact_id)
