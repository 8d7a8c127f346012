"""Issue #21: the bulk still-true dialog says what is really checked (the file, not the
words), and warns, naming them, when a marked fact's triage is "touches it" (HEAD says 9090,
the fact 8080)."""

from __future__ import annotations

from memharness_tui.tui.screens.confirm import ConfirmScreen
from memharness_tui.tui.widgets.staleness.flagged_table import FlaggedTable

from .conftest import settle
from .test_triage_ui import Tri, after_pass, tri, triage_of  # noqa: F401 - the fixture


async def test_still_true_on_marked_facts_warns_about_the_ones_touching_it(tri: Tri) -> None:  # noqa: F811
    ids = tri.ids
    async with tri.app().run_test(size=(160, 40)) as pilot:
        dash = await after_pass(pilot)
        assert triage_of(dash, ids["touches"]) == "touches it"
        table = dash.query_one("#flagged-table", FlaggedTable)
        table.focus()
        for key in ("touches", "elsewhere"):
            table.move_cursor(row=[f.id for f in dash.panel.shown].index(ids[key]))
            await pilot.press("space")
        assert dash.panel.marked == {ids["touches"], ids["elsewhere"]}
        await pilot.press("y")
        await settle(pilot)
        confirm = pilot.app.screen
        assert isinstance(confirm, ConfirmScreen)
        assert "not true at HEAD are skipped" not in confirm.detail
        assert "Only the file is checked" in confirm.detail
        assert f"touches it): #{ids['touches']}." in confirm.detail
        assert f"#{ids['elsewhere']}." not in confirm.detail.split("⚠")[1]
        await pilot.press("n")


async def test_no_warning_when_no_marked_fact_touches_it(tri: Tri) -> None:  # noqa: F811
    ids = tri.ids
    async with tri.app().run_test(size=(160, 40)) as pilot:
        dash = await after_pass(pilot)
        table = dash.query_one("#flagged-table", FlaggedTable)
        table.focus()
        table.move_cursor(row=[f.id for f in dash.panel.shown].index(ids["elsewhere"]))
        await pilot.press("y")
        await settle(pilot)
        confirm = pilot.app.screen
        assert isinstance(confirm, ConfirmScreen)
        assert "⚠" not in confirm.detail and "Only the file is checked" in confirm.detail
        await pilot.press("n")
