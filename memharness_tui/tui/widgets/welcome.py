"""What an empty store shows instead of the tabs: what this is, where the file is, what to do."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Static

from memharness_tui.tui import tcss
from memharness_tui.tui.render import clean


def welcome_text(path: str, *, is_new: bool, readonly: bool) -> Text:
    """The welcome's words (database text kept literal)."""
    text = Text()
    text.append("memharness — what your coding agents remember\n\n", style="bold")
    text.append("Agents store facts here (\"remember\"), revise them as things change, and "
                "recall them later; this app lets you browse, search, check and fix them.\n\n")
    text.append("This store is empty" + (" (a new file)" if is_new else "") + ":\n  ")
    text.append(clean(path, single_line=True), style="bold")
    text.append("\n\n")
    if readonly:
        text.append("It is open read-only, so nothing can be added here.\n")
    else:
        text.append("  n", style="bold")
        text.append("   add a fact by hand (nothing is written to the file until you do)\n")
    text.append("  memharness-tui --demo", style="bold")
    text.append("   explore a demo store (history, pins, stale facts)\n")
    text.append("  ?", style="bold")
    text.append("   every key  ·  ")
    text.append("q", style="bold")
    text.append("   quit\n\n")
    text.append("Facts your agents write appear here by themselves.", style="dim")
    return text


class Welcome(Static, can_focus=True):
    """Shown by the main screen while the store has no facts at all (hides the tabs)."""

    DEFAULT_CSS = tcss.rules(__file__)

    BINDINGS = [Binding("n", "new_fact", "New fact", id="welcome.new_fact",
                        tooltip="Add the first fact")]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "new_fact" and getattr(self.app, "readonly", False) else True

    def action_new_fact(self) -> None:
        from memharness_tui.tui.editing import new_fact

        new_fact(self.app)
