"""Help read the way a person reads it (#22): open it where they are, read what it draws, and
check it against the keys the app's classes declare."""

from __future__ import annotations

import functools
import importlib
from io import StringIO
from pathlib import Path

from rich.console import Console
from textual.app import App
from textual.binding import Binding
from textual.command import CommandPalette
from textual.widgets import Static

from memharness_tui.tui.screens.help import HelpScreen

from .conftest import drain, post_keys

TUI = Path(__file__).resolve().parents[2] / "memharness_tui" / "tui"


def label(key: str) -> str:
    """How help spells a key: as Textual's footer does (``escape`` → ``esc``, ``ctrl+s`` →
    ``^s``, ``left`` → ``←``)."""
    return App.get_key_display(_display_app(), Binding(key, ""))


@functools.cache
def _display_app() -> App[None]:
    return App()


def classes_with_keys() -> dict[str, type]:
    """Every class in memharness_tui.tui that declares BINDINGS, by name."""
    found: dict[str, type] = {}
    for path in TUI.rglob("*.py"):
        name = ".".join(path.relative_to(TUI.parent.parent).with_suffix("").parts)
        module = importlib.import_module(name.removesuffix(".__init__"))
        found.update({k: v for k, v in vars(module).items() if isinstance(v, type)
                      and v.__module__ == module.__name__ and "BINDINGS" in vars(v)})
    return found


def declared(cls: type) -> list[tuple[str, str]]:
    """(key as help spells it, description) for each key ``cls`` itself binds with a text."""
    return [(label(b.key), b.tooltip or b.description)
            for b in Binding.make_bindings(vars(cls)["BINDINGS"]) if b.tooltip or b.description]


def documented(text: str, key: str, description: str | None = None) -> bool:
    """``text`` has a row whose key column names ``key`` (with ``description``, if given)."""
    for line in text.splitlines():
        if description is None:
            keys = line.strip().split("  ")[0]
        elif (at := line.find(f"  {description}")) > 0:
            keys = line[:at].strip()
        else:
            continue
        if key in keys.split(" / "):
            return True
    return False


def missing(text: str, cls: type) -> list[tuple[str, str]]:
    """The keys ``cls`` binds that ``text`` (help as drawn) does not document: neither with
    their description nor, where a focused control takes the key (a button's Enter, a text
    box's Delete), as that control's key, which is what the key does there."""
    return [(k, d) for k, d in declared(cls) if not documented(text, k, d) and not documented(text, k)]


def drawn(app: object) -> str:
    """The open help screen's text, as drawn (wide enough that no description wraps)."""
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, HelpScreen), screen
    out = Console(file=StringIO(), width=320, record=True, color_system=None)
    for static in screen.query(Static):
        out.print(static.content)
    return out.export_text()


async def _until(pilot: object, cond: object, what: str) -> None:
    """Wait for ``cond()`` and then for the widgets' queues to drain (not ``settle``: a fix's
    worker waits for its modal to close, so help opened on it cannot wait for the workers)."""
    for _ in range(500):
        await pilot.pause(0.01)  # type: ignore[attr-defined]
        if cond():  # type: ignore[operator]
            await drain(pilot)
            return
    raise AssertionError(f"{what} never came")


async def read_help(pilot: object, *, palette: bool = False, key: str = "question_mark") -> str:
    """Open help where the app is (``?``; F1 in a text box, where ``?`` is typed; on a modal,
    which keeps the app's keys from it, the command palette's "Help: keys"), read it, close it."""
    app = pilot.app  # type: ignore[attr-defined]
    origin = app.screen
    if palette:
        await pilot.press("ctrl+p")  # type: ignore[attr-defined]
        await _until(pilot, lambda: isinstance(app.screen, CommandPalette), "the command palette")
        post_keys(pilot, "Help: keys")  # one burst: the palette searches once, not per key
        await drain(pilot)
        await pilot.pause(0.3)  # type: ignore[attr-defined]
        await pilot.press("enter")  # type: ignore[attr-defined]
    else:
        await pilot.press(key)  # type: ignore[attr-defined]
    await _until(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
    assert app.screen.origin is origin
    text = drawn(app)
    await pilot.press("escape")  # type: ignore[attr-defined]
    await _until(pilot, lambda: app.screen is origin, "the screen help was opened on")
    return text
