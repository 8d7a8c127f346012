"""A theme chosen while the app runs recolours what is already on screen: the verdict badges and
the header's counts are drawn in the new theme's colours (they carried the start-up theme's
colours until a restart: 1.4-2.6:1 after dark -> light)."""

from __future__ import annotations

from rich.color import Color as RichColor
from rich.text import Text
from textual.color import Color as TColor

from memharness_tui.tui.widgets.header import StatusStrip
from memharness_tui.tui.widgets.results_table import ResultsTable

from .conftest import make_app, settle


def _colours(text: Text) -> set[str]:
    """Every explicit colour a cell's text is drawn in, as #rrggbb."""
    found = set()
    styles = [text.style] + [span.style for span in text.spans]
    for style in styles:
        if isinstance(style, str):
            from rich.style import Style

            style = Style.parse(style) if style else Style()
        if style.color is not None:
            found.add(RichColor.parse(style.color.name).get_truecolor().hex.lower())
    return found


async def test_a_theme_chosen_while_running_recolours_the_badges(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.theme == "memharness-dark"
        table = app.screen.query_one(ResultsTable)
        current = next(k for k in table.row_keys()
                       if table.get_cell(k, "fresh").plain.startswith("✓"))
        dark = app.current_theme.success.lower()
        assert dark in _colours(table.get_cell(current, "fresh"))
        app.themes.choose("memharness-light")
        await settle(pilot)
        light = app.current_theme.success.lower()
        assert light != dark
        assert _colours(table.get_cell(current, "fresh")) == {light}
        counts = app.screen.query_one(StatusStrip).render()
        assert "1 stale" in str(counts)
        foregrounds = {span.style.foreground for span in counts.spans  # type: ignore[union-attr]
                       if getattr(span.style, "foreground", None) is not None}
        assert TColor.parse(app.current_theme.error) in foregrounds
        assert TColor.parse(app.current_theme.warning) in foregrounds
