"""The ``?`` help screen: first the keys that work where it was opened — read from that
screen's live bindings (``Screen.active_bindings``, as Textual's own key panel does), so a
binding added at run time or a key of the focused tab is there — then every key the app's
classes bind, grouped by where it works."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Static, TabbedContent, TabPane

from memharness_tui.tui import tcss

HELP_BINDINGS: list[BindingType] = [Binding("escape,question_mark,q", "app.pop_screen", "Close", id="help.close")]


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

    areas: list[tuple[str, list[type[DOMNode]]]] = [
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


def _area(node: Any) -> str:
    """Where a live binding works: everywhere (the app), a tab (its pane), or this screen."""
    from textual.app import App

    if isinstance(node, App):
        return "Everywhere"
    if isinstance(node, Screen):
        return "This screen"
    chain = list(node.ancestors_with_self)
    pane = next((a for a in chain if isinstance(a, TabPane)), None)
    tabs = next((a for a in chain if isinstance(a, TabbedContent)), None)
    if pane is not None and tabs is not None and pane.id is not None:
        label = tabs.get_tab(pane.id).label.plain  # "Recall [1]": the tab's key hint dropped
        return f"{label.split(' [')[0]} tab"
    return "This screen"


def live_sections(screen: Screen[Any]) -> list[tuple[str, list[tuple[str, str]]]]:
    """(area, [(keys, description)]) for the keys that work on ``screen`` now, from its
    live bindings; areas in the order focus reaches them (the focused widget's first)."""
    areas: dict[str, dict[str, list[str]]] = {}
    for key, active in screen.active_bindings.items():
        b = active.binding
        text = active.tooltip or b.tooltip or b.description
        if not text:
            continue
        if not active.enabled:
            text += " (not now)"
        rows = areas.setdefault(_area(active.node), {})
        rows.setdefault(text, []).append(_key_label(key))
    ordered = sorted(areas.items(), key=lambda kv: kv[0] == "Everywhere")
    return [(area, [(" / ".join(keys), text) for text, keys in rows.items()])
            for area, rows in ordered]


def _grid(sections: list[tuple[str, list[tuple[str, str]]]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", style="bold", no_wrap=True)
    table.add_column()
    for area, rows in sections:
        table.add_row(Text(area, style="underline"), "")
        for keys, desc in rows:
            table.add_row(Text(keys), Text(desc))
        table.add_row("", "")
    return table


class HelpScreen(ModalScreen[None]):
    CSS_PATH = tcss.path(__file__)

    BINDINGS = HELP_BINDINGS

    def __init__(self, origin: Screen[Any] | None = None) -> None:
        """``origin``: the screen ``?`` was pressed on (its live keys come first)."""
        super().__init__()
        self.origin = origin

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box", classes="modal-box"):
            yield Static(Text("Keys", style="bold"), classes="modal-title")
            if self.origin is not None:
                yield Static(Text("Here", style="bold"), classes="help-part")
                yield Static(_grid(live_sections(self.origin)), id="help-here")
                yield Static(Text("All keys", style="bold"), classes="help-part")
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
