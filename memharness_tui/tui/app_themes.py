"""The app's theme choice: shipped and user themes registered, picked, remembered.

A mixin of :class:`~memharness_tui.tui.app.MemharnessApp` (it uses the app's ``settings``,
``config_dir`` and ``_theme_origin``), kept apart so the app class stays about one job.
"""

from __future__ import annotations

from typing import Any

from textual.theme import BUILTIN_THEMES

from memharness_tui import config
from memharness_tui.tui.themes import (
    ThemeProblem,
    load_themes,
    shipped_theme_files,
    user_theme_files,
)


class ThemeChoice:
    def _register_themes(self) -> list[ThemeProblem]:
        shipped, problems = load_themes(shipped_theme_files())
        user, user_problems = load_themes(user_theme_files(config.user_themes_dir(self.config_dir)))
        for theme in shipped:
            self.register_theme(theme)
            self._theme_origin[theme.name] = "memharness"
        for theme in user:
            self.register_theme(theme)
            self._theme_origin[theme.name] = "yours"
        return problems + user_problems

    def theme_names(self) -> list[str]:
        """Ours first, then the user's, then Textual's built-ins."""
        order = {"memharness": 0, "yours": 1}
        names = [n for n in self.available_themes if n != "textual-ansi"]
        return sorted(names, key=lambda n: (order.get(self._theme_origin.get(n, ""), 2), n))

    def theme_origin(self, name: str) -> str:
        return self._theme_origin.get(name, "textual" if name in BUILTIN_THEMES else "")

    def choose_theme(self, name: str) -> None:
        """Apply a theme and remember it in the config dir (never beside the database)."""
        self.theme = name
        self.settings.theme = name
        try:
            config.save_settings(self.settings, self.config_dir)
        except OSError as exc:
            self.notify(f"Theme applied but not saved: {exc}", severity="warning")

    def action_pick_theme(self) -> None:
        from memharness_tui.tui.screens.modals import ThemePicker

        def picked(name: str | None) -> None:
            if name:
                self.choose_theme(name)

        self.push_screen(ThemePicker(), picked)

    def action_change_theme(self) -> None:  # Textual's built-in "Theme" command → our picker
        self.action_pick_theme()

    def get_system_commands(self, screen: Any) -> Any:
        """Textual's palette commands without its "Theme" (ours is "Theme: pick…")."""
        for command in super().get_system_commands(screen):
            if command.title != "Theme":
                yield command

