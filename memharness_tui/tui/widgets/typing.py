"""Typing on a list starts a search: where a printable key that no binding takes goes.

The recall results have focus at launch while the box above them says "type to search…";
typing ``pass`` there toggled the agent view (``a``) and lost the rest. A printable key that
no active binding takes (so ``1``–``4``, ``?``, ``a``, ``t``, ``q``… keep their jobs) moves
focus to the box and is typed there; the keys that reached the list after that (the rest of
a fast burst, queued before focus moved) follow it, in order.
"""

from __future__ import annotations

from textual import events
from textual.widget import Widget
from textual.widgets import Input


def route_typing(source: Widget, event: events.Key, box: Input | None) -> bool:
    """Send ``event`` (a key ``source`` received) to ``box`` when it is typing; True if sent."""
    if box is None or not event.is_printable:
        return False
    screen = source.screen
    if screen.focused is not box:
        if screen.focused is not source or event.key in screen.active_bindings:
            return False
        screen.set_focus(box)  # at once: the keys queued behind this one go there
    event.stop()
    event.prevent_default()
    box.post_message(events.Key(event.key, event.character))
    return True
