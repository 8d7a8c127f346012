"""Shared plumbing for panes and widgets: worker failures to the app's one error handler, and
loading when shown. (The scroll tricks that lean on Textual's internals live in ``tui/perf``.)"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.worker import Worker, WorkerState

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from memharness_tui.tui.app import MemharnessApp


def report_worker_error(node: DOMNode, event: Worker.StateChanged) -> None:
    """A worker of ``node`` failed: the app says so (a notification or a modal)."""
    if event.state == WorkerState.ERROR and event.worker.error is not None:
        cast("MemharnessApp", node.app).report_error(event.worker.error)


class WorkerErrorsToApp:
    """Mixin for widgets/screens running workers: errors surface as a notification or modal."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_worker_error(cast("DOMNode", self), event)


class LoadsWhenShown(WorkerErrorsToApp):
    """For tab panes: load data the first time the pane is shown, and reload on change only
    when visible (otherwise mark it to reload when next shown). Subclasses implement reload(),
    which loads in workers (so their failures go to the app, as ``WorkerErrorsToApp``'s)."""

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
