"""The app's shared state that is not a plain reactive: the staleness session.

``MemharnessApp`` holds one :class:`StalenessSession` value in its ``session`` reactive (this
database's repos live in the app's ``repos`` reactive; the options and the reasons for verdicts
live here). Panes get it bound down and tell the app what they learned by message
(:class:`SessionNews`); none of them changes it or reads another pane's attributes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from textual.message import Message

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


@dataclass(frozen=True, eq=False)
class StalenessSession:
    """Why facts have their verdicts, as learned in this session: an immutable value.

    ``reasons``: from the last pass and from the app's own writes (authoritative).
    ``seen``: what git said when the flagged list was last judged (a fallback).

    The app holds it in its ``session`` reactive and is the only one that replaces it (from
    :class:`SessionNews`); panes get it bound down and redraw in a watcher. ``eq=False``: a new
    value is a change (comparing two maps of thousands of reasons at every event would cost
    more than the redraw it decides).
    """

    reasons: Mapping[int, str] = field(default_factory=lambda: MappingProxyType({}))
    seen: Mapping[int, str] = field(default_factory=lambda: MappingProxyType({}))

    def learned(self, news: SessionNews) -> StalenessSession:
        """This session after ``news`` (itself when the news changes nothing)."""
        session = self
        if news.new_pass:
            session = replace(session, reasons=MappingProxyType({}))
        if news.reasons:
            session = replace(session, reasons=MappingProxyType({**session.reasons,
                                                                 **news.reasons}))
        if news.seen is not None:
            session = replace(session, seen=MappingProxyType(dict(news.seen)))
        return session

    def reason_for(self, fact_id: int) -> str | None:
        reason = self.reasons.get(fact_id)
        return reason if reason is not None else self.seen.get(fact_id)


class SessionNews(Message):
    """Something learned about verdicts, for the app to fold into its ``session``: a pass
    started (``new_pass``: its reasons replace the last pass's), ``reasons`` from a pass or a
    write, or what git said when the flagged list was judged (``seen``, replacing the last)."""

    def __init__(self, *, reasons: Mapping[int, str] | None = None, new_pass: bool = False,
                 seen: Mapping[int, str] | None = None) -> None:
        super().__init__()
        self.reasons = reasons
        self.new_pass = new_pass
        self.seen = seen
