"""The first visit to Subjects and Changes (issue #26): both panes, built hidden after the first
results, read their data ahead and fill their tables while hidden, so the visit only draws —
and a write after the read ahead is still shown at the visit."""

from __future__ import annotations

from textual.widgets import DataTable

from memharness_tui.tui.services.store import StoreService

from .conftest import make_app, settle

NOW = "2026-04-01T00:00:00.000Z"  # the sample's changes lie in the last 30 days


def _reads(monkeypatch) -> dict[str, int]:  # noqa: ANN001
    """Count the service's subjects / diff reads."""
    calls = {"subjects": 0, "diff": 0}
    subjects, diff = StoreService.subjects, StoreService.diff

    async def counting_subjects(self, *a, **k):  # noqa: ANN001, ANN002, ANN003, ANN202
        calls["subjects"] += 1
        return await subjects(self, *a, **k)

    async def counting_diff(self, *a, **k):  # noqa: ANN001, ANN002, ANN003, ANN202
        calls["diff"] += 1
        return await diff(self, *a, **k)

    monkeypatch.setattr(StoreService, "subjects", counting_subjects)
    monkeypatch.setattr(StoreService, "diff", counting_diff)
    return calls


def _keys(table: DataTable) -> list[str | None]:
    return [k.value for k in table.rows]


async def test_both_tables_are_filled_before_the_first_visit(sample, config_dir, monkeypatch):
    store, _ = sample
    reads = _reads(monkeypatch)
    app = make_app(store, config_dir, now=NOW)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        subjects = app.screen.query_one("#subject-list", DataTable)
        changes = app.screen.query_one("#diff-table", DataTable)
        assert app.screen.query_one("#subjects-pane")._needs_load  # never shown yet
        assert app.screen.query_one("#diff-pane")._needs_load
        ahead = _keys(subjects), _keys(changes)
        assert ahead[0] == [s.subject for s in store.subjects()]
        assert len(ahead[1]) > 0
        assert reads == {"subjects": 1, "diff": 1}  # read once, ahead
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        assert (_keys(subjects), _keys(changes)) == ahead  # the visit drew what was there
        assert reads["diff"] == 1  # no write since the read ahead: not read again


async def test_a_write_after_the_read_ahead_shows_at_the_first_visit(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir, poll_interval=0.05, now=NOW)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        new_id, _ = store.remember("a-new-subject", "written after the read ahead")
        for _ in range(100):  # the poll sees the other connection's commit
            await pilot.pause(0.02)
            if app.store_revision:
                break
        await pilot.press("2")
        await settle(pilot)
        assert "a-new-subject" in _keys(app.screen.query_one("#subject-list", DataTable))
        await pilot.press("3")
        await settle(pilot)
        assert f"L{new_id}" in _keys(app.screen.query_one("#diff-table", DataTable))
