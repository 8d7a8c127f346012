"""Messages the app's widgets and screens exchange (one module, so they are easy to find)."""

from __future__ import annotations

from textual.message import Message


class OpenFact(Message):
    """Ask the app to show a fact's detail screen."""

    def __init__(self, fact_id: int) -> None:
        super().__init__()
        self.fact_id = fact_id


class StoreChanged(Message):
    """The store was written (e.g. by a revise/triage modal): lists and counts should reload."""


class SubjectChosen(Message):
    """A subject was picked in the subjects pane (or elsewhere) to filter by."""

    def __init__(self, subject: str) -> None:
        super().__init__()
        self.subject = subject
