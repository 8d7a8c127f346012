"""Shared plumbing for panes: forward worker failures to the app's single error handler."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.worker import Worker, WorkerState

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp


class WorkerErrorsToApp:
    """Mixin for widgets/screens running workers: errors surface as a notification or modal."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            app = cast("MemharnessApp", self.app)  # type: ignore[attr-defined]
            app.report_error(event.worker.error)
