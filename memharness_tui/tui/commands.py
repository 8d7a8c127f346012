"""Command palette providers, one per area. Each yields (title, help, callback) entries."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp

Entry = tuple[str, str, Callable[[], object]]


class EntriesProvider(Provider):
    """Fuzzy-match a list of entries; subclasses say which entries apply right now."""

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    def entries(self) -> list[Entry]:
        raise NotImplementedError

    async def discover(self) -> Hits:
        for title, help_text, callback in self.entries():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self.entries():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)


class AppCommands(EntriesProvider):
    """Global: tabs, time travel, theme, help."""

    def entries(self) -> list[Entry]:
        app = self.mapp
        items: list[Entry] = [
            ("Time travel: show beliefs as of…", "Set an as_of date or datetime", app.action_time_travel),
            ("Time travel: back to now", "Leave time travel", partial(app.action_travel, None)),
            ("Theme: pick…", "Choose and remember a colour theme", app.action_pick_theme),
            ("Help: keys", "Every key the app understands", app.action_help),
            ("Reload", "Re-read counts and lists (agents may have written meanwhile)",
             app.reload_all),
            *_entries(app, "review_entries"),  # the review queue (context_commands.py)
        ]
        from memharness_tui.tui.screens.main import TABS

        for tab, title, key in TABS:
            items.append((f"Go to {title}", f"Switch to the {title} tab ({key})",
                          partial(app.show_tab, tab)))
        return items


def hybrid_entries(app: MemharnessApp) -> list[Entry]:
    from memharness_tui.tui.hybrid_commands import entries

    return entries(app)


def _entries(app: MemharnessApp, name: str) -> list[Entry]:
    from memharness_tui.tui import context_commands

    entries: Callable[[MemharnessApp], list[Entry]] = getattr(context_commands, name)
    return entries(app)


class RecallCommands(EntriesProvider):
    def entries(self) -> list[Entry]:
        app = self.mapp
        return [
            ("Recall: search", "Focus the search box (/)", partial(app.show_tab, "recall", True)),
            ("Recall: toggle agent view", "Show the exact text the agent's recall returns (a)",
             app.toggle_agent_view),
            *hybrid_entries(app),  # reembed, hybrid on/off (hybrid_commands.py)
            *_entries(app, "context_entries"),  # the hook's text (context_commands.py)
        ]


class FactCommands(EntriesProvider):
    """``#123`` or ``open 123`` opens that fact."""

    def entries(self) -> list[Entry]:
        return []

    async def search(self, query: str) -> Hits:
        digits = query.strip().lstrip("#").removeprefix("open").strip().lstrip("#")
        if digits.isdigit():
            fact_id = int(digits)
            yield Hit(1.0, f"Open fact #{fact_id}", partial(self.mapp.open_fact, fact_id),
                      help="Show its detail and chain")
