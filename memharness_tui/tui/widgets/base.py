"""Shared plumbing for panes and widgets: worker failures to the app's one error handler, loading
when shown, a virtual size that does not lay the screen out, and scrollbars that are not
redrawn by a layout that changed nothing about them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

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


class SteadyScrollbars:
    """For a ``ScrollView`` (a table): a layout that gives it the size it had redraws nothing.

    Textual's ``ScrollView._size_updated`` compares the virtual size the layout passes in (the
    box it arranged) with the widget's own (its rows), which always differ for a table, so
    every layout that included the table — each time its tab is shown again — redrew its
    scrollbars, one frame after the layout's own frame had drawn them. The scrollbars only
    follow the size, the container's size and the table's own virtual size; when none of
    them moved since they were last set, there is nothing to update. Put it before the
    Textual widget class in the bases."""

    _steady_for: tuple[Size, Size, Size] | None = None

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size,
                      layout: bool = True) -> bool:
        widget = cast("Any", self)
        same = (size, container_size, widget.virtual_size)
        if self._steady_for == same and widget._size == size \
                and widget.container_size == container_size:
            return False  # what Textual would answer: no Resize (neither size moved)
        changed = cast("Any", super())._size_updated(size, virtual_size, container_size, layout)
        self._steady_for = (widget._size, widget.container_size, widget.virtual_size)
        return changed
