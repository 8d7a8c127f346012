"""The Recall tab's first frame is built light: stand-ins for the filter Selects, swapped for
the real Selects once the first results are painted — same places, values and keys after."""

from __future__ import annotations

from textual.widgets import Select

from memharness_tui.tui.widgets.recall_filters import FilterStub

from .conftest import make_app, settle

ROW = ["search", "limit-filter", "subject-filter", "kind-filter", "freshness-filter"]


async def test_the_real_filter_selects_replace_the_first_frames_stand_ins(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = app.screen
        row = screen.query_one("#recall-filters")
        assert [w.id for w in row.children] == ROW
        assert not screen.query(FilterStub)
        assert screen.query_one("#limit-filter", Select).value == 50
        assert screen.query_one("#kind-filter", Select).is_blank()
        assert screen.query_one("#freshness-filter", Select).is_blank()
        screen.query_one("#search").focus()
        for want in ROW[1:]:  # Tab walks the filters in their order, Selects included
            await pilot.press("tab")
            assert app.focused is not None and app.focused.id == want


async def test_a_stand_in_shows_what_its_select_will_show(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        pane = app.screen.query_one("#recall-pane")
        stub = FilterStub("limit-filter")
        await pane.mount(stub)
        await pilot.pause()
        assert "top 50" in str(stub.render()) and stub.has_class("-has-value")
        kind = FilterStub("kind-filter")
        await pane.mount(kind)
        await pilot.pause()
        assert "any kind" in str(kind.render()) and not kind.has_class("-has-value")
        assert not stub.can_focus
