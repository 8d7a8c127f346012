"""The starting theme applied in the App's constructor, without Textual's re-parse of the CSS.

Setting ``App.theme`` runs ``App._watch_theme``, which queues ``App.refresh_css``: a fresh
stylesheet that parses every rule again and re-styles every widget. That is what a theme
change needs under a running app. Set in the constructor, the CSS has not been parsed yet and
no widget exists; the queued re-parse still ran when the app started, ~8 ms of a cold start
before the first frame, and the app's first parse then parsed it all once more.
``start_with`` sets the theme without its watcher and does the watcher's other work at once:
the theme's classes on the App, the stylesheet's variables (read by its first parse), and the
ANSI → truecolor filter. Every later theme change goes through ``App.theme`` as usual.

Textual internals it uses (here, in ``perf/``): ``App._refresh_truecolor_filter``.
"""

from __future__ import annotations

from typing import Any

from textual.app import App


def start_with(app: App[Any], name: str) -> None:
    """Make ``name`` (a registered theme) ``app``'s theme before the app runs."""
    if name == app.theme:
        return
    app.set_reactive(App.theme, name)
    theme = app.current_theme
    classes = {cls: False for cls in app.classes if cls.startswith("-theme-")}
    classes[f"-theme-{theme.name}"] = True
    classes["-dark-mode"] = theme.dark
    classes["-light-mode"] = not theme.dark
    app.update_classes(classes, update=False)
    app._refresh_truecolor_filter(app.ansi_theme)  # noqa: SLF001 - see the module's docstring
    app.stylesheet.set_variables(app.get_css_variables())
