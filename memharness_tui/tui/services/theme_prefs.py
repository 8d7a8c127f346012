"""The app's theme choice: shipped and user themes registered, picked, remembered.

Only a theme that passes :func:`~memharness_tui.tui.themes.theme_problem` is offered, applied
or saved: Textual's ``ansi-dark`` once crashed every later start. A saved theme that no longer
passes (or no longer exists) gives way to the default, with a notice; the setting is kept.
The app holds one :class:`ThemePreferences` as ``app.themes``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from textual.app import App

FALLBACK_THEME = "textual-dark"
"""When even the default cannot be used (its file removed or broken)."""


class ThemePreferences:
    """The themes ``app`` may use, and the one saved in ``settings`` under ``config_dir``."""

    def __init__(self, app: App[Any], settings: config.Settings, config_dir: Path) -> None:
        self._app = app
        self._settings = settings
        self._config_dir = config_dir
        self._origin: dict[str, str] = {}
        self._checked: dict[str, str | None] = {}
        """Theme name → why it cannot be used (None: it can), each checked once."""
        self._notice: str | None = None

    def register(self) -> list[ThemeProblem]:
        """Register ours and the user's themes with the app; the files skipped, and why."""
        shipped, problems = load_themes(shipped_theme_files())
        user, user_problems = load_themes(
            user_theme_files(config.user_themes_dir(self._config_dir)))
        for origin, themes in (("memharness", shipped), ("yours", user)):
            for theme in themes:
                self._app.register_theme(theme)
                self._origin[theme.name] = origin
                self._checked[theme.name] = None  # load_themes checked it
        return problems + user_problems

    def problem(self, name: str) -> str | None:
        """Why the theme called ``name`` must not be offered, applied or saved; None if fine."""
        if name not in self._checked:
            theme = self._app.available_themes.get(name)
            self._checked[name] = ("it is not installed (removed, or skipped as reported)"
                                   if theme is None else theme_problem(theme))
        return self._checked[name]

    def names(self) -> list[str]:
        """Ours first, then the user's, then Textual's built-ins; only those that can be used."""
        order = {"memharness": 0, "yours": 1}
        names = [n for n in self._app.available_themes
                 if n != "textual-ansi" and self.problem(n) is None]
        return sorted(names, key=lambda n: (order.get(self._origin.get(n, ""), 2), n))

    def starting(self) -> str:
        """The saved theme if it can be used, else the default (the notice says why)."""
        default = DEFAULT_THEME if self.problem(DEFAULT_THEME) is None else FALLBACK_THEME
        wanted = self._settings.theme
        if wanted is None or wanted == default:
            return default
        problem = self.problem(wanted)
        if problem is None:
            return wanted
        self._notice = (
            f"The saved theme {wanted!r} cannot be used: {problem}. Using {default} "
            "instead (Ctrl+T picks another).")
        return default

    def announce(self, problems: list[ThemeProblem]) -> None:
        """At mount: the theme files skipped, and a saved theme not used."""
        damaged = config.settings_file_problem(self._config_dir)
        if damaged:  # the defaults are in use; the file is kept as it is
            self._app.notify(damaged, title="Settings not loaded", severity="warning", timeout=8)
        if problems:
            lines = "\n".join(str(p) for p in problems)
            n = len(problems)
            self._app.notify(lines, title=f"Skipped {n} theme file{'s' if n != 1 else ''}",
                             severity="warning", timeout=8)
        notice, self._notice = self._notice, None
        if notice:
            self._app.notify(notice, title="Saved theme not used", severity="warning", timeout=8)

    def origin(self, name: str) -> str:
        return self._origin.get(name, "textual" if name in BUILTIN_THEMES else "")

    def pick(self) -> None:
        """Ctrl+T: the picker (offering only usable themes); the one picked is applied."""
        from memharness_tui.tui.screens.modals import ThemePicker

        def picked(name: str | None) -> None:
            if name:
                self.choose(name)

        self._app.push_screen(ThemePicker(), picked)

    def choose(self, name: str) -> None:
        """Apply a theme and remember it in the config dir (never beside the database)."""
        problem = self.problem(name)
        if problem is not None:
            self._app.notify(f"Theme {name!r} not applied: {problem}.", severity="error")
            return
        self._app.theme = name
        self._settings.theme = name
        try:
            config.save_settings(self._settings, self._config_dir)
        except OSError as exc:
            self._app.notify(f"Theme applied but not saved: {exc}", severity="warning")
