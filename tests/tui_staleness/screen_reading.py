"""Reading what a pass or a bulk action did from the screen, as a person does (issue #22: no
attribute exists only for tests): the counters line, and the triage toast."""

from __future__ import annotations

import re
from typing import Any

from .conftest import shown_summary


def shown_error(dash: Any) -> str | None:
    """The error the counters line shows after a failed pass (``✗ why``); None when it shows
    anything else (a pass's summary, its progress, the idle line)."""
    text = shown_summary(dash)
    return text[2:] if text.startswith("✗ ") else None


def triage_toasts(app: Any) -> list[str]:
    """Every bulk action's toast shown so far (oldest first), titled by the action."""
    from memharness_tui.tui.widgets.staleness.triage import BULK_TITLES

    return [n.message for n in app._notifications if n.title in BULK_TITLES.values()]


def triage_said(app: Any) -> tuple[list[tuple[int, int]], list[int]]:
    """The last triage toast, read back: its (old id, new id) pairs and the skipped ids."""
    said = triage_toasts(app)
    assert said, "no triage toast was shown"
    changed, _, skipped = said[-1].partition("; skipped ")
    pairs = [(int(a), int(b)) for a, b in re.findall(r"#(\d+) → #(\d+)", changed)]
    ids = [int(i) for i in re.findall(r"(?:: |; )#(\d+) ", skipped)]
    return pairs, ids
