"""Has a resize been laid out yet, on a screen and every screen under it?

Reads ``Screen._compositor.size`` and ``App._background_screens`` (Textual has no public
"laid out at this size" for a screen). The fact detail screen uses it to fill its chain for
the width it will be drawn at, in the resize's own frame, instead of one frame later (the
late ~20 ms frame after an open, bench/README.md "open a fact").
"""

from __future__ import annotations

from typing import Any

from textual.geometry import Size
from textual.screen import Screen


def laid_out_at(screen: Screen[Any], size: Size) -> bool:
    """True once ``screen`` and the screens shown under it were arranged at ``size``."""
    app = screen.app
    return all(s._compositor.size == size for s in (screen, *app._background_screens))
