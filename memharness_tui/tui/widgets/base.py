"""Shared plumbing for panes and widgets: worker failures to the app's one error handler, loading
when shown, and a virtual size that does not lay the screen out."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.geometry import Size
from textual.reactive import Reactive
from textual.worker import Worker, WorkerState

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp


class WorkerErrorsToApp:
    """Mixin for widgets/screens running workers: errors surface as a notification or modal."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            app = cast("MemharnessApp", self.app)  # type: ignore[attr-defined]
            app.report_error(event.worker.error)


class LoadsWhenShown:
    """For tab panes: load data the first time the pane is shown, and reload on change only
    when visible (otherwise mark it to reload when next shown). Subclasses implement reload()."""

    _needs_load: bool = True

    def reload(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def _visible_now(self) -> bool:
        parent = getattr(self, "parent", None)
        return bool(getattr(self, "is_mounted", False)) and bool(getattr(parent, "display", False))

    def on_show(self) -> None:
        if self._needs_load:
            self._needs_load = False
            self.reload()

    def invalidate(self) -> None:
        """Data changed (as_of, a write): reload now if visible, else when next shown."""
        if self._visible_now():
            self._needs_load = False
            self.reload()
        else:
            self._needs_load = True


class VirtualSizeWithoutLayout:
    """For a widget whose own box is fixed (by CSS) while its content grows or scrolls: a new
    virtual size updates the scrollbars, instead of the layout of the whole screen Textual's
    ``virtual_size`` reactive asks for on every change (once per keystroke in a text box, once
    per write in a log). A scrollbar that appears or goes still lays the screen out
    (``show_*_scrollbar``). Put it before the Textual widget class in the bases."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def watch_virtual_size(self, size: Size) -> None:
        if self.is_mounted and self.container_size:  # type: ignore[attr-defined]
            self._scroll_update(size)  # type: ignore[attr-defined]
