"""Opening a fact: the read started while the screen is built, the chain filled before the
first layout, and a chain box that keeps its lines on a Resize show what a plain load shows."""

from __future__ import annotations

import pytest
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


@pytest.mark.parametrize("size", [(160, 48), (100, 40), (123, 40)], ids=str)
async def test_opened_detail_matches_a_plain_reload_wide_and_narrow(sample, config_dir, size):
    store, info = sample
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


async def test_one_detail_screen_is_built_ahead_and_opened_for_every_fact(sample, config_dir,
                                                                          monkeypatch):
    store, info = sample
    composed: list[int] = []
    real = FactDetailScreen.compose

    def counting(self):  # noqa: ANN001, ANN202
        composed.append(self.fact_id)
        return real(self)

    monkeypatch.setattr(FactDetailScreen, "compose", counting)
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert len(composed) == 1  # built ahead, once every tab was, before any open
        first = await open_fact(pilot, info.chain[2])
        await pilot.press("escape")
        await settle(pilot)
        again = await open_fact(pilot, info.stale)
        assert again is first and len(composed) == 1  # never built again
        shown = seen(again)
        assert f"#{info.stale}" in str(shown["sub_title"])
        assert shown == await reload_shown(pilot, again)


async def test_a_fact_opened_again_starts_at_the_top(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(100, 14)) as pilot:  # narrow and short: the body scrolls
        await settle(pilot)
        detail = await open_fact(pilot, info.chain[2])
        body = detail.query_one("#detail-body")
        assert body.max_scroll_y > 0
        await pilot.press("end")
        await settle(pilot)
        assert body.scroll_y > 0
        await pilot.press("escape")
        await settle(pilot)
        detail = await open_fact(pilot, info.chain[0])
        assert detail.query_one("#detail-body").scroll_y == 0


async def test_a_slow_read_never_shows_the_last_fact_under_the_new_one(sample, config_dir,
                                                                       monkeypatch):
    """Opened again while the DB thread is slow: after a short wait the screen shows, empty
    and titled with the new fact, and fills in once the read is back."""
    import asyncio

    from memharness_tui.tui.services import details as app_details

    store, info = sample
    monkeypatch.setattr(app_details, "DETAIL_READ_WAIT", 0.05)
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        detail = await open_fact(pilot, info.chain[2])
        old_text = detail.text_of("detail-text")
        await pilot.press("escape")
        await settle(pilot)
        gate = asyncio.Event()
        real = app.service.why

        async def slow(fact_id: int):  # noqa: ANN202
            await gate.wait()
            return await real(fact_id)

        monkeypatch.setattr(app.service, "why", slow)
        app.open_fact(info.stale)
        for _ in range(50):
            await pilot.pause(0.01)
            if app.screen is detail:
                break
        assert app.screen is detail and not gate.is_set()
        assert detail.text_of("detail-text") == "" != old_text
        assert detail.sub_title == f"fact #{info.stale}"
        gate.set()
        await settle(pilot)
        assert detail.why is not None and detail.why.fact.id == info.stale
        assert detail.text_of("detail-text") == store.why(info.stale).fact.fact


async def test_a_fact_opened_while_the_kept_screen_is_under_another_gets_its_own(sample,
                                                                               config_dir):
    from textual.screen import ModalScreen

    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        kept = await open_fact(pilot, info.chain[2])
        await app.push_screen(ModalScreen())
        await settle(pilot)
        app.open_fact(info.stale)
        await settle(pilot)
        fresh = app.screen
        assert isinstance(fresh, FactDetailScreen) and fresh is not kept
        assert fresh.fact_id == info.stale and kept.fact_id == info.chain[2]
        assert app.screen_stack.count(kept) == 1


async def test_a_fact_opened_again_after_a_terminal_resize_fits_the_new_size(sample,
                                                                             config_dir):
    """The terminal resized while the kept screen was closed: opened again, it is laid out
    for the terminal as it is now (one column below the breakpoint), as a reload shows it."""
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        detail = await open_fact(pilot, info.chain[2])
        assert not seen(detail)["narrow"]
        await pilot.press("escape")
        await settle(pilot)
        await pilot.resize_terminal(100, 40)
        await settle(pilot)
        again = await open_fact(pilot, info.chain[2])
        assert again is detail
        shown = seen(again)
        assert shown["narrow"] and again.query_one("#detail-body").region.width == 100
        assert shown == await reload_shown(pilot, again)


async def test_the_detail_screen_is_built_unseen_and_the_main_screen_keeps_its_focus(
        sample, config_dir, monkeypatch):
    from memharness_tui.tui.screens.main import MainScreen
    from memharness_tui.tui.services.details import DETAIL_SCREEN

    store, info = sample
    painted: list[str] = []
    real = FactDetailScreen._compositor_refresh

    def noting(self):  # noqa: ANN001, ANN202
        if self.is_current:
            painted.append("detail")
        return real(self)

    monkeypatch.setattr(FactDetailScreen, "_compositor_refresh", noting)
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.is_screen_installed(DETAIL_SCREEN)
        detail = app.get_screen(DETAIL_SCREEN)
        assert detail.is_mounted and detail.query("#chain")  # composed and mounted
        assert detail not in app.screen_stack and isinstance(app.screen, MainScreen)
        assert app.focused is app.screen.query_one("#results")
        assert painted == []  # never on screen
        opened = await open_fact(pilot, info.chain[2])
        assert opened is detail and painted
