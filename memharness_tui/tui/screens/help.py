"""The ``?`` help screen: every key the app binds, grouped by where it works."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

HELP_BINDINGS = [Binding("escape,question_mark,q", "app.pop_screen", "Close", id="help.close")]


def _key_label(key: str) -> str:
    names = {"question_mark": "?", "slash": "/", "left_square_bracket": "[",
             "right_square_bracket": "]", "escape": "Esc", "enter": "Enter"}
    def one(k: str) -> str:
        k = names.get(k.strip(), k.strip())
        if k.startswith("ctrl+"):
            return "Ctrl+" + k[5:].upper()
        return k.upper() if k.startswith("f") and k[1:].isdigit() else k

    return " / ".join(one(k) for k in key.split(","))


def binding_sections() -> list[tuple[str, list[tuple[str, str]]]]:
    """(area, [(keys, description)]) built from the classes' BINDINGS so the list never drifts."""
    from memharness_tui.tui.app import MemharnessApp
    from memharness_tui.tui.screens.confirm import ConfirmScreen
    from memharness_tui.tui.screens.detail import FactDetailScreen
    from memharness_tui.tui.screens.fact_form import FactFormScreen
    from memharness_tui.tui.screens.hygiene_edit import FixEditor
    from memharness_tui.tui.screens.hygiene_preview import PlanPreview
    from memharness_tui.tui.screens.main import MainScreen
    from memharness_tui.tui.screens.modals import ErrorModal, ThemePicker, TimeTravelModal
    from memharness_tui.tui.screens.repos import ReposScreen
    from memharness_tui.tui.screens.revise import ReviseScreen
    from memharness_tui.tui.widgets.dashboard import StalenessDashboard
    from memharness_tui.tui.widgets.diff import DiffPane
    from memharness_tui.tui.widgets.hygiene import HygienePane
    from memharness_tui.tui.widgets.recall import RecallPane
    from memharness_tui.tui.widgets.staleness.flagged import FlaggedPanel
    from memharness_tui.tui.widgets.subjects import SubjectsPane

    areas = [
        ("Everywhere", [MemharnessApp]),
        ("Main screen", [MainScreen]),
        ("Recall tab", [RecallPane]),
        ("Subjects tab", [SubjectsPane]),
        ("Changes tab", [DiffPane]),
        ("Staleness tab", [StalenessDashboard, FlaggedPanel]),
        ("Hygiene tab", [HygienePane]),
        ("Hygiene fix: editor and preview", [FixEditor, PlanPreview]),
        ("Fact detail", [FactDetailScreen]),
        ("Revise a flagged fact", [ReviseScreen]),
        ("New fact and rewrite forms", [FactFormScreen]),
        ("Repos editor", [ReposScreen]),
        ("Confirm dialogs", [ConfirmScreen]),
        ("Time travel", [TimeTravelModal]),
        ("Theme picker", [ThemePicker]),
        ("Error messages", [ErrorModal]),
        ("This help", [HelpScreen]),
    ]
    sections: list[tuple[str, list[tuple[str, str]]]] = []
    for area, classes in areas:
        rows: list[tuple[str, str]] = []
        for cls in classes:
            for b in cls.BINDINGS:
                if isinstance(b, Binding) and (b.description or b.tooltip):
                    rows.append((_key_label(b.key), b.tooltip or b.description))
        if area == "Everywhere":
            rows += [("Ctrl+P", "Command palette (all commands)"), ("Ctrl+Q", "Quit")]
        sections.append((area, rows))
    sections.append(("Tables and lists", [
        ("↑ ↓ PgUp PgDn", "Move"), ("Enter", "Open the highlighted fact / subject"),
        ("Tab / Shift+Tab", "Next / previous control"),
        ("Esc", "Leave a text box (then single-letter keys work)"),
    ]))
    return sections


class HelpScreen(ModalScreen[None]):
    BINDINGS = HELP_BINDINGS

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box", classes="modal-box"):
            yield Static(Text("Keys", style="bold"), classes="modal-title")
            table = Table.grid(padding=(0, 2))
            table.add_column(justify="right", style="bold", no_wrap=True)
            table.add_column()
            for area, rows in binding_sections():
                table.add_row(Text(area, style="underline"), "")
                for keys, desc in rows:
                    table.add_row(Text(keys), Text(desc))
                table.add_row("", "")
            yield Static(table, id="help-keys")
            yield Static("Esc, ? or q closes this screen.", classes="modal-help")
