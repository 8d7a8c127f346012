"""Issue #21 "confusing": each decision, tested — Space says it moves, the detail title is
not "current" beside a stale verdict, a bad time-travel date says what is wrong and what is
accepted, the Subjects count says "Then" in time travel, Delete on a row that is no longer a
belief refuses with the reason, and a toast never covers the new-fact form."""

from __future__ import annotations

from textual.widgets import DataTable, Input, Static

from memharness_tui.tui.screens.confirm import ConfirmScreen
from memharness_tui.tui.screens.detail import FactDetailScreen
from memharness_tui.tui.screens.fact_form import NewFactScreen
from memharness_tui.tui.screens.modals import TimeTravelModal

from .conftest import make_app, settle, type_text
from .test_first_contact import fresh_opener


def plain(widget: Static) -> str:
    return widget.render().plain  # type: ignore[union-attr]


async def test_space_marks_and_moves_down_and_the_footer_says_so(sample, config_dir):
    store, info = sample
    for n in range(2):  # four flagged facts in all
        fid, _ = store.remember("extra", f"Extra pinned fact {n}", source_commit="d" * 40,
                                source_path=f"src/x{n}.py")
        store.set_staleness(fid, "stale", "2026-03-25T10:00:00.000Z", "b" * 40)
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        dash = app.screen.query_one("#staleness-pane")
        await pilot.press("home", "space", "down", "space")
        await settle(pilot)
        shown = [f.id for f in dash.panel.shown]
        assert len(shown) >= 3
        assert dash.panel.marked == {shown[0], shown[2]}  # Space moved down after marking
        mark = next(b for b in app.screen.active_bindings.values()
                    if b.binding.action == "mark")
        assert "↓" in mark.binding.description
        assert "move down" in (mark.binding.tooltip or "")


async def test_detail_title_is_not_current_beside_a_stale_verdict(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        app.open_fact(info.stale)
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, FactDetailScreen)
        title = detail.text_of("detail-title")
        assert "live belief" in title and " current " not in title
        pin = detail.text_of("detail-pin")
        assert "⚠ stale" in pin and "run a staleness pass to see why" not in pin


async def test_a_bad_date_says_what_is_wrong_and_what_is_accepted(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TimeTravelModal)
        await type_text(pilot, "yesterday")
        await pilot.press("enter")
        await settle(pilot)
        said = plain(app.screen.query_one("#asof-error", Static))
        assert "'yesterday'" in said and "as_of" not in said
        assert "2026-03-01" in said and "2026-03-01T09:30" in said and "+02:00" in said
        app.screen.query_one("#asof-input", Input).value = "2026-02-30"
        await pilot.press("enter")
        await settle(pilot)
        said = plain(app.screen.query_one("#asof-error", Static))
        assert "'2026-02-30' is not a real date" in said and "day is out of range" in said


async def test_the_subjects_count_says_then_in_time_travel(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        side = app.screen.query_one("#subject-list", DataTable)
        labels = [c.label.plain for c in side.columns.values()]
        assert "Now" in labels
        app.as_of = "2026-03-05T00:00:00.000Z"
        await settle(pilot)
        labels = [c.label.plain for c in side.columns.values()]
        assert "Then" in labels and "Now" not in labels
        app.as_of = None
        await settle(pilot)
        assert "Now" in [c.label.plain for c in side.columns.values()]


async def test_delete_on_a_row_superseded_since_refuses_and_says_why(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.as_of = "2026-03-05T00:00:00.000Z"  # before v1 was revised
        await settle(pilot)
        table = app.screen.query_one("#results")
        table.move_cursor(row=table.row_keys().index(str(info.chain[0])))
        table.focus()
        await pilot.press("delete")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        notes = [n.message for n in app._notifications]
        assert any(f"#{info.chain[0]} is no longer believed" in m and "already do not recall"
                   in m for m in notes)
    assert store.get(info.chain[0]).retracted_at is None  # nothing stamped


async def test_delete_on_a_live_row_still_asks(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("delete")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")


async def test_the_new_store_toast_does_not_cover_the_new_fact_form(tmp_path, config_dir):
    app = make_app(fresh_opener(tmp_path / "new.db"), config_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert any("New, empty store" in n.message for n in app._notifications)
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, NewFactScreen)
        assert not list(app._notifications)


async def test_at_120_columns_the_recall_footer_shows_reload_and_the_banner_fits(sample,
                                                                                 config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.as_of = "2026-03-01T09:30:00.000Z"
        await settle(pilot)
        banner = app.screen.query_one("#asof-banner", Static)
        assert len(plain(banner)) <= 118 and plain(banner).endswith("T: now")
        footer_keys = [k for k in app.screen.query("FooterKey") if k.display]
        right = max(k.region.right for k in footer_keys if k.description == "Reload")
        assert right <= 120 - len("▏^p palette")  # whole, left of the palette key


async def test_the_detail_time_box_never_wraps_the_age(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.open_fact(info.stale)
        await settle(pilot)
        lines = app.screen.text_of("detail-time").splitlines()
        learned = lines.index(next(line for line in lines if line.startswith("learned")))
        assert lines[learned + 1].strip().endswith("ago")  # on its own row
        box = app.screen.query_one("#detail-time")
        assert all(len(line) <= box.content_size.width for line in lines)
