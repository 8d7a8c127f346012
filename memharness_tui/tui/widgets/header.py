"""The status strip under the header: db path, schema version and the counts, plus banners."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from memharness_tui.tui.render import clean


class StatusStrip(Static):
    """``DB path · schema vN · total / current / pinned / stale``; always literal text."""

    def show(self, path: str, schema_version: int, counts: object | None) -> None:
        text = Text()
        text.append("DB ", style="bold")
        text.append(clean(path, single_line=True))
        text.append(f"  ·  schema v{schema_version}", style="dim")
        if counts is not None:
            c = counts
            text.append("  ·  ")
            text.append(f"{c.total:,}", style="bold")  # type: ignore[attr-defined]
            text.append(" total  ")
            text.append(f"{c.current:,}", style="bold")  # type: ignore[attr-defined]
            text.append(" current  ")
            text.append(f"{c.pinned:,}", style="bold")  # type: ignore[attr-defined]
            text.append(" pinned  ")
            stale = c.stale  # type: ignore[attr-defined]
            text.append(f"{stale:,}", style="bold red" if stale else "bold")
            text.append(" stale")
            unresolved = getattr(c, "unresolved", 0)
            if unresolved:
                text.append(f"  {unresolved:,}", style="bold yellow")
                text.append(" unresolved")
        self.update(text)


class Banner(Static):
    """A one-line banner (read-only, time travel) hidden until it has something to say."""

    def say(self, message: str | None) -> None:
        self.display = bool(message)
        self.update(Text(message or ""))
