"""Opening a fact: the read started while the screen is built, the chain filled before the
first layout, and a chain box that keeps its lines on a Resize show what a plain load shows."""

from __future__ import annotations

from textual.widgets import Tree

from memharness_tui.tui.screens.detail import FactDetailScreen

from .conftest import make_app, settle

BOXES = ("detail-title", "detail-text", "detail-prov", "detail-time", "detail-pin")


def seen(detail: FactDetailScreen) -> dict[str, object]:
    """Everything the detail screen shows, as text, and where the chain's cursor is."""
    tree = detail.query_one("#chain", Tree)
    return {
        **{box: detail.text_of(box) for box in BOXES},
        "chain": [(n.data, n.label.plain) for n in tree.root.children],
        "cursor": tree.cursor_line,
        "versions": tree.border_subtitle,
        "sub_title": detail.sub_title,
        "narrow": detail.query_one("#detail-body").has_class("narrow"),
    }


async def open_fact(pilot, fact_id: int) -> FactDetailScreen:
    pilot.app.open_fact(fact_id)
    await settle(pilot)
    detail = pilot.app.screen
    assert isinstance(detail, FactDetailScreen)
    return detail


async def reload_shown(pilot, detail: FactDetailScreen) -> dict[str, object]:
    """What the screen shows after loading the same fact again the plain way (a worker,
    the screen laid out): the reference the first open must match."""
    detail._filled = None  # fill the chain again even though nothing changed
    detail.load(detail.fact_id)
    await settle(pilot)
    return seen(detail)


async def test_opened_detail_matches_a_plain_reload_wide_and_narrow(sample, config_dir):
    store, info = sample
    for size in ((160, 48), (100, 40), (123, 40)):
        app = make_app(store, config_dir)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            for fact_id in (info.chain[2], info.chain[0], info.stale, info.retracted):
                detail = await open_fact(pilot, fact_id)
                first = seen(detail)
                assert first["chain"] and str(fact_id) in str(first["sub_title"]), size
                assert first["narrow"] == (size[0] < 110)
                assert first == await reload_shown(pilot, detail), (size, fact_id)
                await pilot.press("escape")
                await settle(pilot)


async def test_chain_labels_fit_the_laid_out_width(sample, config_dir):
    """The labels are fitted before the first layout (a predicted width); after it, the
    width the fact box really has is the one they were fitted to."""
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(147, 44)) as pilot:
        await settle(pilot)
        detail = await open_fact(pilot, info.chain[2])
        pane = detail._laid_out_pane()
        assert pane is not None and detail._filled is not None
        assert detail._filled[2] == pane


async def test_resizing_the_terminal_keeps_the_chain_and_refits_it(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        detail = await open_fact(pilot, info.chain[2])
        before = seen(detail)
        await pilot.resize_terminal(160, 40)  # height only: the same labels
        await settle(pilot)
        assert seen(detail) == before
        await pilot.resize_terminal(120, 40)  # narrower: fitted again, as a reload would
        await settle(pilot)
        narrower = seen(detail)
        assert narrower["chain"] != before["chain"]
        assert narrower == await reload_shown(pilot, detail)


async def test_chain_cursor_moved_by_the_user_survives_nothing_but_a_refill(sample, config_dir):
    """A Resize refills the chain (as before) unless the cursor is where the fill put it."""
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        detail = await open_fact(pilot, info.chain[2])
        tree = detail.query_one("#chain", Tree)
        assert tree.cursor_line == 2
        tree.move_cursor_to_line(0)
        await pilot.resize_terminal(160, 44)
        await settle(pilot)
        assert tree.cursor_line == 2  # refilled: the cursor back on the fact shown


async def test_a_resize_on_the_detail_screen_reaches_the_screen_under_it(sample, config_dir):
    """The detail screen skips only the Resize it sends itself at the size it has: a real
    terminal resize still lays out the detail screen and the main screen under it."""
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        main = app.screen
        detail = await open_fact(pilot, info.chain[2])
        assert detail.query_one("#detail-body").region.width == 160
        await pilot.resize_terminal(100, 40)
        await settle(pilot)
        assert detail.query_one("#detail-body").region.width == 100
        assert detail.query_one("#detail-body").has_class("narrow")
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is main
        assert main.query_one("#results").region.width == 100
        assert main.query_one("#tabs").region.width == 100
