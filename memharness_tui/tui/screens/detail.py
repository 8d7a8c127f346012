"""Fact detail: full text, provenance, both time axes, the pin, and the supersession chain."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Static, Tree

from memharness_tui.tui.render import (
    age,
    believed_at,
    clean,
    fact_heading,
    freshness_badge,
    safe,
    status_label,
)
from memharness_tui.tui.widgets.base import WorkerErrorsToApp
from memharness_tui.tui.widgets.footer import KeysFooter
from memharness_tui.tui.worddiff import diff_line

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp

NARROW = 110  # below this width the side column (pin, time, provenance) goes under the text


def _row(text: Text, label: str, value: Text | str, style: str = "") -> None:
    text.append(f"{label:<14}", style="bold")
    text.append_text(value if isinstance(value, Text) else safe(value, style))
    text.append("\n")


class FactDetailScreen(WorkerErrorsToApp, Screen[None]):
    AUTO_FOCUS = "#chain"
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="detail.back",
                tooltip="Back to the list"),
        Binding("left_square_bracket", "step(-1)", "Older", id="detail.older",
                tooltip="Older version in the chain (what this revised)"),
        Binding("right_square_bracket", "step(1)", "Newer", id="detail.newer",
                tooltip="Newer version in the chain (what revised this)"),
        Binding("e", "revise", "Revise", show=False, id="detail.revise",
                tooltip="Revise this fact: its pin, the diff to HEAD, four fixes"),
        Binding("n", "new_fact", "New fact", show=False, id="detail.new_fact",
                tooltip="New fact (same subject)"),
        Binding("delete", "retract", "Retract", show=False, id="detail.retract",
                tooltip="Retract this version (asks first)"),
        # The page keys scroll the screen even while the chain has focus (it is short).
        Binding("pagedown", "scroll_page(1)", "Page down", show=False, priority=True,
                id="detail.page_down", tooltip="Scroll the detail down a page"),
        Binding("pageup", "scroll_page(-1)", "Page up", show=False, priority=True,
                id="detail.page_up", tooltip="Scroll the detail up a page"),
        Binding("end", "scroll_edge(1)", "End", show=False, priority=True,
                id="detail.end", tooltip="Scroll to the end of the detail"),
        Binding("home", "scroll_edge(0)", "Top", show=False, priority=True,
                id="detail.home", tooltip="Scroll to the top of the detail"),
    ]

    def __init__(self, fact_id: int) -> None:
        super().__init__()
        self.fact_id = fact_id
        self.why: Any = None
        self.chain: list[Any] = []

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="detail-body"):
            with VerticalScroll(id="detail-main"):
                yield Static(id="detail-title")
                yield Static(id="detail-text", classes="box")
                yield Tree("Supersession chain", id="chain")
            with VerticalScroll(id="detail-side"):
                yield Static(id="detail-pin", classes="box")
                yield Static(id="detail-time", classes="box")
                yield Static(id="detail-prov", classes="box")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#detail-text").border_title = "Fact"
        self.query_one("#detail-prov").border_title = "Provenance"
        self.query_one("#detail-time").border_title = "Time"
        self.query_one("#detail-pin").border_title = "Pin"
        chain = self.query_one("#chain", Tree)
        chain.border_title = "Supersession chain"
        chain.show_root = False
        self.load(self.fact_id)

    def on_resize(self) -> None:
        self.query_one("#detail-body").set_class(self.size.width < NARROW, "narrow")
        if self.why is not None:  # node labels are fitted to the pane's width
            self.call_after_refresh(self._fill_chain)

    def load(self, fact_id: int) -> None:
        self.fact_id = fact_id
        self._load(fact_id)

    @work(exclusive=True, group="detail", exit_on_error=False)
    async def _load(self, fact_id: int) -> None:
        why = await self.mapp.service.why(fact_id)
        self.why = why
        self.chain = [*reversed(why.ancestors), why.fact, *why.descendants]
        self._show(why)

    # ----- rendering ----------------------------------------------------------------------
    def _show(self, why: Any) -> None:
        f = why.fact
        self.sub_title = f"fact #{f.id}"
        status, style = status_label(f)
        title = fact_heading(f, subject_len=80, predicate_len=60)
        title.append("   ")
        title.append(f" {status} ", style="reverse " + (style or "bold"))
        as_of = self.mapp.as_of
        if as_of:
            then = believed_at(f, as_of)
            title.append(f"   ⏱ as of {as_of}: ", style="bold")
            title.append("believed then" if then else "not believed then",
                         style="bold" if then else "italic")
        self.query_one("#detail-title", Static).update(title)
        self.query_one("#detail-text", Static).update(safe(f.fact))

        prov = Text()
        _row(prov, "agent", f.source_agent or "unknown", "" if f.source_agent else "dim")
        _row(prov, "ref", f.source_ref or "—", "" if f.source_ref else "dim")
        _row(prov, "confidence", f"{f.confidence:.2f}")
        _row(prov, "importance", str(f.importance))
        _row(prov, "kind", f.kind)
        _row(prov, "last recalled", f.last_accessed_at or "never", "" if f.last_accessed_at else "dim")
        prov.rstrip()
        self.query_one("#detail-prov", Static).update(prov)

        now = self.mapp.now_iso()
        tm = Text()
        tm.append("world time (valid)\n", style="italic dim")
        _row(tm, "valid from", f.valid_from)
        _row(tm, "valid to", f.valid_to or "now (still true)", "" if f.valid_to else "dim")
        tm.append("record time (transaction)\n", style="italic dim")
        _row(tm, "learned", f"{f.tx_at}  ({age(f.tx_at, now)})")
        _row(tm, "retracted", f.retracted_at or "—", "bold" if f.retracted_at else "dim")
        if f.superseded_by is not None:
            _row(tm, "superseded by", f"#{f.superseded_by}")
        tm.rstrip()
        self.query_one("#detail-time", Static).update(tm)
        self.query_one("#detail-pin", Static).update(self._pin_text(f, now))
        self.call_after_refresh(self._fill_chain)  # after layout: labels fit the pane

    def _pin_text(self, f: Any, now: str) -> Text:
        pin = Text()
        if not f.is_pinned:
            pin.append("not pinned to a commit", style="dim")
            if f.freshness:
                pin.append(f"  (verdict: {f.freshness})", style="dim")
            return pin
        _row(pin, "path", f.source_path or "(whole repo)", "" if f.source_path else "dim")
        _row(pin, "commit", f.source_commit)
        verdict = freshness_badge(self.app, f.freshness, True)
        _row(pin, "verdict", verdict)
        reason = self.mapp.staleness_reason(f)
        if reason:
            _row(pin, "reason", reason)
        elif f.freshness:
            _row(pin, "reason", "run a staleness pass to see why", "dim")
        _row(pin, "checked head", f.checked_head[:12] if f.checked_head else "never checked",
             "" if f.checked_head else "dim")
        if f.checked_at:
            _row(pin, "checked at", f"{f.checked_at}  ({age(f.checked_at, now)})")
        else:
            _row(pin, "checked at", "—", "dim")
        pin.rstrip()
        return pin

    def _fill_chain(self) -> None:
        tree = self.query_one("#chain", Tree)
        tree.clear()
        tree.root.expand()
        cursor_line = 0
        n = len(self.chain)
        # Fit each node's fact text to the chain pane, after its fixed parts.
        # The fact box above has the chain's width (the tree itself may not be laid out yet).
        if self.size.width < NARROW:  # one column: the chain has the screen's width
            pane = self.size.width - 6
        else:
            pane = (self.query_one("#detail-text").content_size.width or self.size.width // 2) - 2
        for i, f in enumerate(self.chain):
            me = f.id == self.fact_id
            marker = "● " if me else ("↑ " if i < self.chain.index(self.why.fact) else "↓ ")
            status, style = status_label(f)
            head = Text()
            head.append(marker, style="bold" if me else "dim")
            head.append(f"#{f.id} ", style="bold" if me else "")
            head.append(f"{f.tx_at[:10]} ", style="dim")
            tail = Text()
            if status != "current":
                tail.append(f"  [{status}]", style="dim italic")
            if self.mapp.as_of and believed_at(f, self.mapp.as_of):
                tail.append("  ⏱ believed then", style="bold")
            room = max(16, pane - head.cell_len - tail.cell_len - 2)
            near = self.chain[i - 1] if i > 0 else (self.chain[1] if n > 1 else None)
            label = Text.assemble(
                head,
                diff_line(f.fact, near.fact if near is not None else None, room,
                          style=style if not me else "bold"),
                tail,
            )
            tree.root.add_leaf(label, data=f.id)
            if me:
                cursor_line = i
        tree.border_subtitle = f"{n} version{'s' if n != 1 else ''}"
        self.call_after_refresh(tree.move_cursor_to_line, cursor_line)

    # ----- navigation ---------------------------------------------------------------------
    @on(Tree.NodeSelected, "#chain")
    def _jump(self, event: Tree.NodeSelected[int]) -> None:
        target = event.node.data
        if target is not None and target != self.fact_id:
            self.load(target)

    def action_revise(self) -> None:
        from memharness_tui.tui.editing import revise

        if self.why is None:
            return
        fact = next((f for f in self.chain if f.id == self.fact_id), self.why.fact)
        revise(self.mapp, fact, list(self.mapp.repos), factor=self.mapp.options.factor)

    def action_new_fact(self) -> None:
        from memharness_tui.tui.editing import new_fact

        new_fact(self.mapp, subject=self.why.fact.subject if self.why is not None else "")

    def action_retract(self) -> None:
        from memharness_tui.tui.editing import retract

        retract(self.mapp, self.fact_id)

    def action_step(self, delta: int) -> None:
        ids = [f.id for f in self.chain]
        if self.fact_id in ids:
            i = ids.index(self.fact_id) + delta
            if 0 <= i < len(ids):
                self.load(ids[i])

    def _scroller(self) -> Any:
        """What scrolls: the whole body in one column, else the main column."""
        body = self.query_one("#detail-body")
        return body if body.has_class("narrow") else self.query_one("#detail-main")

    def action_scroll_page(self, direction: int) -> None:
        box = self._scroller()
        if direction > 0:
            box.scroll_page_down(animate=False)
        else:
            box.scroll_page_up(animate=False)

    def action_scroll_edge(self, end: int) -> None:
        box = self._scroller()
        if end:
            box.scroll_end(animate=False)
        else:
            box.scroll_home(animate=False)

    def chain_ids(self) -> list[int]:
        return [f.id for f in self.chain]

    def text_of(self, widget_id: str) -> str:
        """The plain text shown in one of the boxes (tests read it)."""
        renderable = self.query_one(f"#{widget_id}", Static).render()
        return renderable.plain if isinstance(renderable, Text) else clean(str(renderable))
