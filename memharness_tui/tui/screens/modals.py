"""Small modal screens: time travel (as_of), errors, and the theme picker."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from memharness_tui.tui import tcss
from memharness_tui.tui.render import clean

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp


class TimeTravelModal(ModalScreen[str | None]):
    """Ask for an as_of instant; dismisses with the canonical timestamp, ``""`` for now, None to cancel."""

    CSS_PATH = tcss.path(__file__)

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="timetravel.cancel")]

    def __init__(self, current: str | None) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="timetravel-box", classes="modal-box"):
            yield Static(Text("Time travel", style="bold"), classes="modal-title")
            yield Static(
                "Show what was believed at an instant: a date (2026-03-01), a datetime "
                "(2026-03-01T09:30, UTC unless an offset is given) or a full timestamp.",
                classes="modal-help",
            )
            yield Input(value=self.current or "", placeholder="as of …", id="asof-input")
            yield Static(id="asof-error")
            with Horizontal(classes="modal-buttons"):
                yield Button("Travel", variant="primary", id="asof-go")
                yield Button("Back to now", id="asof-now")
                yield Button("Cancel", id="asof-cancel")

    @on(Input.Submitted, "#asof-input")
    @on(Button.Pressed, "#asof-go")
    def _go(self) -> None:
        from memharness_tui.store.errors import InvalidInput
        from memharness_tui.store.timeutil import normalize_iso

        raw = self.query_one("#asof-input", Input).value.strip()
        if not raw:
            self.dismiss("")
            return
        try:
            self.dismiss(normalize_iso(raw, "as_of"))
        except InvalidInput as exc:
            self.query_one("#asof-error", Static).update(
                Text(f"✗ {bad_date_message(raw, exc.message)}", style="bold red"))

    @on(Button.Pressed, "#asof-now")
    def _now(self) -> None:
        self.dismiss("")

    @on(Button.Pressed, "#asof-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


ACCEPTED_DATES = ("write a date (2026-03-01), a datetime (2026-03-01T09:30, UTC) or one "
                  "with an offset (2026-03-01T09:30+02:00)")


def bad_date_message(raw: str, store_message: str) -> str:
    """What is wrong with ``raw`` and what is accepted (the store's own message names its
    internal argument, ``as_of``, and stops at "not a valid date")."""
    shown = clean(raw, single_line=True, max_len=40)
    why = store_message.rsplit("(", 1)[-1].rstrip(")") if store_message.endswith(")") else ""
    if why and not why.startswith("expected"):
        return f"{shown!r} is not a real date or time: {clean(why, single_line=True)}."
    return f"{shown!r} is not a date this understands: {ACCEPTED_DATES}."


class ErrorModal(ModalScreen[None]):
    """An unexpected failure, shown as one message (never a traceback)."""

    CSS_PATH = tcss.path(__file__)

    BINDINGS = [Binding("escape,enter", "dismiss_modal", "Close", id="error.close")]

    def __init__(self, title: str, message: str, *, fatal: bool = False) -> None:
        super().__init__()
        self.title_text = title
        self.message = message
        self.fatal = fatal

    def compose(self) -> ComposeResult:
        with Vertical(id="error-box", classes="modal-box"):
            yield Static(Text(clean(self.title_text, single_line=True), style="bold"),
                         classes="modal-title")
            yield Static(Text(clean(self.message)), id="error-message")
            with Horizontal(classes="modal-buttons"):
                yield Button("Quit" if self.fatal else "Close", variant="error", id="error-ok")

    @on(Button.Pressed, "#error-ok")
    def action_dismiss_modal(self) -> None:
        if self.fatal:
            self.app.exit(1)
        else:
            self.dismiss(None)


class ThemePicker(ModalScreen[str | None]):
    """Pick a theme; moving the highlight previews it, Enter keeps it, Escape restores the old one."""

    CSS_PATH = tcss.path(__file__)

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="themes.cancel")]

    def __init__(self) -> None:
        super().__init__()
        self.original = ""

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    def compose(self) -> ComposeResult:
        with Vertical(id="theme-box", classes="modal-box"):
            yield Static(Text("Theme", style="bold"), classes="modal-title")
            yield OptionList(id="theme-list")
            yield Static("↑↓ preview · Enter keep · Esc cancel", classes="modal-help")

    def on_mount(self) -> None:
        self.original = self.app.theme
        options = self.query_one("#theme-list", OptionList)
        names = self.mapp.themes.names()
        for name in names:
            origin = self.mapp.themes.origin(name)
            label = Text(f"{'● ' if name == self.original else '  '}{name}",
                         style="bold" if name == self.original else "")
            if origin:
                label.append(f"  {origin}", style="dim")
            if name == self.original:
                label.append("  (current)", style="italic")
            options.add_option(Option(label, id=name))
        if self.original in names:
            options.highlighted = names.index(self.original)

    @on(OptionList.OptionHighlighted, "#theme-list")
    def _preview(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id:
            self.app.theme = event.option.id

    @on(OptionList.OptionSelected, "#theme-list")
    def _choose(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.app.theme = self.original
        self.dismiss(None)
