"""What changed since a date: learned / revised (was → now) / retracted, optionally per subject."""

from __future__ import annotations

from contextlib import suppress
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Button, DataTable, Input, Static

from memharness_tui.tui import tcss
from memharness_tui.tui.messages import OpenFact
from memharness_tui.tui.perf.look_table import LookCachedTable
from memharness_tui.tui.render import cell, clean, parse_iso, theme_color
from memharness_tui.tui.widgets.base import LoadsWhenShown
from memharness_tui.tui.widgets.search_box import SearchBox
from memharness_tui.tui.worddiff import diff_line

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp

DEFAULT_DAYS = 30  # the "since" box starts this many days before now
ROWS_PER_SECTION = 300  # keep the table light; the summary says how many there are


FACT_MIN = 16  # the Fact column is never narrower (the When column then goes past the edge)

_W = TypeVar("_W", bound=Widget)


def _short_iso(ts: str) -> str:
    """``2026-11-02T00:00:00.000Z`` → ``2026-11-02 00:00Z`` (seconds kept when not zero)."""
    if ts.endswith(":00.000Z") and len(ts) == 24:
        return ts[:16].replace("T", " ") + "Z"
    return ts.replace("T", " ")


def _fact_cell(kind: str, what: Any, room: int) -> Text:
    """The Fact column's cell cut to ``room`` cells with an ellipsis: a fact's text, or a
    revision's was → now (each side half the room, each cut around the words that differ, so
    two long texts that share a beginning never look the same)."""
    if kind in "LX":
        return _cut(cell(what.fact, "dim" if kind == "X" else "", max_len=room), room)
    old, new = what.old, what.new
    other = new.fact if new is not None else None
    text = diff_line(old.fact, other, max(6, (room - 3) // 2), style="strike dim")
    text.append(" → ")
    text.append_text(diff_line(new.fact, old.fact, max(6, room - text.cell_len))
                     if new is not None else Text("(missing)", style="italic"))
    return text


def _cut(text: Text, cells: int) -> Text:
    """``text`` in at most ``cells`` terminal cells (wide characters count two), "…" when cut."""
    if text.cell_len > cells:
        text.truncate(cells, overflow="ellipsis")
    return text


class DiffPane(LoadsWhenShown, Vertical):
    """Changes since a date; under time travel, only those made by then (``as_of``)."""

    DEFAULT_CSS = tcss.rules(__file__)

    BINDINGS = [
        Binding("d", "focus_since", "Since", id="diff.since",
                tooltip="Type the date to show changes since (Enter shows them; Esc back)"),
        Binding("u", "focus_subject", "Subject", show=False, id="diff.subject",
                tooltip="Only changes to one subject (Enter shows them; Esc back)"),
    ]

    as_of: reactive[str | None] = reactive(None, init=False)
    store_revision: reactive[int] = reactive(0, init=False)
    readonly: reactive[bool] = reactive(False, init=False)

    def action_focus_since(self) -> None:
        if (box := self._part("#diff-since", Input)) is not None:
            box.focus()

    def action_focus_subject(self) -> None:
        if (box := self._part("#diff-subject", Input)) is not None:
            box.focus()

    def _part(self, selector: str, kind: type[_W]) -> _W | None:
        """This pane's own ``selector`` child, or None while the pane is being taken down.

        Its children are removed before it: when a session ends (a browser tab closed under
        ``serve``) while the pane is still being built or reloading, its mount, a reload or
        a time-travel change lands after its boxes are gone. Then there is nothing to show.
        """
        try:
            return self.query_one(selector, kind)
        except NoMatches:
            return None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.last_diff: Any = None
        self._shown_for: tuple[str | None, str | None] | None = None
        self._default_since = ""
        #: what the table shows was read for: (since, subject, until, store revision, theme)
        self._read_for: tuple[object, ...] | None = None
        self._shown_width = 0  # the width the Fact column was last fitted to

    def watch_as_of(self, as_of: str | None) -> None:
        box = self._part("#diff-since", Input)
        if box is None:
            return
        if box.value == self._default_since:  # not typed by the person: follow the travel
            self._default_since = self._since_default(as_of)
            box.value = self._default_since
        self.invalidate()

    def _since_default(self, as_of: str | None) -> str:
        start = parse_iso(as_of or self.mapp.now_iso()) - timedelta(days=DEFAULT_DAYS)
        return start.strftime("%Y-%m-%d")

    def watch_store_revision(self) -> None:
        self.invalidate()

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    def compose(self) -> ComposeResult:
        with Horizontal(id="diff-filters"):
            yield SearchBox(placeholder="since (2026-01-01 or 2026-01-01T09:00Z)", id="diff-since")
            yield SearchBox(placeholder="subject (optional)", id="diff-subject")
            yield Button("Show changes", id="diff-run", variant="primary")
        yield Static(id="diff-summary")
        yield LookCachedTable(id="diff-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self._part("#diff-table", DataTable)
        box = self._part("#diff-since", Input)
        if table is None or box is None:
            return
        for key, label in (("change", "Change"), ("id", "ID"), ("subject", "Subject"),
                           ("fact", "Fact (was → now)"), ("when", "When")):
            table.add_column(label, key=key)
        self._default_since = self._since_default(self.as_of)
        box.value = self._default_since
        if self._needs_load:  # built hidden: read and fill ahead (see SubjectsPane._warm)
            self.run_worker(self._warm(self._default_since), group="diff-warm",
                            exit_on_error=False)

    async def _warm(self, since: str) -> None:
        from memharness_tui.store.timeutil import normalize_iso

        with suppress(Exception):  # only a head start: the visit reads (and reports) again
            await self._diff(normalize_iso(since, "since"), None, self.as_of, ahead=True)

    def reload(self) -> None:
        self.run_diff()

    @on(Input.Submitted, "#diff-since, #diff-subject")
    def _entered(self) -> None:
        """Enter in a box shows the changes and moves to them (a bad date keeps the box)."""
        if self.run_diff() and (table := self._part("#diff-table", DataTable)) is not None:
            table.focus()

    @on(Button.Pressed, "#diff-run")
    def run_diff(self) -> bool:
        from memharness_tui.store.errors import InvalidInput
        from memharness_tui.store.timeutil import normalize_iso

        since_box = self._part("#diff-since", Input)
        subject_box = self._part("#diff-subject", Input)
        summary = self._part("#diff-summary", Static)
        if since_box is None or subject_box is None or summary is None:
            return False
        raw = since_box.value.strip()
        try:
            since = normalize_iso(raw, "since")
        except InvalidInput as exc:
            self._read_for = None
            summary.update(Text(f"✗ {clean(exc.message, single_line=True)}", style="bold red"))
            return False
        subject = subject_box.value.strip() or None
        self._load(since, subject, self.as_of)
        return True

    @work(exclusive=True, group="diff", exit_on_error=False)
    async def _load(self, since: str, subject: str | None, until: str | None) -> None:
        await self._diff(since, subject, until)

    async def _diff(self, since: str, subject: str | None, until: str | None, *,
                    ahead: bool = False) -> None:
        """Read and show the changes, unless the table shows them already: read for the same
        question with no write since (the read ahead while hidden, then the first visit)."""
        key = (since, subject, until, self.store_revision, self.app.theme)
        if key == self._read_for:
            return
        diff = await self.mapp.service.diff(since, subject, until=until)
        if ahead and not self._needs_load:
            return  # shown meanwhile: the visit's own read shows it
        self.last_diff = diff
        self._show(diff, subject, until)
        self._read_for = key

    def _show(self, diff: Any, subject: str | None, until: str | None = None) -> None:
        table = self._part("#diff-table", DataTable)
        shown_in = self._part("#diff-summary", Static)
        if table is None or shown_in is None:
            return
        self._shown_for = (subject, until)
        self._shown_width = self.size.width or self.app.size.width
        keep = table.cursor_row
        table.clear()
        ok = theme_color(self.app, "success", "green")
        warn = theme_color(self.app, "warning", "yellow")
        bad = theme_color(self.app, "error", "red")
        # (ID and When not dim: on the cursor row a dim cell fell to 2.9:1)
        subject_len = 24 if (self.size.width or self.app.size.width) >= 100 else 14
        rows: list[tuple[Text, Text, Text, Any, Text, str]] = []
        for f in diff.learned[:ROWS_PER_SECTION]:
            rows.append((Text("+ learned", style=f"bold {ok}"), Text(str(f.id)),
                         cell(f.subject, max_len=subject_len), f,
                         Text(f.tx_at[:16].replace("T", " ")), f"L{f.id}"))
        for pair in diff.revised[:ROWS_PER_SECTION]:
            old, new = pair.old, pair.new
            shown = new if new is not None else old
            rows.append((Text("~ revised", style=f"bold {warn}"),
                         Text(f"{old.id}→{new.id if new else '?'}"),
                         cell(old.subject, max_len=subject_len), pair,
                         Text((old.valid_to or "")[:16].replace("T", " ")), f"R{shown.id}"))
        for f in diff.retracted[:ROWS_PER_SECTION]:
            rows.append((Text("− retracted", style=f"bold {bad}"), Text(str(f.id)),
                         cell(f.subject, "dim", max_len=subject_len), f,
                         Text((f.retracted_at or "")[:16].replace("T", " ")), f"X{f.id}"))
        room = self._fact_room(rows)
        for change, ident, subj, what, when, key in rows:
            table.add_row(change, ident, subj, _fact_cell(key[0], what, room), when, key=key)
        summary = Text()
        summary.append(f"Changes since {_short_iso(diff.since)}", style="bold")
        if until is not None:
            summary.append(f" up to {until}", style="bold")
            if diff.since > until:
                summary.append("  — the date is after the time-travel date")
        if subject:
            summary.append(" for ")
            summary.append(clean(subject, single_line=True, max_len=40), style="italic")
        summary.append(": ")  # (single spaces: at 80 columns the counts were cut)
        summary.append(f"{len(diff.learned):,} learned", style=ok)
        summary.append(" · ")
        summary.append(f"{len(diff.revised):,} revised", style=warn)
        summary.append(" · ")
        summary.append(f"{len(diff.retracted):,} retracted", style=bad)
        if not (diff.learned or diff.revised or diff.retracted):
            summary.append("  — nothing changed; try an earlier date")
        if max(len(diff.learned), len(diff.revised), len(diff.retracted)) > ROWS_PER_SECTION:
            summary.append(f"  (first {ROWS_PER_SECTION:,} of each shown)", style="dim")
        shown_in.update(summary)
        if keep and table.row_count:  # a refresh: the cursor stays where it was
            table.move_cursor(row=min(keep, table.row_count - 1), animate=False)

    def _fact_room(self, rows: list[tuple[Text, Text, Text, Any, Text, str]]) -> int:
        """Cells the Fact column has: the table's width less the other columns (each as wide
        as its widest cell or heading, and two cells of padding) and a scrollbar's room."""
        width = self.size.width or self.app.size.width
        others = 0
        for i, heading in ((0, "Change"), (1, "ID"), (2, "Subject"), (4, "When")):
            widths = [cast(Text, r[i]).cell_len for r in rows]
            others += max([len(heading), *widths]) + 2
        return max(FACT_MIN, width - others - 2 - 2)

    def on_resize(self) -> None:
        if (self.last_diff is not None and self._shown_for is not None
                and (self.size.width or self.app.size.width) != self._shown_width):
            self._show(self.last_diff, *self._shown_for)  # the Fact column fits the new width

    @on(DataTable.RowSelected, "#diff-table")
    def _open(self, event: DataTable.RowSelected) -> None:
        key = event.row_key.value
        if key:
            self.post_message(OpenFact(int(key[1:])))
