"""Issue #21: a long fact can be read in full on the detail screen — it stopped at about 880
characters at 120×36, with no ellipsis and no scrollbar, and PageDown, End and the wheel did
nothing."""

from __future__ import annotations

import html
import re

import pytest
from textual import events

from memharness_tui.tui.screens.detail import FactDetailScreen

from .conftest import make_app, settle

HEAD, TAIL = "HEADMARK", "TAILMARK"
LONG = HEAD + " " + " ".join(f"word{i:04d}" for i in range(700)) + " " + TAIL  # ~6,300 chars


def screen_text(app) -> str:
    """The characters on screen, read from Textual's own SVG export (one string)."""
    svg = app.export_screenshot()
    return html.unescape("".join(re.findall(r"<text [^>]*>([^<]*)</text>", svg))).replace(
        "\xa0", " ")


async def open_long(pilot, store) -> tuple[FactDetailScreen, int]:
    fact_id, _ = store.remember("notes", LONG)
    pilot.app.reload_all()
    await settle(pilot)
    pilot.app.open_fact(fact_id)
    await settle(pilot)
    detail = pilot.app.screen
    assert isinstance(detail, FactDetailScreen)
    return detail, fact_id


def words_on_screen(app) -> set[int]:
    return {int(n) for n in re.findall(r"word(\d{4})", screen_text(app))}


@pytest.mark.parametrize("size", [(120, 36), (80, 24)])
async def test_every_word_of_a_long_fact_is_reachable_with_page_down(sample, config_dir,
                                                                     size):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        detail, _ = await open_long(pilot, store)
        assert detail.text_of("detail-text") == LONG
        first = screen_text(app)
        assert HEAD in first and TAIL not in first
        seen = words_on_screen(app)
        for _ in range(200):
            if TAIL in screen_text(app):
                break
            await pilot.press("pagedown")
            await settle(pilot)
            seen |= words_on_screen(app)
        assert TAIL in screen_text(app)
        assert seen == set(range(700))  # nothing skipped between pages
        await pilot.press("home")
        await settle(pilot)
        assert HEAD in screen_text(app)
        await pilot.press("end")
        await settle(pilot)
        scroller = detail._scroller()
        assert scroller.scroll_y == scroller.max_scroll_y > 0


async def test_the_wheel_scrolls_a_long_fact(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        detail, _ = await open_long(pilot, store)
        box = detail.query_one("#detail-text")
        before = words_on_screen(app)
        x, y = box.region.x + 4, box.region.y + 3
        for _ in range(10):
            app.post_message(events.MouseScrollDown(box, x, y, 0, 0, 0, False, False, False,
                                                    screen_x=x, screen_y=y))
        await settle(pilot)
        after = words_on_screen(app)
        assert after and min(after) > min(before)
