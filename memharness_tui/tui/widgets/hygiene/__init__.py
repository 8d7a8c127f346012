"""The Hygiene tab: every way a memory rots, listed by kind, fixed by hand."""

from memharness_tui.tui.widgets.hygiene.flags import FIXES, GROUPS, Flag, flags_of
from memharness_tui.tui.widgets.hygiene.pane import HygienePane

__all__ = ["FIXES", "GROUPS", "Flag", "HygienePane", "flags_of"]
