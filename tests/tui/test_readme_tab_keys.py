"""What the README says of 1-4: they switch tabs from anywhere on the main screen but a text box,
where they are typed; Esc leaves the box first."""

from __future__ import annotations

from textual.widgets import Input, TabbedContent

from .conftest import make_app, settle


async def test_digits_in_a_text_box_are_typed_and_switch_tabs_after_esc(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        tabs = app.screen.query_one("#tabs", TabbedContent)
        for tab, box_id in (("recall", "search"), ("subjects", "subject-search")):
            tabs.active = tab
            await settle(pilot)
            box = app.screen.query_one(f"#{box_id}", Input)
            box.focus()
            box.value = ""
            await settle(pilot)
            await pilot.press("2", "3", "4")
            await settle(pilot)
            assert box.value == "234" and tabs.active == tab  # typed, no tab switch
            await pilot.press("escape", "3")
            await settle(pilot)
            assert tabs.active == "diff"  # out of the box, 3 switches
