"""Keep Python's full garbage collections off the objects that live as long as the app.

A built main screen holds ~170k objects the cyclic collector tracks (widgets, styles, and
above all the rendered rows kept in caches: each ``Strip`` carries several small caches of its
own), at any store size. A full (generation 2) collection walks all of them, 60–110 ms on this
machine class, and one lands in about every other tab switch or fact opened. ``gc.freeze()``
moves every object alive at that moment into a generation the collector never walks: later
full collections only walk what was created since. Frozen objects are still freed as soon as
nothing refers to them (reference counting); only frozen reference cycles would stay, and the
widgets of a built screen do not become garbage while the app runs.
"""

from __future__ import annotations

import gc


def freeze_long_lived() -> None:
    """Collect the young garbage, then freeze everything alive (call once the app has settled)."""
    gc.collect(1)  # cheap: frees recent cycles instead of freezing them
    gc.freeze()
