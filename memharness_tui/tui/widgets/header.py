"""The status strip under the header: db path, schema version and the counts, plus banners."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from memharness_tui.tui.render import clean


class StatusStrip(Static):
    """``DB path · schema vN · total / current / pinned / stale``; always literal text."""

    def show(self, path: str, schema_version: int, counts: object | None) -> None:
        """Counts first (they matter most and survive a narrow terminal), then schema and path."""
        text = Text()
        if counts is not None:
            c = counts
            stale = c.stale  # type: ignore[attr-defined]
            unresolved = getattr(c, "unresolved", 0)
            for value, label, style in (
                (c.total, "total", "bold"),  # type: ignore[attr-defined]
                (c.current, "current", "bold"),  # type: ignore[attr-defined]
                (c.pinned, "pinned", "bold"),  # type: ignore[attr-defined]
                (stale, "stale", "bold red" if stale else "bold"),
                (unresolved, "unresolved", "bold yellow" if unresolved else "bold"),
            ):
                text.append(f"{value:,}", style=style)
                text.append(f" {label}  ")
            text.append("·  ", style="dim")
        text.append(f"schema v{schema_version}", style="dim")
        text.append("  ·  ", style="dim")
        text.append(clean(path, single_line=True))
        self.update(text)


class Banner(Static):
    """A one-line banner (read-only, time travel) hidden until it has something to say."""

    def say(self, message: str | None) -> None:
        self.display = bool(message)
        self.update(Text(message or ""))


class InfoLine(Widget):
    """A one-line status whose updates repaint only itself (``Static.update`` re-lays-out the
    whole screen, which costs a full repaint of the results table on every keystroke)."""


    text: reactive[Text] = reactive(Text(""), layout=False, always_update=True)

    def update(self, text: Text) -> None:
        self.text = text

    def render(self) -> Text:
        return self.text
