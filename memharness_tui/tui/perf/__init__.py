"""Every use of a private Textual name, in one room.

Each module here stands in for something Textual does in a way that cost this app frames, and
says what it replaces and what it bought, measured (bench/README.md). A Textual upgrade
touches this folder only; ``tests/tui/test_perf_guard.py`` names each private attribute these
rely on and fails with a sentence when one moves, and ``tests/tui/test_house.py`` fails on a
private Textual name used anywhere else in the package.

- :mod:`.frames` — screens paint at 120 fps, a focus change repaints the two widgets it moved
  between (``Screen._update_timer``, the name-mangled ``_Screen__update_timer``).
- :mod:`.scrolling` — virtual sizes that update scrollbars without a screen layout, and
  scrollbars not redrawn by a layout that left their sizes alone (``_scroll_update``,
  ``ScrollView._size_updated``, ``Widget._size``).
- :mod:`.layout` — has a resized screen (and those under it) been laid out at the new size
  (``Screen._compositor``, ``App._background_screens``).
- :mod:`.footer` — the key footer rewritten in place, in the frame its bindings changed
  (``textual.widgets._footer.FooterKey``, the widgets' layout/repaint flags).
- :mod:`.look_table` — a ``DataTable`` that keeps its rendered rows per look (its private
  render caches).
- :mod:`.tree` — the chain ``Tree`` keeps its lines when only its height changes.
- :mod:`.binding` — a screen's context for ``data_bind`` outside ``compose``.
- :mod:`.keys` — a key a focused text box does not type runs its binding in the box's turn,
  after the characters typed before it (``App._check_bindings``, ``Widget._forward_event``).

The one private name left outside (named in the guard): ``App._handle_exception``, the only
hook for the app's "one line and a crash log, never a traceback".
"""
