"""Messages the app's widgets and screens exchange (one module, so they are easy to find)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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


class ConfirmWanted(Message):
    """A widget asks the person to confirm something; its screen opens the confirmation
    (widgets post this instead of opening a screen themselves)."""

    def __init__(self, title: str, detail: str, answered: Callable[[bool | None], Any], *,
                 confirm: str, danger: bool = False) -> None:
        super().__init__()
        self.title = title
        self.detail = detail
        self.answered = answered
        self.confirm = confirm
        self.danger = danger


class ReposWanted(Message):
    """A widget asks for the repos editor on ``repos``; ``chosen`` gets the new list (None:
    unchanged). Its screen opens the editor."""

    def __init__(self, repos: list[str], chosen: Callable[[list[str] | None], Any]) -> None:
        super().__init__()
        self.repos = repos
        self.chosen = chosen


class ReembedWanted(Message):
    """The Recall tab's ``V``: its screen opens reembed (or says the store is read-only)."""
