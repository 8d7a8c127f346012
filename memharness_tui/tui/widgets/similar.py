"""Similar by meaning: the facts nearest one fact by its stored vector, with their similarity.

A list the fact detail screen and the revise modal show; Enter (or its screen's key) on a row
posts ``OpenFact`` — the screen or the app opens it. When the fact has no vector, one line
says so. The read runs on the DB thread (``VectorService.similar``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on, work
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from memharness_tui.tui.messages import OpenFact
from memharness_tui.tui.render import clean
from memharness_tui.tui.widgets.base import WorkerErrorsToApp

if TYPE_CHECKING:
    from memharness_tui.store.neighbours import Neighbours
    from memharness_tui.tui.app import MemharnessApp

NO_VECTOR = "no vector: this fact carries no stored embedding (reembed gives it one)"
NONE_NEAR = "no other current fact has a vector of this dimension"


def neighbour_line(n: Any, width: int = 70) -> Text:
    """``#12  0.83  subject: text`` (database text as literal, single-line text)."""
    line = Text()
    line.append(f"#{n.id}", style="bold")
    line.append(f"  {n.similarity:.2f}  ", style="dim")
    line.append(clean(n.subject, single_line=True, max_len=24), style="italic")
    line.append(": ")
    line.append(clean(n.fact, single_line=True, max_len=width))
    return line


class SimilarList(WorkerErrorsToApp, OptionList):
    """The nearest current facts by meaning; ``show_for(fact_id)`` reads and fills it."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, compact=True)
        self.display = False  # until a read says there is something to say
        self.border_title = "Similar by meaning"
        self.neighbours: Neighbours | None = None
        self.fact_id: int | None = None

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    def show_for(self, fact_id: int) -> None:
        self.fact_id = fact_id
        self._read(fact_id)

    @work(exclusive=True, group="similar", exit_on_error=False)
    async def _read(self, fact_id: int) -> None:
        found = await self.mapp.vectors.similar(fact_id)
        if fact_id == self.fact_id:
            self.fill(found)

    def fill(self, found: Neighbours) -> None:
        self.neighbours = found
        self.display = found.has_vector or found.store_has_vectors  # no vectors anywhere: hidden
        self.clear_options()
        if not found.has_vector:
            self.add_option(Option(Text(NO_VECTOR, style="dim italic"), disabled=True))
            self.border_subtitle = ""
            return
        if not found.items:
            self.add_option(Option(Text(NONE_NEAR, style="dim italic"), disabled=True))
        else:
            self.add_options(Option(neighbour_line(n), id=str(n.id)) for n in found.items)
            self.highlighted = 0
        capped = " · first 5,000 compared (sqlite-vec not loaded)" if found.capped else ""
        self.border_subtitle = f"cosine over stored {found.dim}-number vectors{capped}"

    def ids(self) -> list[int]:
        return [] if self.neighbours is None else [n.id for n in self.neighbours.items]

    def open_highlighted(self) -> bool:
        """Post ``OpenFact`` for the highlighted neighbour; False when there is none."""
        index = self.highlighted
        ids = self.ids()
        if index is None or not 0 <= index < len(ids):
            return False
        self.post_message(OpenFact(ids[index]))
        return True

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(OpenFact(int(event.option.id)))
