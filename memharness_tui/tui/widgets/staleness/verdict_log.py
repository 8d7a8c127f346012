"""The streaming log of verdicts: one line each for small drains, a sample and a tally for big ones
(writing thousands of lines would cost the UI more than the pass itself)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.geometry import Size
from textual.widgets import RichLog

from memharness_tui.tui import tcss
from memharness_tui.tui.perf.scrolling import (
    SteadyScrollbars,
    log_size_known,
    update_scrollbars,
    virtual_size_without_layout,
)
from memharness_tui.tui.render import clean, freshness_badge, safe, theme_color

if TYPE_CHECKING:
    from memharness_tui.tui.services.passes import PassProgress, Verdict
    from memharness_tui.tui.widgets.staleness.controller import PassState

LOG_LINES = 2000
LOG_DETAIL = 24  # a drain this small is logged one line per verdict
LOG_SAMPLE = 5  # from a bigger drain: this many flagged lines, then a tally
_FALLBACK = {"success": "green", "error": "red", "warning": "yellow"}


class VerdictLog(SteadyScrollbars, RichLog):
    """A RichLog whose writes repaint the log without laying the screen out again.

    Every write grows the log's virtual size, and the stock reactive asks for a layout of the
    whole screen each time (the dominant UI cost of a streaming pass). The log's own box never
    changes size, so here a new virtual size only updates the scrollbars; a scrollbar that
    appears or goes still asks for a layout itself (``show_*_scrollbar``).
    """

    DEFAULT_CSS = tcss.rules(__file__)

    virtual_size = virtual_size_without_layout()

    def watch_virtual_size(self, size: Size) -> None:
        update_scrollbars(self, size)

    def __init__(self, short: Callable[[str], str], *, id: str | None = None) -> None:
        super().__init__(id=id, max_lines=LOG_LINES, wrap=False, markup=False, auto_scroll=True)
        self.short = short

    def line(self, text: Text) -> None:
        self.write(text)

    def pass_ended(self, st: PassState, ev: PassProgress, summary: Text, took: Text) -> None:
        """The lines that close a pass: its summary, its time (its own line: at 80 columns the
        end of the summary's line was cut off), damaged objects met (those pins were left as
        they were) and the stale ids."""
        line = Text(f"— pass {st.run} {'cancelled' if ev.cancelled else 'done'}: ", style="bold")
        line.append(summary.plain)
        self.line(line)
        self.line(Text(f"  {took.plain}", style="dim"))
        for message in st.spass.report.repo_errors:
            self.line(Text(f"✗ repo error: {clean(message, single_line=True)}", style="bold red"))
        if ev.stale and not st.check_only:
            stale_ids = list(st.spass.report.stale_ids)[:50]
            self.line(Text("  stale ids: " + ", ".join(f"#{i}" for i in stale_ids)
                           + (" …" if ev.stale > len(stale_ids) else ""), style="dim"))

    def verdicts(self, verdicts: Sequence[Verdict], several_repos: bool) -> None:
        if not verdicts:
            return
        self._verdicts(verdicts, several_repos)
        if self.auto_scroll and log_size_known(self):
            # One scroll per drain, at once: the new virtual size is already known (no layout
            # to wait for), so the log is painted at its end in the same frame as its lines.
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def _verdicts(self, verdicts: Sequence[Verdict], several_repos: bool) -> None:
        scroll = None if not log_size_known(self) else False  # deferred writes scroll themselves
        if len(verdicts) <= LOG_DETAIL:
            for v in verdicts:
                self.write(self._verdict_line(v, several_repos), scroll_end=scroll)
            return
        flagged = [v for v in verdicts if v.freshness != "current"]
        for v in flagged[:LOG_SAMPLE]:
            self.write(self._verdict_line(v, several_repos), scroll_end=scroll)
        tally: dict[str, int] = {}
        for v in verdicts:
            tally[v.freshness] = tally.get(v.freshness, 0) + 1
        note = Text("  … ")
        for name, colour in (("current", "success"), ("stale", "error"),
                             ("unresolved", "warning")):
            if tally.get(name):
                note.append(f"{tally[name]:,} {name}  ",
                            style=theme_color(self.app, colour, _FALLBACK[colour]))
        note.append(f"#{verdicts[0].fact_id}…#{verdicts[-1].fact_id}", style="dim")
        if len(flagged) > LOG_SAMPLE:
            note.append("  (every flagged one is in the table)", style="dim")
        self.write(note, scroll_end=scroll)

    def _verdict_line(self, v: Verdict, several_repos: bool) -> Text:
        badge = freshness_badge(self.app, v.freshness, True)
        t = Text("  ")
        t.append_text(badge)
        t.append(" " * max(1, 13 - len(badge.plain)))
        t.append(f"#{v.fact_id:<6}", style="bold")
        pin = safe(v.pin, "dim", single_line=True, max_len=40)
        pin.pad_right(max(0, 24 - len(pin.plain)))
        t.append_text(pin)
        t.append("  ")
        t.append_text(safe(v.reason, single_line=True, max_len=100))
        if v.backfilled:
            t.append("  (backfilled)", style="italic")
        if several_repos and v.repo:
            t.append(f"  [{clean(self.short(v.repo), single_line=True)}]", style="dim")
        return t
