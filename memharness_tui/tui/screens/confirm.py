"""A yes/no confirmation: Enter or y confirms, Esc or n cancels. Text is always literal."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from memharness_tui.tui import tcss
from memharness_tui.tui.render import clean


class ConfirmScreen(ModalScreen[bool]):
    """Dismisses with True (confirmed) or False."""

    CSS_PATH = tcss.path(__file__)

    AUTO_FOCUS = "#confirm-cancel"
    BINDINGS = [
        Binding("escape,n", "answer(False)", "Cancel", id="confirm.cancel"),
        Binding("y", "answer(True)", "Confirm", id="confirm.yes"),
    ]

    def __init__(self, title: str, detail: str = "", *, confirm: str = "Confirm",
                 danger: bool = False) -> None:
        super().__init__()
        self.title_text = title
        self.detail = detail
        self.confirm_label = confirm
        self.danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box",
                      classes="modal-box danger" if self.danger else "modal-box"):
            yield Static(Text(clean(self.title_text)), id="confirm-title")
            if self.detail:
                with VerticalScroll(id="confirm-detail"):
                    yield Static(Text(clean(self.detail)))
            with Horizontal(id="confirm-buttons"):
                yield Button("Cancel (n)", id="confirm-cancel")
                yield Button(f"{self.confirm_label} (y)", id="confirm-ok",
                             variant="error" if self.danger else "primary")

    @on(Button.Pressed, "#confirm-ok")
    def _ok(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#confirm-cancel")
    def _cancel(self) -> None:
        self.dismiss(False)

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
