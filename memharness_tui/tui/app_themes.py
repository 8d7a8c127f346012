"""The app's theme choice: shipped and user themes registered, picked, remembered.

A mixin of :class:`~memharness_tui.tui.app.MemharnessApp` (it uses the app's ``settings``,
``config_dir`` and ``_theme_origin``), kept apart so the app class stays about one job.

Only a theme that passes :func:`~memharness_tui.tui.themes.theme_problem` is offered, applied
or saved: Textual's ``ansi-dark`` once crashed every later start. A saved theme that no longer
passes (or no longer exists) gives way to the default, with a notice; the setting is kept.
"""

from __future__ import annotations

from typing import Any

from textual.theme import BUILTIN_THEMES

from memharness_tui import config
from memharness_tui.tui.themes import (
    DEFAULT_THEME,
    ThemeProblem,
    load_themes,
    shipped_theme_files,
    theme_problem,
    user_theme_files,
)

FALLBACK_THEME = "textual-dark"
"""When even the default cannot be used (its file removed or broken)."""


class ThemeChoice:
    def _register_themes(self) -> list[ThemeProblem]:
        shipped, problems = load_themes(shipped_theme_files())
        user, user_problems = load_themes(user_theme_files(config.user_themes_dir(self.config_dir)))
        checked = self._themes_checked
        for theme in shipped:
            self.register_theme(theme)
            self._theme_origin[theme.name] = "memharness"
            checked[theme.name] = None  # load_themes checked it
        for theme in user:
            self.register_theme(theme)
            self._theme_origin[theme.name] = "yours"
            checked[theme.name] = None
        return problems + user_problems

    @property
    def _themes_checked(self) -> dict[str, str | None]:
        """Theme name → why it cannot be used (None: it can), each checked once."""
        return self.__dict__.setdefault("_theme_checks", {})

    def theme_problem(self, name: str) -> str | None:
        """Why the theme called ``name`` must not be offered, applied or saved; None if fine."""
        checked = self._themes_checked
        if name not in checked:
            theme = self.available_themes.get(name)
            checked[name] = ("it is not installed (removed, or skipped as reported)"
                             if theme is None else theme_problem(theme))
        return checked[name]

    def theme_names(self) -> list[str]:
        """Ours first, then the user's, then Textual's built-ins; only those that can be used."""
        order = {"memharness": 0, "yours": 1}
        names = [n for n in self.available_themes
                 if n != "textual-ansi" and self.theme_problem(n) is None]
        return sorted(names, key=lambda n: (order.get(self._theme_origin.get(n, ""), 2), n))

    def starting_theme(self) -> str:
        """The saved theme if it can be used, else the default (the notice says why)."""
        default = DEFAULT_THEME if self.theme_problem(DEFAULT_THEME) is None else FALLBACK_THEME
        wanted = self.settings.theme
        if wanted is None or wanted == default:
            return default
        problem = self.theme_problem(wanted)
        if problem is None:
            return wanted
        self.__dict__["_theme_notice"] = (
            f"The saved theme {wanted!r} cannot be used: {problem}. Using {default} "
            "instead (Ctrl+T picks another).")
        return default

    def announce_theme_problems(self, problems: list[ThemeProblem]) -> None:
        """At mount: the theme files skipped, and a saved theme not used."""
        if problems:
            lines = "\n".join(str(p) for p in problems)
            n = len(problems)
            self.notify(lines, title=f"Skipped {n} theme file{'s' if n != 1 else ''}",
                        severity="warning", timeout=8)
        notice = self.__dict__.pop("_theme_notice", None)
        if notice:
            self.notify(notice, title="Saved theme not used", severity="warning", timeout=8)

    def theme_origin(self, name: str) -> str:
        return self._theme_origin.get(name, "textual" if name in BUILTIN_THEMES else "")

    def choose_theme(self, name: str) -> None:
        """Apply a theme and remember it in the config dir (never beside the database)."""
        problem = self.theme_problem(name)
        if problem is not None:
            self.notify(f"Theme {name!r} not applied: {problem}.", severity="error")
            return
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

