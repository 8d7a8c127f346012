"""The status strip under the header: the counts and the schema version, plus banners.

The database path is the header's subtitle (shown once, not here as well).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from memharness_tui.tui import tcss


class StatusStrip(Static):
    """``total / live / pinned / stale / unresolved · schema vN``; always literal text.

    "live" (not "current"): "current" is a staleness verdict elsewhere on screen.
    Its box is one row as wide as the screen (``header.tcss``), so new counts repaint the strip
    alone: ``Static.update`` would lay the whole screen out again, twice a second while a
    pass writes (every data_version poll that sees its batches refreshes the counts).
    """

    DEFAULT_CSS = tcss.rules(__file__)

    _shown: str | None = None
    _unfollow: Callable[[], None] | None = None
    _to_review = 0
    _last: tuple[int, object | None] | None = None

    def set_to_review(self, count: int) -> None:
        """How many agents' writes wait for review (0: nothing said; screens/review.py)."""
        self._to_review = count
        if self._last is not None:
            self.show(*self._last)

    def on_mount(self) -> None:
        """Follow the counts after every commit by another connection (the service's
        ``follow_counts``): a burst of commits reaches the panes twice a second at most, the
        counts as soon as they are read."""
        follow = getattr(getattr(self.app, "service", None), "follow_counts", None)
        if follow is not None:
            self._unfollow = follow(self._counted)

    def on_unmount(self) -> None:
        if self._unfollow is not None:
            self._unfollow()
            self._unfollow = None

    def _counted(self, counts: object) -> None:
        info = getattr(self.app, "info", None)
        if info is not None and self.is_mounted:
            self.show(info.schema_version, counts)

    def _colour(self, name: str) -> str:
        """The theme's colour (ANSI ``red``/``yellow`` came out at 1.4–2:1 on a light panel)."""
        from memharness_tui.tui.render import theme_color

        return theme_color(self.app, name, {"error": "red", "warning": "yellow"}[name])

    def show(self, schema_version: int, counts: object | None) -> None:
        """Counts first (they matter most and survive a narrow terminal), then the schema."""
        self._last = (schema_version, counts)
        text = Text()
        if counts is not None:
            c = counts
            stale = c.stale  # type: ignore[attr-defined]
            unresolved = getattr(c, "unresolved", 0)
            for value, label, style in (
                (c.total, "total", "bold"),  # type: ignore[attr-defined]
                (c.current, "live", "bold"),  # type: ignore[attr-defined]
                (c.pinned, "pinned", "bold"),  # type: ignore[attr-defined]
                (stale, "stale", f"bold {self._colour('error')}" if stale else "bold"),
                (unresolved, "unresolved",
                 f"bold {self._colour('warning')}" if unresolved else "bold"),
            ):
                text.append(f"{value:,}", style=style)
                text.append(f" {label}  ")
            text.append("·  ", style="dim")
        if self._to_review:
            text.append(f"{self._to_review:,} to review", style=f"bold {self._colour('warning')}")
            text.append("  ·  ", style="dim")
        text.append(f"schema v{schema_version}", style="dim")
        key = repr(text.spans) + text.plain
        if key == self._shown:
            return  # same counts: nothing to repaint
        self._shown = key
        self.update(text, layout=False)


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
