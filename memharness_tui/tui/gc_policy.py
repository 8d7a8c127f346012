"""The app's garbage collector policy: paused for the start, frozen once built, full
collections while the user pauses.

Python's cyclic collector runs by itself as objects are made. For this app that meant:

- **During start-up** every collection walked all the objects the imports had just made
  (~190 collections, one of them full, ~50–60 ms of a 100k start). The early start pauses the
  collector (:func:`pause_for_start`) until the first results are painted (:func:`resume`),
  which freezes everything alive then — modules, styles, the screen — into the permanent
  generation, so later collections never walk it again.
- **Once every tab is built** the main screen freezes those too (:func:`freeze_long_lived`):
  a built screen holds ~170k tracked objects.
- **After that**, what a full collection walks is what the app made since: Textual's rendered
  strips and their caches (each ``Strip`` carries seven small caches), kept rows, results.
  At 1M facts that is ~75k objects, 25–30 ms a collection, and one came every few tab
  switches or facts opened, right in the middle of the frame the user was waiting for. So
  from then on Python's own full collections are pushed far back (:data:`SAFETY_FULL_AFTER`)
  and the app runs them when no key or mouse event has come for :data:`IDLE_SECONDS`
  (:func:`collect_if_due`), as often as Python would have (:data:`FULL_AFTER`). Young
  collections are unchanged. Cyclic garbage is still freed; under unbroken input the safety
  threshold still collects.

Frozen objects are still freed by reference counting. This module imports neither Textual
nor the store: the command line pauses the collector before Textual is imported.
"""

from __future__ import annotations

import gc

IDLE_SECONDS = 0.5
"""No input for this long: a full collection (25–30 ms at 1M facts) is not felt."""

FULL_AFTER = 10
"""Young (generation 1) collections since the last full one before an idle moment runs a full
collection: Python's own default threshold for generation 2."""

SAFETY_FULL_AFTER = 200
"""Python's own generation-2 threshold while the policy holds: 20x its default, so that input
which never pauses (or a pass streaming for minutes) still frees cycles by itself."""

_paused = False
_thresholds_before: tuple[int, int, int] | None = None


def pause_for_start() -> None:
    """Pause the collector while the app starts (the early start; until :func:`resume`)."""
    global _paused  # noqa: PLW0603 - one start per process
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """End the start-up's pause (if :func:`pause_for_start` paused it; once)."""
    global _paused  # noqa: PLW0603
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


def freeze_long_lived() -> None:
    """Collect the young garbage, freeze everything alive (the main screen calls this once
    every pane is built), and from then on leave full collections to idle moments."""
    global _thresholds_before  # noqa: PLW0603
    gc.collect(1)  # cheap: frees recent cycles instead of freezing them
    gc.freeze()
    if _thresholds_before is None:
        _thresholds_before = gc.get_threshold()
        young, middle, _full = _thresholds_before
        gc.set_threshold(young, middle, SAFETY_FULL_AFTER)


def collect_if_due() -> bool:
    """Run a full collection if Python would have by now (the app calls this when the user
    has paused); True if it ran."""
    if _thresholds_before is None or not gc.isenabled() or gc.get_count()[2] < FULL_AFTER:
        return False
    gc.collect()
    return True


def restore() -> None:
    """Python's own thresholds again (the app's exit)."""
    global _thresholds_before  # noqa: PLW0603
    if _thresholds_before is not None:
        gc.set_threshold(*_thresholds_before)
        _thresholds_before = None
