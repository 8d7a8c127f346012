"""The Staleness tab (issue #5): ``StalenessSlot`` is the dashboard main.py composes.

The dashboard lives in :mod:`memharness_tui.tui.widgets.dashboard`; this module keeps the
name main.py imports (and the ``reload()`` it calls after writes).
"""

from __future__ import annotations

from memharness_tui.tui.state import StalenessOptions
from memharness_tui.tui.widgets.dashboard import PassFailed, PassProgressed, StalenessDashboard

StalenessSlot = StalenessDashboard

__all__ = ["PassFailed", "PassProgressed", "StalenessDashboard", "StalenessOptions",
           "StalenessSlot"]
