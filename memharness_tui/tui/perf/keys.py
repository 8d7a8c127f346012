"""Keys reach a text box in the order they were typed.

Textual forwards every key to the focused widget. An ``Input`` types a printable key at once,
in its own turn; a key it does not type (Left, Home, Ctrl+A, Ctrl+K, Enter…) it passes up to
its parent, which passes it up again, until the app's ``_on_key`` runs its binding
(``App._check_bindings``) — several message queues later. The characters typed right behind
that key have by then been typed where the cursor still was: ``Left Left X`` sent at once to
``abc`` gave ``abcX``, and ``Ctrl+A Ctrl+K 2026-01-01 Enter`` emptied the time-travel box.

This replaces that last leg for a focused text box (``Input``, ``TextArea``): the app checks the
priority bindings as Textual does, then hands the key to the box's own queue
(``call_later``), where it waits behind the characters typed before it; in the box's turn its
binding runs (``App._check_bindings``, from the focused widget up, as ``App._on_key`` does).
A key no binding takes is forwarded to the box as Textual would have (``_forward_event``).
What differs from Textual: an ancestor's own ``on_key`` no longer sees a key a binding takes
(the app has none over a text box), and a tooltip is not cleared by such a key.
"""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from textual import events
from textual.app import App
from textual.widget import Widget
from textual.widgets import Input


def _text_box(widget: Widget) -> bool:
    """``Input`` or ``TextArea`` (imported only once a widget that types has focus)."""
    if isinstance(widget, Input):
        return True
    if not widget.check_consume_key("x", "x"):
        return False
    from textual.widgets import TextArea

    return isinstance(widget, TextArea)


def _types(box: Widget, event: events.Key) -> bool:
    """Whether ``box`` types ``event`` itself (its own key handler takes it, in its turn)."""
    if box.check_consume_key(event.key, event.character):
        return True
    if isinstance(box, Input):
        return False
    from textual.widgets import TextArea

    # TextArea's handler also takes Enter (a new line), and Escape when Tab indents.
    return isinstance(box, TextArea) and not box.read_only and (
        event.key == "enter" or box.tab_behavior == "indent" and event.key == "escape")


_behind: WeakKeyDictionary[Widget, int] = WeakKeyDictionary()
"""Per text box: keys waiting in its queue for their turn (a binding's key and those after it)."""


async def keep_key_order(app: App[Any], event: events.Event) -> bool:
    """Take a key from the terminal that the focused text box will not type, and every key
    behind such a key until its turn came; True if taken.

    Called by the app before Textual's ``App.on_event``; False leaves the event to Textual.
    """
    if not isinstance(event, events.Key) or event.is_forwarded:
        return False
    box = app.focused
    if box is None or not _text_box(box) or app.screen.maximized is not None \
            or (_types(box, event) and not _behind.get(box)):
        return False
    if not app.app_focus:
        app.app_focus = True
    if await app._check_bindings(event.key, priority=True):
        return True
    _behind[box] = _behind.get(box, 0) + 1
    box.call_later(_in_turn, app, box, event)
    return True


async def _in_turn(app: App[Any], box: Widget, event: events.Key) -> None:
    """The key in ``box``'s turn (after the keys typed before it): typed there if the box still
    has the focus and types it, else its binding from the focused widget up, else forwarded to
    the focused widget — where a key typed behind a key that moved the focus belongs."""
    _behind[box] = _behind.get(box, 1) - 1
    focused = app.focused
    if focused is box and _types(box, event):
        await box._dispatch_message(event)  # typed now, before the keys queued behind it
        return
    if await app._check_bindings(event.key):
        return
    target = focused if focused is not None else box
    if target.is_attached:
        target._forward_event(event)
