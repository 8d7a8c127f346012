"""The one CSS convention: a screen's or a widget's rules live in ``<its module>.tcss``
beside its module; ``app.tcss`` (beside ``app.py``) holds only app-wide rules: Textual's stock
widgets (the contrast fixes, tables' height, the tabs) and the one modal box every modal draws.

A screen loads its file as user CSS through ``CSS_PATH = tcss.path(__file__)`` (absolute, so a
subclass defined elsewhere still finds it). A widget reads its file into ``DEFAULT_CSS =
tcss.rules(__file__)`` at import: Textual scopes it to the widget (a selector that does not name
the widget is prefixed with it) and ranks it below user CSS, as for Textual's own widgets.
A module holds at most one class with rules (the one that composes what they style).
``tests/tui/test_structure.py`` checks all of it.

The App reads every screen's file with its own at start (``screen_sheets``). Textual reads a
screen's ``CSS_PATH`` when the screen is first pushed, and a new sheet re-parses every rule
and re-styles every widget of every screen: ~36 ms before the first frame (the main screen),
~55 ms right after it (the fact detail, built ahead) and again on each modal's first open.
Read up front, the same rules cost ~3 ms of parsing and no re-style; a screen's push then
finds its file already read."""

from __future__ import annotations

from pathlib import Path


def path(module_file: str) -> Path:
    """``<module>.tcss`` beside ``module_file``: a screen's (or the App's) ``CSS_PATH``."""
    return Path(module_file).with_suffix(".tcss")


def screen_sheets() -> list[Path]:
    """Every screen's ``.tcss`` (``screens/``), in a fixed order: read with the App's own."""
    return sorted((Path(__file__).parent / "screens").glob("*.tcss"))


def rules(module_file: str) -> str:
    """The text of ``<module>.tcss`` beside ``module_file``: a widget's ``DEFAULT_CSS``."""
    return path(module_file).read_text(encoding="utf-8")
