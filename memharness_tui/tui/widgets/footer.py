"""Textual's key footer, rebuilt only when the keys it would show actually changed.

Textual's ``Footer`` recomposes (unmounts and mounts every key) on each bindings-updated
signal, and one focus change sends several: switching a tab rebuilt the same 14–21 keys
twice, and each rebuild also restyled every key twice (``FooterKey.compact`` starts ``True``
and is then bound to the footer's ``False``). Together that was over half of a tab switch's
main-thread time. What is shown is unchanged.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeysFooter(Footer):
    """A ``Footer`` that skips a rebuild showing exactly the keys already shown."""

    _shown: tuple[Any, ...] | None = None

    def _signature(self) -> tuple[Any, ...]:
        """Everything ``Footer.compose`` reads from the active bindings."""
        palette = self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE
        return (
            self._bindings_ready, self.compact, palette,
            tuple((b.key, b.action, b.description, b.group, enabled, tooltip, b.tooltip,
                   self.app.get_key_display(b))
                  for (_node, b, enabled, tooltip) in self.screen.active_bindings.values()
                  if b.show or (palette and b.key == self.app.COMMAND_PALETTE_BINDING)),
        )

    async def recompose(self) -> None:
        if not self.is_attached:
            return
        signature = self._signature()
        if signature == self._shown:
            return
        self._shown = signature
        await super().recompose()

    def compose(self) -> ComposeResult:
        for widget in super().compose():  # every key passes here, grouped ones too
            if isinstance(widget, FooterKey) and "compact" in (widget._reactive_connect or {}):
                # start where its data binding will put it: no restyle on mount (the
                # palette key is not bound and keeps its own compact style)
                widget.set_reactive(FooterKey.compact, self.compact)
            yield widget
