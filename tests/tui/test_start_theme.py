"""The saved theme is the app's from its constructor on (tui/perf/theme.py, issue #26's cold
start): the same classes, variables and colours as choosing it in the running app, and no
re-parse of the app's CSS before the first frame."""

from __future__ import annotations

import pytest
from textual.css.stylesheet import Stylesheet

from memharness_tui import config

from .conftest import make_app, settle


def _looks(app) -> tuple[object, ...]:
    """What a theme decides that a person sees: classes, variables, computed colours."""
    screen = app.screen
    search = screen.query_one("#search")
    table = screen.query_one("#results")
    return (app.theme, sorted(c for c in app.classes if c.startswith("-")),
            app.get_css_variables(), screen.styles.background, search.styles.background,
            search.styles.color, table.styles.background, table.styles.color)


@pytest.mark.parametrize("theme", ["memharness-light", "memharness-dark", "textual-light"])
async def test_a_saved_theme_starts_as_if_chosen(sample, config_dir, theme):
    store, _ = sample
    config.save_settings(config.Settings(theme=theme), config_dir)
    started = make_app(store, config_dir)
    async with started.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        at_start = _looks(started)
    chosen = make_app(store, config_dir / "other")
    async with chosen.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        chosen.theme = theme  # as Ctrl+T does
        await settle(pilot)
        assert _looks(chosen) == at_start
    assert at_start[0] == theme
    dark = "-dark-mode" in at_start[1]
    assert dark != ("-light-mode" in at_start[1]) and dark == theme.endswith("dark")


async def test_no_reparse_before_the_first_frame(sample, config_dir, monkeypatch):
    store, _ = sample
    config.save_settings(config.Settings(theme="memharness-light"), config_dir)
    reparses: list[bool] = []
    reparse = Stylesheet.reparse

    def counted(self: Stylesheet) -> None:
        reparses.append(app.screen.is_attached and type(app.screen).__name__ == "MainScreen")
        reparse(self)

    monkeypatch.setattr(Stylesheet, "reparse", counted)
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.theme == "memharness-light"
    assert reparses == []
