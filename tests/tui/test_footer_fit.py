"""Issue #21: every footer key fits whole. At 120 columns every tab's keys fit (the Staleness
tab's dropped whole past the edge); at 80 the keys that do not fit are left out whole — never
cut mid-word under the palette key — the tab's own keys and ? Help stay, and every key left
out is still in ? Help (and the palette)."""

from __future__ import annotations

from textual.widgets._footer import FooterKey

from memharness_tui.tui.perf.footer import KeysFooter
from memharness_tui.tui.screens.help import live_sections

from .conftest import make_app, settle
from .test_footer import composed, footer_row

TABS = {"1": "recall", "2": "subjects", "3": "changes", "4": "staleness"}
OWN = {"1": ["Agent view", "More"], "2": ["History", "More"], "3": ["Since"],
       "4": ["Start pass", "Cancel", "Revise", "Mark ↓"]}


def footer_state(app) -> tuple[list[FooterKey], FooterKey, list[str]]:
    footer = app.screen.query_one(KeysFooter)
    keys = [k for k in footer.query_children(FooterKey)
            if k.display and not k.has_class("-command-palette")]
    palette = next(k for k in footer.query_children(FooterKey)
                   if k.has_class("-command-palette"))
    wanted = [d for _k, _kd, d, _a, _dis, _t, _c, pal, _cp in composed(footer) if not pal]
    return keys, palette, wanted


def assert_whole(app, keys: list[FooterKey], palette: FooterKey, tab: str) -> None:
    row = footer_row(app)
    for key in keys:
        assert key.region.right <= palette.region.x, (tab, key.description, row)
        assert f"{key.key_display} {key.description}" in row, (tab, key.description, row)


async def test_every_key_fits_at_120_columns_on_every_tab(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        for tab in TABS:
            await pilot.press(tab)
            await settle(pilot)
            keys, palette, wanted = footer_state(app)
            assert [k.description for k in keys] == wanted, tab  # none left out
            assert_whole(app, keys, palette, tab)
        app.as_of = "2026-03-15T00:00:00.000Z"  # time travel: the same keys
        await settle(pilot)
        keys, palette, wanted = footer_state(app)
        assert [k.description for k in keys] == wanted
        assert_whole(app, keys, palette, "4, time travel")


async def test_at_80_columns_what_shows_is_whole_and_the_rest_is_in_help(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for tab in TABS:
            await pilot.press(tab)
            await settle(pilot)
            keys, palette, wanted = footer_state(app)
            shown = [k.description for k in keys]
            assert_whole(app, keys, palette, tab)
            assert shown == [d for d in wanted if d in shown], tab  # in order, a subset
            assert "Help" in shown and all(d in shown for d in OWN[tab]), (tab, shown)
            left_out = [d for d in wanted if d not in shown]
            listed = {d for _s, rows in live_sections(app.screen) for _k, d in rows}
            assert all(any(d.casefold() in text.casefold() for text in listed)
                       for d in left_out), (tab, left_out)
        await pilot.resize_terminal(120, 36)  # wider again: every key back
        await settle(pilot)
        keys, _palette, wanted = footer_state(app)
        assert [k.description for k in keys] == wanted


async def test_staleness_keys_only_in_help_and_the_palette(sample, config_dir):
    """Check-only, Repos, Follow and New fact left the Staleness footer: still keys, listed
    in ? Help and the command palette."""
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        listed = {d for _s, rows in live_sections(app.screen) for _k, d in rows}
        for name in ("Check-only", "Repos", "Follow", "New fact", "Still true", "Downgrade"):
            assert any(name.casefold() in text.casefold() for text in listed), name
        from memharness_tui.tui.staleness_commands import StalenessCommands

        titles = [title for title, *_ in StalenessCommands.entries(
            type("P", (), {"mapp": app})())]  # the provider's entries, read as data
        for word in ("pass", "check-only", "repos", "follow", "New fact"):
            assert any(word.casefold() in t.casefold() for t in titles), word
