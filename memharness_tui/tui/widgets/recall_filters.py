"""The Recall tab's filters: the three filter Selects, the light stand-ins the first frame shows
in their place, and the subject box's completion."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from rich.text import Text
from textual.suggester import Suggester
from textual.widgets import Static

from memharness_tui.tui import tcss

if TYPE_CHECKING:
    from textual.widgets import Select

KIND_OPTIONS = ("semantic", "episodic", "procedural")
FRESHNESS_OPTIONS = ("current", "stale", "unresolved", "unchecked")
LIMIT_OPTIONS = (8, 25, 50, 100, 200)
DEFAULT_LIMIT = 50


class Filter(NamedTuple):
    """One filter Select: its prompt (shown while blank), options and initial value."""

    prompt: str | None
    options: tuple[tuple[str, Any], ...]
    value: Any


FILTERS = {  # by widget id
    "limit-filter": Filter(None, tuple((f"top {n}", n) for n in LIMIT_OPTIONS), DEFAULT_LIMIT),
    "kind-filter": Filter("any kind", tuple((k, k) for k in KIND_OPTIONS), None),
    "freshness-filter": Filter("any freshness", tuple((f, f) for f in FRESHNESS_OPTIONS), None),
}


def filter_select(filter_id: str) -> Select[Any]:
    """The real filter ``Select`` for ``filter_id`` (see ``FILTERS``)."""
    from textual.widgets import Select

    prompt, options, value = FILTERS[filter_id]
    if value is not None:
        return Select(options, value=value, allow_blank=False, id=filter_id)
    return Select(options, prompt=prompt or "", id=filter_id)


class FilterStub(Static):
    """Stands in for a filter ``Select`` in the first frame; same cell, border and label.

    A ``Select`` is the heaviest widget on the Recall tab (its current-value row, an overlay
    option list, and their styles parsed on first use), so the pane is composed with these
    and the main screen swaps the real Selects in once the first results are painted
    (``RecallPane.mount_filters``). Not focusable: nothing can be chosen before the swap.
    Styled in ``recall_filters.tcss`` like a Select's current-value row.
    """

    DEFAULT_CSS = tcss.rules(__file__)

    def __init__(self, filter_id: str) -> None:
        prompt, options, value = FILTERS[filter_id]
        label = next(text for text, v in options if v == value) if value is not None else prompt
        super().__init__(id=f"{filter_id}-stub", classes="-has-value" if value is not None else "")
        self.filter_id = filter_id
        self._label = label or ""

    def render(self) -> Text:
        width = max(1, self.content_size.width - 2)
        return Text(f"{self._label[:width]:<{width}} ▼", no_wrap=True)


class SubjectSuggester(Suggester):
    """Completes a subject from the store's subjects, read once, on the first keystroke.

    Like ``SuggestFromList(names, case_sensitive=False)``: the first name (in the store's
    order) that starts with the typed text, ignoring case. A failed read suggests nothing.
    """

    def __init__(self, load: Callable[[], Awaitable[list[str]]]) -> None:
        super().__init__(use_cache=False, case_sensitive=False)
        self._load = load
        self._names: list[tuple[str, str]] | None = None

    async def get_suggestion(self, value: str) -> str | None:
        if self._names is None:
            try:
                self._names = [(n.casefold(), n) for n in await self._load()]
            except Exception:  # noqa: BLE001 - a suggestion is a nicety; never an error
                return None
        return next((name for folded, name in self._names if folded.startswith(value)), None)
