"""Issue #21: the fact detail shows the triage the Staleness tab shows for the same fact —
opened from the Staleness tab (i) and from Recall (Enter) — computed off the UI thread."""

from __future__ import annotations

from typing import Any

from memharness_tui.tui.screens.detail import FactDetailScreen
from memharness_tui.tui.widgets.results_table import ResultsTable
from memharness_tui.tui.widgets.staleness.flagged_table import FlaggedTable

from . import test_triage_ui
from .conftest import settle
from .test_triage_ui import Tri, after_pass, until

tri = test_triage_ui.tri  # the fixture: a repo with one fact per triage outcome

KINDS = ("touches", "moved", "elsewhere", "unknown")


def pin_triage(detail: FactDetailScreen) -> str:
    """The pin box's triage row (its label and git's why), or "" when it has none."""
    pin = detail.text_of("detail-pin")
    if "triage" not in pin:
        return ""
    row = pin.split("triage", 1)[1].split("checked head", 1)[0]
    return " ".join(row.split())


async def shown_detail(pilot: Any) -> FactDetailScreen:
    await until(pilot, lambda: isinstance(pilot.app.screen, FactDetailScreen), "the detail")
    detail = pilot.app.screen
    assert isinstance(detail, FactDetailScreen)
    await until(pilot, lambda: detail.triage is not None, "the detail's triage")
    await settle(pilot)
    return detail


async def test_detail_shows_the_tabs_triage_from_staleness_and_from_recall(tri: Tri) -> None:
    async with tri.app().run_test(size=(160, 44)) as pilot:
        dash = await after_pass(pilot)
        table = dash.query_one("#flagged-table", FlaggedTable)
        tab = {k: table.get_cell(str(tri.ids[k]), "triage").plain for k in KINDS}
        assert tab == {"touches": "touches it", "moved": "moved", "elsewhere": "elsewhere",
                       "unknown": "unknown"}
        from_tab = {}
        for kind in KINDS:  # from the Staleness tab: the row, then i
            fid = tri.ids[kind]
            table.move_cursor(row=[f.id for f in dash.panel.shown].index(fid))
            table.focus()
            await pilot.press("i")
            detail = await shown_detail(pilot)
            assert detail.fact_id == fid
            from_tab[kind] = pin_triage(detail)
            assert from_tab[kind].startswith(tab[kind] + " — "), (kind, from_tab[kind])
            await pilot.press("escape")
            await settle(pilot)
        assert "`port 8080`" in from_tab["touches"]
        assert "src/auth_session.py" in from_tab["moved"]
        await pilot.press("1")
        await settle(pilot)
        results = pilot.app.screen.query_one("#results", ResultsTable)
        for kind in KINDS:  # from Recall: the same row there, then Enter
            fid = tri.ids[kind]
            results.focus()
            results.move_cursor(row=results.row_keys().index(str(fid)))
            await pilot.press("enter")
            detail = await shown_detail(pilot)
            assert detail.fact_id == fid
            assert pin_triage(detail) == from_tab[kind], kind
            await pilot.press("escape")
            await settle(pilot)


async def test_a_current_fact_has_no_triage_row(tri: Tri) -> None:
    async with tri.app().run_test(size=(160, 44)) as pilot:
        await after_pass(pilot)
        tri.env.store.set_staleness(tri.ids["elsewhere"], "current", "2026-10-01T00:00:00.000Z",
                                    tri.c2)
        pilot.app.open_fact(tri.ids["elsewhere"])
        await settle(pilot)
        detail = pilot.app.screen
        assert isinstance(detail, FactDetailScreen)
        assert "✓ current" in detail.text_of("detail-pin")
        assert pin_triage(detail) == "" and detail.triage is None


async def test_a_slow_triage_never_holds_the_open(tri: Tri, monkeypatch) -> None:
    """Git's answer comes after the fact is on screen: "…" meanwhile, then the triage."""
    import asyncio

    from memharness_tui.tui.screens import detail as detail_module

    release = asyncio.Event()
    real = detail_module.triage_of

    async def slow(repos, fact):  # noqa: ANN001, ANN202
        await release.wait()
        return await real(repos, fact)

    monkeypatch.setattr(detail_module, "triage_of", slow)
    async with tri.app().run_test(size=(160, 44)) as pilot:
        await after_pass(pilot)
        pilot.app.open_fact(tri.ids["touches"])
        await until(pilot, lambda: isinstance(pilot.app.screen, FactDetailScreen)
                    and pilot.app.screen.why is not None, "the detail, git still busy")
        await pilot.pause()
        detail = pilot.app.screen
        assert isinstance(detail, FactDetailScreen)
        assert "The server listens on port 8080" in detail.text_of("detail-text")
        assert pin_triage(detail) == "…" and detail.triage is None
        release.set()
        await until(pilot, lambda: detail.triage is not None, "the triage")
        await settle(pilot)
        assert pin_triage(detail).startswith("touches it — ")
