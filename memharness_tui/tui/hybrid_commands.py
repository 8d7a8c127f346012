"""Palette entries for hybrid recall: reembed, and turning hybrid on or off (remembered
in the settings, like the theme)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from memharness_tui.tui.commands import Entry

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp


def open_reembed(app: MemharnessApp) -> None:
    """The palette's entry, and the Recall tab's ``V`` (its ``ReembedWanted``, which the main
    screen hands here): refuse on a read-only store, else open the reembed modal."""
    from memharness_tui.tui.editing import is_readonly
    from memharness_tui.tui.screens.reembed import ReembedScreen

    if is_readonly(app):
        app.notify("This database is open read-only; nothing was embedded.",
                   title="reembed", severity="warning", timeout=5)
        return
    if not isinstance(app.screen, ReembedScreen):
        app.push_screen(ReembedScreen())


def toggle_hybrid(app: MemharnessApp) -> None:
    """Flip the ``hybrid`` setting, save it, and tell the Recall tab (its label, its list)."""
    from memharness_tui import config

    settings = app.settings
    settings.hybrid = not settings.hybrid
    try:
        config.save_settings(settings, app.config_dir)
    except OSError as exc:
        app.notify(f"Hybrid recall {'on' if settings.hybrid else 'off'} for this session; the "
                   f"setting was not saved: {exc}", severity="warning", timeout=6)
    app.embedding.set_requested(settings.hybrid)


def entries(app: MemharnessApp) -> list[Entry]:
    """The palette's hybrid entries (listed with the Recall commands)."""
    on = app.settings.hybrid
    return [
        ("Reembed: a vector for every fact", "Embed the facts lacking a vector from the "
         "installed model, with progress and cancel (V on the Recall tab)",
         partial(open_reembed, app)),
        (f"Hybrid recall: turn {'off' if on else 'on'}",
         "Recall as an agent running MEMHARNESS_HYBRID=1 does (remembered)",
         partial(toggle_hybrid, app)),
    ]
