"""Issue #21, forms: the new-fact form starts at its first empty field; an inline error goes as
soon as its field is valid; Enter in the Changes tab's boxes moves to the changes."""

from __future__ import annotations

from textual.widgets import DataTable, Input, Static, TextArea

from memharness_tui.tui.screens.fact_form import NewFactScreen

from .conftest import make_app, settle, type_text


def error_of(form, name: str) -> str:
    return form.query_one(f"#err-{name}", Static).render().plain


async def open_form(app, pilot, subject: str = "") -> NewFactScreen:
    form = NewFactScreen(subject=subject)
    app.push_screen(form)
    await settle(pilot)
    return form


async def test_the_new_fact_form_starts_at_its_first_empty_field(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        form = await open_form(app, pilot, subject="auth")  # the subject comes filled in
        assert app.focused is form.query_one("#form-fact", TextArea)
        await type_text(pilot, "Tokens rotate daily")
        assert form.value("fact") == "Tokens rotate daily" and form.value("subject") == "auth"
        await pilot.press("escape")
        await settle(pilot)
        form = await open_form(app, pilot)  # nothing filled in: the subject first
        assert app.focused is form.query_one("#form-subject", Input)


async def test_an_inline_error_goes_as_soon_as_its_field_is_valid(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        form = await open_form(app, pilot)
        form.query_one("#form-confidence", Input).value = "lots"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "subject must not be empty" in error_of(form, "subject")
        assert "fact must not be empty" in error_of(form, "fact")
        assert error_of(form, "confidence")
        await type_text(pilot, "ops")  # focus is on the subject
        assert error_of(form, "subject") == "" and "subject" not in form.errors
        assert form.query_one("#err-subject").has_class("-empty")
        assert error_of(form, "fact")  # the others stay until fixed
        form.query_one("#form-confidence", Input).value = "2"  # still out of range
        await settle(pilot)
        assert error_of(form, "confidence")
        form.query_one("#form-confidence", Input).value = "0.5"
        form.query_one("#form-fact", TextArea).text = "Backups run at 02:00"
        await settle(pilot)
        assert form.errors == {}
        # the pin path's error depends on another field: it goes once the commit is given
        form.query_one("#form-path", Input).value = "src/backup.py"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is form and "a pin path needs a pin commit" in error_of(form, "path")
        form.query_one("#form-commit", Input).value = "abc1234"
        await settle(pilot)
        assert error_of(form, "path") == "" and form.errors == {}
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is not form  # written


async def test_enter_in_the_changes_boxes_moves_to_the_changes(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("3", "d")
        await settle(pilot)
        since = app.screen.query_one("#diff-since", Input)
        table = app.screen.query_one("#diff-table", DataTable)
        assert app.focused is since
        since.value = "next week"
        await pilot.press("enter")
        await settle(pilot)
        assert app.focused is since  # a bad date keeps the box, to fix it
        since.value = "2026-03-05"
        await pilot.press("enter")
        await settle(pilot)
        assert app.focused is table and table.row_count
        await pilot.press("u", *"db", "enter")
        await settle(pilot)
        assert app.focused is table
        assert app.screen.query_one("#diff-subject", Input).value == "db"


async def test_an_error_the_store_gave_stays_until_its_field_changes(sample, config_dir):
    """A valid-from in the future passes the form's own rule and the store refuses it (a
    rewrite): editing another field leaves that error, changing the date takes it away."""
    from memharness_tui.tui.screens.fact_form import ReviseFormScreen

    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        form = ReviseFormScreen(store.get(info.chain[-1]), head=None)
        app.push_screen(form)
        await settle(pilot)
        form.query_one("#form-valid_from", Input).value = "2030-01-01"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is form
        refused = error_of(form, "valid_from")
        assert "valid_from cannot be in the future" in refused
        form.query_one("#form-fact", TextArea).text = "Sessions expire after 90 minutes"
        await settle(pilot)
        assert error_of(form, "valid_from") == refused
        form.query_one("#form-valid_from", Input).value = ""
        await settle(pilot)
        assert error_of(form, "valid_from") == "" and form.errors == {}
