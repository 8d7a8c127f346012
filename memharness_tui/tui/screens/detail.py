"""Fact detail: full text, provenance, both time axes, the pin, and the supersession chain."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Size
from textual.reactive import reactive
from textual.widgets import Header, Static, Tree

from memharness_tui.tui import tcss
from memharness_tui.tui.messages import OpenFact
from memharness_tui.tui.perf.footer import KeysFooter
from memharness_tui.tui.perf.layout import laid_out_at
from memharness_tui.tui.perf.tree import KeptLinesTree
from memharness_tui.tui.render import believed_at, clean, freshness_badge, safe, status_label
from memharness_tui.tui.screens import detail_boxes as boxes
from memharness_tui.tui.screens.base import AppScreen
from memharness_tui.tui.services.details import reason_now, triage_of, wants_triage
from memharness_tui.tui.widgets.similar import SimilarList
from memharness_tui.tui.widgets.staleness.flagged import TRIAGE_LOOK
from memharness_tui.tui.worddiff import diff_line

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp

NARROW = 110  # below this width the side column (pin, time, provenance) goes under the text
NO_FACT = -1  # the fact id of a screen built ahead, before its first fact (ids start at 1)
CHAIN_FITS = 18  # chain lines shown without scrolling (#chain: max-height 20, a border)


def _retrieved(future: asyncio.Future[Any]) -> None:
    """Mark an early read's failure as seen (the worker that awaits it reports it)."""
    if not future.cancelled():
        future.exception()


class ChainTree(KeptLinesTree):
    """The chain's ``Tree`` (its height follows its lines; a resize keeps the lines drawn)."""


class FactDetailScreen(AppScreen):
    CSS_PATH = tcss.path(__file__)
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
        Binding("s", "similar", "Similar", show=False, id="detail.similar",
                tooltip="Similar by meaning: the nearest facts by stored vector (Enter opens)"),
        Binding("n", "new_fact", "New fact", show=False, id="detail.new_fact",
                tooltip="New fact (same subject)"),
        Binding("delete", "retract", "Retract", show=False, id="detail.retract",
                tooltip="Retract this version (asks first)"),
        Binding("X", "purge", "Purge", show=False, id="detail.purge",
                tooltip="Purge credentials from this fact's whole chain (previewed first)"),
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

    as_of: reactive[str | None] = reactive(None, init=False)  # the app's, mirrored (on_mount)

    def __init__(self, fact_id: int | None = None) -> None:
        """``fact_id`` None: built ahead, empty, until ``reopen`` gives it a fact."""
        super().__init__()
        self.fact_id: int = NO_FACT if fact_id is None else fact_id
        self.why: Any = None
        self.chain: list[Any] = []
        self._filled: tuple[Any, ...] | None = None  # what the chain was last filled for
        self._early: asyncio.Future[Any] | None = None
        """The first fact's read, started while the screen is built (see ``compose``)."""
        self.triage: Any = None
        """The shown fact's triage once git answered (None: not flagged, or not back yet)."""
        self._reason: str | None = None

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    def compose(self) -> ComposeResult:
        # Read the fact now, while the screen is built: it is usually back by ``on_mount``,
        # so the first layout and frame already show it (not an empty screen, then the fact).
        if self.fact_id != NO_FACT:
            self._start_read()
        yield Header()
        with Horizontal(id="detail-body"):
            with VerticalScroll(id="detail-main"):
                yield Static(id="detail-title")
                yield Static(id="detail-text", classes="box")
                yield ChainTree("Supersession chain", id="chain")
                yield SimilarList(id="similar")
            with VerticalScroll(id="detail-side"):
                yield Static(id="detail-pin", classes="box")
                yield Static(id="detail-time", classes="box")
                yield Static(id="detail-prov", classes="box")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.watch(self.app, "as_of", lambda as_of: setattr(self, "as_of", as_of))
        self.query_one("#detail-text").border_title = "Fact"
        self.query_one("#detail-prov").border_title = "Provenance"
        self.query_one("#detail-time").border_title = "Time"
        self.query_one("#detail-pin").border_title = "Pin"
        chain = self.query_one("#chain", Tree)
        chain.border_title = "Supersession chain"
        chain.show_root = False
        self.query_one("#detail-body").set_class(self.size.width < NARROW, "narrow")  # 1st layout
        if self._early is not None:
            self._show_read()

    # ----- one screen, opened again and again (the app keeps it) ------------------------------
    def _start_read(self) -> None:
        self._early = asyncio.ensure_future(self.mapp.service.why(self.fact_id))
        self._early.add_done_callback(_retrieved)

    def _show_read(self) -> None:
        """Show the read ``_start_read`` sent: now if it is back, else when it is."""
        early, self._early = self._early, None
        if early is not None and early.done() and not early.cancelled() \
                and early.exception() is None:
            self._set_why(early.result())
        else:
            self._load(self.fact_id, early)

    def reopen(self, fact_id: int) -> None:
        """Before the app shows this screen again for ``fact_id``: read it while the screen
        comes back, from the top of its boxes. (Building the screen — ~20 widgets, their
        styles — was about half of opening a fact; the app builds it once.)"""
        self.fact_id = fact_id
        self.why = None
        self.chain = []
        self._filled = None
        for box in self.query("#detail-main, #detail-side, #detail-body"):
            box.scroll_home(animate=False, immediate=True)
        self._start_read()

    async def read_back(self, timeout: float) -> None:
        """Wait (at most ``timeout`` s) for the read ``reopen`` sent: the app shows the screen
        once it can show the fact in its first frame."""
        if self._early is not None:
            await asyncio.wait([self._early], timeout=timeout)

    def on_screen_resume(self) -> None:
        if self._early is None:  # the first open shows its read at mount; or back from a modal
            return
        if not self._early.done():  # the DB thread is slow: not the last fact's text meanwhile
            for box in self.query("#detail-body Static").results(Static):
                box.update("")
            self.query_one("#chain", Tree).clear()
            self.sub_title = f"fact #{self.fact_id}"
        self._show_read()
        # The boxes' new sizes in the screen's first frame back: their own layout requests
        # would reach the screen after it (a frame at the old sizes, then a layout).
        self.refresh(layout=True)

    def on_resize(self, event: events.Resize) -> None:
        if self._laid_out_at(event.size):
            # Screen's own handler lays this screen and the one under it out again; a new
            # screen gets this Resize from its own first layout, at the size it just used.
            event.stop()
            event.prevent_default()
        self.query_one("#detail-body").set_class(self.size.width < NARROW, "narrow")
        if self.why is not None:  # node labels are fitted to the pane's width
            self.call_after_refresh(self._fill_chain)

    def _laid_out_at(self, size: Size) -> bool:
        """This screen and those drawn under it are laid out at ``size`` (no breakpoints)."""
        app = self.app
        if app.HORIZONTAL_BREAKPOINTS or app.VERTICAL_BREAKPOINTS \
                or self.HORIZONTAL_BREAKPOINTS or self.VERTICAL_BREAKPOINTS:
            return False
        return laid_out_at(self, size)

    def load(self, fact_id: int) -> None:
        self.fact_id = fact_id
        self._load(fact_id)

    @work(exclusive=True, group="detail", exit_on_error=False)
    async def _load(self, fact_id: int, early: asyncio.Future[Any] | None = None) -> None:
        why = await (early if early is not None else self.mapp.service.why(fact_id))
        self._set_why(why)

    def _set_why(self, why: Any) -> None:
        self.why = why
        self.chain = [*reversed(why.ancestors), why.fact, *why.descendants]
        self._show(why)

    # ----- rendering ----------------------------------------------------------------------
    def _show(self, why: Any) -> None:
        f = why.fact
        self.sub_title = f"fact #{f.id}"
        now = self.mapp.now_iso()
        self.query_one("#detail-title", Static).update(boxes.title_text(f, self.as_of))
        self.query_one("#detail-text", Static).update(safe(f.fact))
        self.query_one("#detail-prov", Static).update(boxes.provenance_text(f))
        self.query_one("#detail-time", Static).update(boxes.time_text(f, now))
        self.triage = None
        self._reason = self.mapp.staleness_reason(f)  # asked once: the triage redraws the box
        self._show_pin(f)
        self._fill_chain()  # in this frame (``_refit_chain`` checks the width after layout)
        self.query_one("#similar", SimilarList).show_for(f.id)
        if wants_triage(f):  # after this frame's boxes: git never delays the open
            self._load_triage(f)

    def _show_pin(self, f: Any) -> None:
        triage = None
        if wants_triage(f):
            t = self.triage
            triage = boxes.triage_text(None) if t is None else boxes.triage_text(
                TRIAGE_LOOK.get(t.outcome, (t.outcome,))[0], t.summary)
        self.query_one("#detail-pin", Static).update(boxes.pin_text(
            f, self.mapp.now_iso(), badge=lambda verdict: freshness_badge(self.app, verdict, True),
            reason_for=lambda _f: self._reason, triage=triage))

    @work(exclusive=True, group="detail-triage", exit_on_error=False)
    async def _load_triage(self, f: Any) -> None:
        """The Staleness tab's triage of ``f`` (git, in its own thread), shown in the pin box."""
        result = await triage_of(self.mapp.repos, f)
        if self._reason is None and f.freshness:  # git is asked anyway: say why it has it
            self._reason = await reason_now(self.mapp.repos, f)
        if self.why is not None and self.why.fact is f:  # still the fact on screen
            self.triage = result
            self._show_pin(f)

    def _laid_out_pane(self) -> int | None:
        """The width the chain's labels fit (None: the main column is not laid out yet).

        The fact box above has the chain's width (the tree itself may not be laid out yet).
        """
        if self.size.width < NARROW:  # one column: the chain has the screen's width
            return self.size.width - 6
        width = self.query_one("#detail-text").content_size.width
        return width - 2 if width else None

    def _chain_pane(self) -> int:
        """That width, or before the first layout what detail.tcss will give it (#detail-main is
        3fr of 5, less its padding and the box's border and padding); ``_refit_chain`` checks."""
        pane = self._laid_out_pane()
        return self.size.width * 3 // 5 - 8 if pane is None else pane

    def _fill_chain(self) -> None:
        # Fit each node's fact text to the chain pane, after its fixed parts.
        pane = self._chain_pane()
        tree = self.query_one("#chain", Tree)
        filled = (self.why, self.fact_id, pane, self.as_of)
        if self._filled is not None and self._filled[0] is filled[0] \
                and self._filled[1:] == (*filled[1:], tree.cursor_line):
            return  # the same labels, the cursor where the fill put it: nothing to redo
        tree.clear()
        tree.root.expand()
        cursor_line = 0
        n = len(self.chain)
        for i, f in enumerate(self.chain):
            me = f.id == self.fact_id
            marker = "● " if me else ("↑ " if i < self.chain.index(self.why.fact) else "↓ ")
            status, style = status_label(f)
            head = Text()
            head.append(marker, style="bold" if me else "dim")
            head.append(f"#{f.id} ", style="bold" if me else "")
            head.append(f"{f.tx_at[:10]} ")  # (not dim: on the tree's cursor it fell < 3:1)
            tail = Text()
            if status != "current":
                tail.append(f"  [{status}]", style="dim italic")
            if self.as_of and believed_at(f, self.as_of):
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
        self._filled = (*filled, cursor_line)
        if n <= CHAIN_FITS and not tree.scroll_y:
            tree.cursor_line = cursor_line  # every line shows: nothing to scroll to, no wait
        else:  # scrolling the cursor into view needs the tree's laid-out height
            self.call_after_refresh(tree.move_cursor_to_line, cursor_line)
        self.call_after_refresh(self._refit_chain, pane)

    def _refit_chain(self, pane: int) -> None:
        """After the layout: fit the labels again if the pane's width came out different."""
        now = self._laid_out_pane()
        if now is not None and now != pane and self.why is not None:
            self._fill_chain()

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

    def action_similar(self) -> None:
        """Focus the similar-by-meaning list (Enter opens the highlighted fact)."""
        similar = self.query_one("#similar", SimilarList)
        if similar.display:
            similar.focus()
            similar.scroll_visible()
        else:
            self.notify("No stored vectors in this store: similar by meaning needs them "
                        "(reembed gives every fact one).", timeout=5)

    def on_open_fact(self, message: OpenFact) -> None:
        """A neighbour picked in the similar list: open it here, in this screen."""
        message.stop()
        self.load(message.fact_id)
        self.query_one("#chain").focus()

    def action_retract(self) -> None:
        from memharness_tui.tui.editing import retract

        retract(self.mapp, self.fact_id)

    def action_purge(self) -> None:
        from memharness_tui.tui.screens.purge import run_purge

        self.app.run_worker(run_purge(self.mapp, self.fact_id), group="purge", exit_on_error=False)

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
