"""One line: the repos a pass checks, the check-only and follow toggles, the read-only note."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from memharness_tui.tui import tcss
from memharness_tui.tui.render import safe, theme_color


class RepoBar(Static):
    """One fixed row (``height: 1``, full width): redrawing it never needs a layout."""

    DEFAULT_CSS = tcss.rules(__file__)

    repos: reactive[tuple[str, ...]] = reactive((), init=False, repaint=False)
    check_only: reactive[bool] = reactive(False, init=False, repaint=False)
    readonly: reactive[bool] = reactive(False, init=False, repaint=False)
    following: reactive[bool] = reactive(False, init=False, repaint=False)

    def __init__(self, short: Callable[[str], str], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.short = short

    def on_mount(self) -> None:
        self._draw()

    def watch_repos(self) -> None:
        self._draw()

    def watch_check_only(self) -> None:
        self._draw()

    def watch_readonly(self) -> None:
        self._draw()

    def watch_following(self) -> None:
        self._draw()

    def _draw(self) -> None:
        t = Text()
        t.append("Repos ", style="bold")
        if self.repos:
            for i, r in enumerate(self.repos):
                if i:
                    t.append(", ")
                t.append_text(safe(self.short(r), single_line=True, max_len=50))
        else:
            t.append("none — press g to add one", style=theme_color(self.app, "warning", "yellow"))
        t.append("  ·  check-only ", style="dim")
        t.append("on" if self.check_only else "off", style="bold" if self.check_only else "dim")
        t.append(" (k)", style="dim")
        if self.following:
            t.append("  ·  following HEAD", style="bold")
            t.append(" (l)", style="dim")
        if self.readonly:
            t.append("  ·  read-only store: passes only check", style="bold")
        self.update(t, layout=False)
