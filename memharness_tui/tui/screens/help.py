"""The ``?`` help screen, read from the live widgets of the screen it was opened from: first
the keys that work there now (``Screen.active_bindings``, as Textual's own key panel reads
them, so a binding added at run time or a key of the focused tab is there), then, on a screen
with tabs, each other tab's keys from the bindings of the widgets in that tab. No list is kept
by hand: a new key on a widget or a screen is in help where it works."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.actions import parse
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.geometry import Size
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Static, TabbedContent, TabPane

from memharness_tui.tui import tcss

HELP_BINDINGS: list[BindingType] = [Binding("escape,question_mark,q", "app.pop_screen", "Close", id="help.close")]


def _key_label(app: App[Any], key: str) -> str:
    """``key`` (one or several, comma-separated) as Textual's footer spells it
    (``App.get_key_display``: ``^q``, ``←``, ``esc``), joined by " / "."""
    return " / ".join(app.get_key_display(Binding(k.strip(), "")) for k in key.split(","))


def _area(node: Any) -> str:
    """Where a live binding works: everywhere (the app), a tab (its pane), or this screen."""
    if isinstance(node, App):
        return "Everywhere"
    if isinstance(node, Screen):
        return "This screen"
    chain = list(node.ancestors_with_self)
    pane = next((a for a in chain if isinstance(a, TabPane)), None)
    tabs = next((a for a in chain if isinstance(a, TabbedContent)), None)
    if pane is not None and tabs is not None:
        return _tab_area(tabs, pane)
    return "This screen"


def _tab_area(tabs: TabbedContent, pane: TabPane) -> str:
    """"Recall tab" for the pane whose tab reads "Recall [1]" (the key hint dropped)."""
    label = tabs.get_tab(pane).label.plain
    return f"{label.split(' [')[0]} tab"


#: Textual's scrolling actions, by the direction a widget must be able to scroll for them to
#: do anything (a one-line text box cannot scroll down: Down goes on to its container's key).
_VERTICAL = frozenset({"scroll_up", "scroll_down", "scroll_home", "scroll_end", "page_up",
                       "page_down"})
_HORIZONTAL = frozenset({"scroll_left", "scroll_right", "page_left", "page_right"})


def _does_nothing(node: DOMNode, action: str) -> bool:
    """A scrolling key on a widget that cannot scroll that way (Textual passes the key on)."""
    if not isinstance(node, Widget):
        return False
    if action in _VERTICAL:
        return not node.allow_vertical_scroll
    if action in _HORIZONTAL:
        return not node.allow_horizontal_scroll
    return False


def _passed_on(node: DOMNode, key: str) -> tuple[DOMNode, Binding] | None:
    """The binding of ``key`` that acts when ``node``'s own does nothing: its nearest
    ancestor's that does something (None: the key does nothing here)."""
    for ancestor in node.ancestors:
        for b in _class_bindings(ancestor, stock=True):
            if key in (k.strip() for k in b.key.split(",")) \
                    and not _does_nothing(ancestor, b.action):
                return ancestor, b
    return None


def live_sections(screen: Screen[Any]) -> list[tuple[str, list[tuple[str, str]]]]:
    """(area, [(keys, description)]) for the keys that work on ``screen`` now, from its
    live bindings; areas in the order focus reaches them (the focused widget's first)."""
    areas: dict[str, dict[str, list[str]]] = {}
    for key, active in screen.active_bindings.items():
        node, b, enabled, tooltip = active.node, active.binding, active.enabled, active.tooltip
        if _does_nothing(node, b.action):
            found = _passed_on(node, key)
            if found is None:
                continue
            node, b = found
            state = _action_state(node, b.action)
            if state is False:
                continue
            enabled, tooltip = bool(state), ""
        text = tooltip or b.tooltip or b.description
        if not text:
            continue
        if not enabled:
            text += " (not now)"
        rows = areas.setdefault(_area(node), {})
        rows.setdefault(text, []).append(_key_label(screen.app, key))
    ordered = sorted(areas.items(), key=lambda kv: kv[0] == "Everywhere")
    return [(area, [(" / ".join(keys), text) for text, keys in rows.items()])
            for area, rows in ordered]


def _own_bindings(node: DOMNode) -> list[Binding]:
    """The bindings ``node``'s classes declare, less those of Textual's stock widgets (a
    table's arrows, a text box's editing: the same on every tab, and listed under "Here" when
    such a widget has focus); a subclass's binding of a key replaces its base's."""
    return _class_bindings(node, stock=False)


def _class_bindings(node: DOMNode, *, stock: bool) -> list[Binding]:
    """The bindings ``node``'s classes declare (``stock``: Textual's own classes' too)."""
    by_key: dict[str, Binding] = {}
    for cls in reversed(type(node).__mro__):
        if (stock or not cls.__module__.startswith("textual.")) and "BINDINGS" in vars(cls):
            by_key.update((b.key, b) for b in Binding.make_bindings(vars(cls)["BINDINGS"]))
    return list(by_key.values())


def _action_state(node: DOMNode, action: str) -> bool | None:
    """``check_action`` of the node the action runs on: False hides a key (as Textual's footer
    does), None shows it as not available now."""
    namespace, name, params = parse(action)
    target = {"app": node.app, "screen": node.screen}.get(namespace, node)
    return target.check_action(name, params)


def other_tab_sections(screen: Screen[Any], shown: set[str]) -> list[tuple[str, list[tuple[str, str]]]]:
    """(area, [(keys, description)]) for each tab of ``screen`` not among the ``shown`` areas,
    from the bindings of the live widgets in that tab, in the tabs' order."""
    sections: list[tuple[str, list[tuple[str, str]]]] = []
    for tabs in screen.query(TabbedContent):
        if not tabs.display:  # hidden (the welcome of an empty store): its keys do nothing
            continue
        for pane in tabs.query(TabPane):
            area = _tab_area(tabs, pane)
            if area in shown:
                continue
            rows: dict[str, list[str]] = {}
            for node in pane.walk_children():
                for b in _own_bindings(node):
                    text = b.tooltip or b.description
                    state = _action_state(node, b.action)
                    if not text or state is False:
                        continue
                    keys = rows.setdefault(text + ("" if state else " (not now)"), [])
                    label = _key_label(screen.app, b.key)
                    if label not in keys:
                        keys.append(label)
            if rows:
                sections.append((area, [(" / ".join(keys), text) for text, keys in rows.items()]))
    return sections


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


class KeyGrid(Static):
    """A Static holding one of help's grids (set once), its height measured once per width.

    Textual keeps one content height (the last width's) and measures by rendering the whole
    Rich table. The help box lays out at two widths, with and without its scrollbar, so each
    layout measured both grids again: ~40% of opening help (~0.1 s of CPU)."""

    def __init__(self, grid: Table, *, id: str) -> None:  # noqa: A002 - Textual's name
        super().__init__(grid, id=id)
        self._heights: dict[int, int] = {}

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            height = self._heights[width] = super().get_content_height(container, viewport,
                                                                       width)
        return height


class HelpScreen(ModalScreen[None]):
    """Every key that works on ``origin`` now, then the keys of its other tabs."""

    CSS_PATH = tcss.path(__file__)

    BINDINGS = HELP_BINDINGS

    def __init__(self, origin: Screen[Any]) -> None:
        """``origin``: the screen ``?`` was pressed on (the screen help describes)."""
        super().__init__()
        self.origin = origin

    def compose(self) -> ComposeResult:
        here = live_sections(self.origin)
        others = other_tab_sections(self.origin, {area for area, _ in here})
        with VerticalScroll(id="help-box", classes="modal-box"):
            yield Static(Text("Keys", style="bold"), classes="modal-title")
            yield Static(Text("Here", style="bold"), classes="help-part")
            yield KeyGrid(_grid(here), id="help-here")
            if others:
                yield Static(Text("The other tabs", style="bold"), classes="help-part")
                yield KeyGrid(_grid(others), id="help-tabs")
            yield Static("Esc, ? or q closes this screen.", classes="modal-help")


async def open_help(app: App[Any]) -> None:
    """Open help on the current screen, its tabs' panes built first: a pane not built yet
    (they are built in the background after the first results) has no keys to read."""
    screen = app.screen
    if isinstance(screen, HelpScreen):
        return
    build = getattr(screen, "build_every_pane", None)
    if build is not None:
        await build()
    if app.screen is screen:  # not left while the panes were built
        app.push_screen(HelpScreen(screen))
