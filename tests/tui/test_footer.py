"""The key footer, rewritten in place on focus changes, shows what Textual's Footer would build."""

from __future__ import annotations

from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from memharness_tui.tui.perf.footer import KeysFooter
from memharness_tui.tui.screens.detail import FactDetailScreen
from memharness_tui.tui.screens.main import MainScreen

from .conftest import make_app, settle


def shown(footer: KeysFooter) -> list[tuple[object, ...]]:
    """What each visible key of the footer shows and does, in order."""
    return [(k.key, k.key_display, k.description, k.action, k._disabled, k.tooltip,
             k.has_class("-disabled"), k.has_class("-command-palette"), k.compact)
            for k in footer.query_children(FooterKey) if k.display]


def composed(footer: KeysFooter) -> list[tuple[object, ...]]:
    """The keys ``Footer.compose`` builds for the bindings active now (never mounted)."""
    keys = []
    with footer._context():  # compose binds its keys to the node whose context is active
        built = list(Footer.compose(footer))
    for k in built:
        assert isinstance(k, FooterKey)  # no binding groups in this app
        palette = k.has_class("-command-palette")
        compact = k.compact if palette else footer.compact  # bound keys follow the footer
        keys.append((k.key, k.key_display, k.description, k.action, k._disabled, k.tooltip,
                     k.has_class("-disabled"), palette, compact))
    return keys


def footer_row(app) -> str:
    """The footer's line of the screen as painted."""
    footer = app.screen.query_one(KeysFooter)
    return "".join(s.text for s in app.screen._compositor.render_update(full=True)
                   .strips[footer.region.y])  # type: ignore[attr-defined]


async def test_footer_matches_textual_after_every_tab_switch(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        footer = app.screen.query_one(KeysFooter)
        first = shown(footer)
        assert first == composed(footer) and first
        seen = {}
        for key in "2341" "3142" "1":  # every tab from every other, both ways
            await pilot.press(key)
            await settle(pilot)
            now = shown(footer)
            assert now == composed(footer), key
            seen.setdefault(key, now)
            assert now == seen[key], key  # a tab shows the same keys however it was reached
            descriptions = [d for _k, _kd, d, *_ in now if d]
            row = footer_row(app)
            positions = [row.find(d) for d in descriptions]
            visible = [p for p in positions if p >= 0]
            assert visible == sorted(visible) and visible, (key, row)
        assert len({tuple(v) for v in seen.values()}) > 1  # the tabs' keys really differ


async def test_footer_on_the_detail_screen_and_back(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        main_keys = shown(app.screen.query_one(KeysFooter))
        app.screen.query_one("#results").focus()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, FactDetailScreen)
        footer = app.screen.query_one(KeysFooter)
        keys = shown(footer)
        assert keys == composed(footer)
        assert [d for _k, _kd, d, *_ in keys][:3] == ["Back", "Older", "Newer"]
        assert "Back" in footer_row(app)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        footer = app.screen.query_one(KeysFooter)
        assert shown(footer) == composed(footer)
        assert shown(footer) != keys and {k[2] for k in main_keys} & {k[2] for k in shown(footer)}
