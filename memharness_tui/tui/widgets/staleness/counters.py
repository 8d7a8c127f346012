"""Live counters, the progress bar (real total), rate and elapsed time of a pass."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.widgets import ProgressBar, Static

from memharness_tui.tui import tcss
from memharness_tui.tui.render import clean, theme_color

if TYPE_CHECKING:
    from memharness_tui.tui.services.passes import PassProgress
    from memharness_tui.tui.widgets.staleness.controller import PassState


class PassCounters(Vertical):

    DEFAULT_CSS = tcss.rules(__file__)
    def compose(self) -> ComposeResult:
        yield Static(id="dash-counters")
        with Horizontal(id="dash-progress-row"):
            yield ProgressBar(total=1, show_eta=False, id="dash-progress")
            yield Static(id="dash-rate")

    def on_mount(self) -> None:
        self.idle()

    def _set(self, counters: Text | str, rate: Text | str, *, layout: bool = True) -> None:
        """``layout=False`` while a pass runs and as it ends: both lines have a fixed one-row
        box, so a progress tick repaints them without laying the whole screen out again."""
        try:
            counters_line = self.query_one("#dash-counters", Static)
            rate_line = self.query_one("#dash-rate", Static)
        except NoMatches:
            return  # being taken down (a session ending as it opens): its children went first
        counters_line.update(counters, layout=layout)
        rate_line.update(rate, layout=layout)

    def idle(self) -> None:
        self._set(Text("No pass run yet in this session.  s: start a pass", style="dim"), "")

    def starting(self) -> None:
        self.query_one("#dash-progress", ProgressBar).update(total=1, progress=0)
        # no layout: the pass starts in the same moment and competes with it for the GIL
        self._set(Text("starting…", style="dim"), "", layout=False)

    def progress(self, st: PassState, ev: PassProgress) -> None:
        self.query_one("#dash-progress", ProgressBar).update(
            total=max(ev.total, 1), progress=ev.checked if ev.total else 1)
        if not ev.done:
            self._set(self.counters_text(ev), self._rate_text(st, ev), layout=False)

    def finished(self, st: PassState, ev: PassProgress) -> tuple[Text, Text]:
        """Show the headless command's summary line and how long it took; returns both."""
        from memharness_tui.tui.services.passes import summary_line

        summary = Text(summary_line(ev.checked, ev.current, ev.stale, ev.unresolved,
                                    ev.backfilled, grouped=True), style="bold")
        took = Text()
        if st.check_only:  # first: at 120 columns the end of this line was cut off
            took.append("check-only: nothing written · ", style="bold")
        took.append(f"took {st.elapsed:.2f} s", style="bold")
        if ev.checked and st.elapsed > 0:
            took.append(f" · {ev.checked / st.elapsed:,.0f} facts/s")
        if ev.cancelled:
            took.append(" · cancelled", style=f"bold {theme_color(self.app, 'warning', 'yellow')}")
        self._set(summary, took, layout=False)  # the pass's end: no screen layout to wait for
        return summary, took

    def failed(self, error: str, written: bool) -> None:
        bad = theme_color(self.app, "error", "red")
        self._set(Text(f"✗ {clean(error, single_line=True)}", style=f"bold {bad}"),
                  Text("batches already written stay written" if written
                       else "nothing was written", style="dim"))

    def counters_text(self, ev: PassProgress) -> Text:
        ok = theme_color(self.app, "success", "green")
        bad = theme_color(self.app, "error", "red")
        warn = theme_color(self.app, "warning", "yellow")
        t = Text()
        t.append("checked ")
        t.append(f"{ev.checked:,}", style="bold")
        t.append(f" of {ev.total:,}", style="dim")
        for label, value, style in ((" / current ", ev.current, f"bold {ok}"),
                                    (" / stale ", ev.stale, f"bold {bad}"),
                                    (" / unresolved ", ev.unresolved, f"bold {warn}"),
                                    (" / backfilled ", ev.backfilled, "bold")):
            t.append(label)
            t.append(f"{value:,}", style=style)
        return t

    @staticmethod
    def _rate_text(st: PassState, ev: PassProgress) -> Text:
        t = Text()
        if st.elapsed > 0 and ev.checked:
            t.append(f"{ev.checked / st.elapsed:,.0f} facts/s", style="bold")
            t.append("  ·  ")
        t.append(f"{st.elapsed:.2f} s")
        if st.check_only:
            t.append("  ·  check-only", style="bold")
        return t

    def text(self) -> str:
        """The counters line as shown (plain)."""
        r = self.query_one("#dash-counters", Static).render()
        return r.plain if isinstance(r, Text) else str(r)
