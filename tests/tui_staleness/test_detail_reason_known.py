"""The detail's reason line in a session that ran no pass: once git was asked for the triage,
the reason says why (from git now), never "not known yet" beside a known triage."""

from __future__ import annotations

from memharness_tui.tui.screens.detail import FactDetailScreen

from . import test_triage_ui
from .conftest import settle
from .test_detail_triage import pin_triage
from .test_triage_ui import Tri, after_pass, until

tri = test_triage_ui.tri  # the fixture: a repo with one fact per triage outcome


async def test_a_known_triage_comes_with_a_known_reason(tri: Tri) -> None:
    async with tri.app().run_test(size=(160, 44)) as pilot:
        await after_pass(pilot)  # the verdicts recorded in the store
    async with tri.app().run_test(size=(160, 44)) as pilot:  # a new session: no pass run
        await settle(pilot)
        pilot.app.open_fact(tri.ids["touches"])
        await until(pilot, lambda: isinstance(pilot.app.screen, FactDetailScreen), "the detail")
        detail = pilot.app.screen
        await until(pilot, lambda: detail.triage is not None, "the detail's triage")
        await settle(pilot)
        pin = detail.text_of("detail-pin")
        assert pin_triage(detail).startswith("touches it"), pin
        assert "not known yet" not in pin, pin
        reason = " ".join(pin.split("reason", 1)[1].split("triage", 1)[0].split())
        assert "(git now)" in reason, pin
