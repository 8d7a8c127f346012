"""The Hygiene tab: a scan of the beliefs (now, or as of the time travelled to), its flags grouped
by kind, and the keys that fix them. The scan runs off the UI thread (``app.hygiene``); its
progress and result come back as messages. A fix is asked for with a message (``Fix``): the
screen runs the editor, the preview and the write."""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import DataTable, ProgressBar, Static

from memharness_tui.tui import tcss
from memharness_tui.tui.messages import OpenFact
from memharness_tui.tui.render import cell
from memharness_tui.tui.widgets.base import LoadsWhenShown
from memharness_tui.tui.widgets.hygiene.flags import GROUPS, Flag, flags_of

if TYPE_CHECKING:
    from memharness_tui.hygiene import HygieneReport
    from memharness_tui.tui.app import MemharnessApp

__all__ = ["HygienePane"]

FIX_ACTIONS = ("merge", "refile", "split", "pin", "retract", "purge")
TITLES = dict(GROUPS)
FIXED_WIDTHS = (1, 15, 14, 18)  # mark, kind, ids, subject (the detail takes the rest)
NARROW_WIDTHS = (1, 15, 10, 14)  # below 100 columns
NARROW = 100


class HygienePane(LoadsWhenShown, Vertical):
    DEFAULT_CSS = tcss.rules(__file__)
    BINDINGS = [
        Binding("space", "mark", "Mark", id="hygiene.mark",
                tooltip="Mark or unmark the highlighted flag (a fix then applies to all marked)"),
        Binding("m", "fix('merge')", "Merge", id="hygiene.merge",
                tooltip="Merge a near-duplicate group into one fact (pick or edit the text)"),
        Binding("f", "fix('refile')", "Refile", id="hygiene.refile",
                tooltip="Refile a fragmented subject's facts into its canonical subject"),
        Binding("s", "fix('split')", "Split", id="hygiene.split",
                tooltip="Split a compound or over-long fact into one fact per assertion"),
        Binding("p", "fix('pin')", "Pin", id="hygiene.pin",
                tooltip="Pin a code-map fact to a commit and path"),
        # not in the footer (the detail line offers it on a code map): at 120 columns the
        # footer had no room left for Now, Reload and Quit
        Binding("d", "fix('retract')", "Retract", show=False, id="hygiene.retract",
                tooltip="Retract a code-map fact (previewed first)"),
        Binding("x", "fix('purge')", "Purge", show=False, id="hygiene.purge",
                tooltip="Purge a secret from its fact's whole chain (preview, then type purge)"),
        Binding("c", "cancel_scan", "Cancel scan", show=False, id="hygiene.cancel",  # (the
                # status line says "c: cancel" while a scan runs)
                tooltip="Stop the running scan (nothing is written; r scans again)"),
        # priority: the table's own Home / End scroll sideways, which a row table never needs
        Binding("home", "edge(0)", "First", show=False, priority=True, id="hygiene.first",
                tooltip="First flag"),
        Binding("end", "edge(1)", "Last", show=False, priority=True, id="hygiene.last",
                tooltip="Last flag"),
    ]

    as_of: reactive[str | None] = reactive(None, init=False)
    store_revision: reactive[int] = reactive(0, init=False)
    readonly: reactive[bool] = reactive(False, init=False)
    scanning: reactive[bool] = reactive(False, init=False, bindings=True)

    class ScanProgress(Message):
        """Rows read so far (told from the scanning thread)."""

        def __init__(self, token: threading.Event, read: int, total: int) -> None:
            super().__init__()
            self.token, self.read, self.total = token, read, total

    class ScanFinished(Message):
        def __init__(self, token: threading.Event, report: HygieneReport | None,
                     flags: list[Flag]) -> None:
            super().__init__()
            self.token, self.report, self.flags = token, report, flags

    class Fix(Message):
        """Fix these flags (``fix``: merge, refile, split, pin or retract): the screen asks,
        previews and writes."""

        def __init__(self, fix: str, flags: tuple[Flag, ...]) -> None:
            super().__init__()
            self.fix, self.flags = fix, flags

    class ShowStaleness(Message):
        """A stale or unresolved pin was chosen: its verdict lives on the Staleness tab."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.flags: list[Flag] = []
        self.report: HygieneReport | None = None
        self.marked: set[str] = set()
        self._token: threading.Event | None = None
        self._cancelled = False

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    def compose(self) -> ComposeResult:
        yield Static(id="hygiene-status")
        yield ProgressBar(id="hygiene-progress", show_eta=False)
        yield DataTable(id="hygiene-table", cursor_type="row")
        yield Static(id="hygiene-detail")

    def on_mount(self) -> None:
        self.query_one("#hygiene-progress").display = False
        self._fill()

    def on_unmount(self) -> None:
        """Quitting mid-scan stops the scanning thread (the app's exit would wait for it)."""
        if self._token is not None:
            self._token.set()

    # ----- when to scan ---------------------------------------------------------------------
    def watch_as_of(self) -> None:
        self.refresh_bindings()
        self.invalidate()

    def watch_store_revision(self) -> None:
        self.invalidate()

    def watch_readonly(self) -> None:
        self.refresh_bindings()
        self._say()

    def on_resize(self) -> None:
        self.call_after_refresh(self._fill)

    def reload(self) -> None:
        """Scan again (the last scan, if running, is stopped)."""
        if self._token is not None:
            self._token.set()
        self._token = threading.Event()
        self._cancelled = False
        self.scanning = True
        bar = self.query_one("#hygiene-progress", ProgressBar)
        bar.update(total=None, progress=0)
        bar.display = True
        self._say()
        self._scan(self.as_of, self._token)

    @work(exclusive=True, group="hygiene-scan", exit_on_error=False)
    async def _scan(self, as_of: str | None, token: threading.Event) -> None:
        from memharness_tui.hygiene import ScanCancelled

        service = self.mapp.hygiene

        def progress(read: int, total: int) -> None:  # on the scanning thread
            self.post_message(self.ScanProgress(token, read, total))

        try:
            report = await service.scan(as_of, progress, token)
            moving = [s for fr in report.fragments for s, _ in fr.subjects if s != fr.canonical]
            facts = await service.facts_of(moving, as_of) if moving else {}
        except ScanCancelled:
            self.post_message(self.ScanFinished(token, None, []))
            return
        except asyncio.CancelledError:
            token.set()  # replaced by a newer scan: let the thread stop too
            raise
        except BaseException:
            self.post_message(self.ScanFinished(token, None, []))
            raise
        self.post_message(self.ScanFinished(token, report, flags_of(report, facts)))

    @on(ScanProgress)
    def _progressed(self, event: ScanProgress) -> None:
        if event.token is self._token and self.scanning:
            self.query_one("#hygiene-progress", ProgressBar).update(
                total=max(event.total, 1), progress=event.read)

    @on(ScanFinished)
    def _finished(self, event: ScanFinished) -> None:
        if event.token is not self._token:
            return
        self.scanning = False
        self.query_one("#hygiene-progress").display = False
        if event.report is None:  # cancelled (or failed: the app says why)
            self._cancelled = event.token.is_set()
            self._say()
            return
        self.report, self.flags = event.report, event.flags
        keys = {f.key for f in self.flags}
        self.marked &= keys
        self._fill()

    def action_cancel_scan(self) -> None:
        if self._token is not None and self.scanning:
            self._token.set()

    # ----- the list -------------------------------------------------------------------------
    def _fill(self) -> None:
        if not self.is_mounted:
            return
        table = self.query_one("#hygiene-table", DataTable)
        keep = self.highlighted()
        table.clear(columns=True)
        widths = NARROW_WIDTHS if self.size.width < NARROW else FIXED_WIDTHS
        spare = self.size.width - sum(w + 2 for w in widths) - 2 - 2
        detail = max(20, spare)
        for label, width in zip((" ", "Kind", "IDs", "Subject"), widths, strict=True):
            table.add_column(label, width=width, key=label.strip() or "mark")
        table.add_column("Flag", width=detail, key="flag")
        last_kind = None
        for f in self.flags:
            group = TITLES.get(f.kind, f.kind) if f.kind != last_kind else ""
            last_kind = f.kind
            summary = Text()
            if f.similarity is not None:
                summary.append(f"sim {f.similarity:.2f} · ", style="bold")
            summary.append_text(cell(f.summary, max_len=detail))
            summary.truncate(detail, overflow="ellipsis")
            table.add_row(
                Text("●" if f.key in self.marked else " ", style="bold"),
                Text(group, style="bold"),
                cell(" ".join(f"#{i}" for i in f.ids) or "—", "dim", max_len=widths[2]),
                cell(f.subject, max_len=widths[3]),
                summary,
                key=f.key,
            )
        if keep is not None:
            for row, f in enumerate(self.flags):
                if f.key == keep.key:
                    table.move_cursor(row=row, animate=False)
        self._say()
        self._show_detail()

    def highlighted(self) -> Flag | None:
        table = self.query_one("#hygiene-table", DataTable)
        if not table.row_count or not 0 <= table.cursor_row < len(self.flags):
            return None
        return self.flags[table.cursor_row]

    def _say(self) -> None:
        """The status line: scanning, cancelled, or what the scan found."""
        text = Text()
        if self.scanning:
            text.append("Scanning the beliefs…  c: cancel", style="italic")
        elif self._cancelled:
            text.append("Scan cancelled — nothing was written. r scans again.", style="italic")
        elif self.report is not None:
            counts = {k: v for k, v in self.report.counts().items() if v}
            total = sum(counts.values())
            text.append(f"{total} flag{'s' if total != 1 else ''}", style="bold")
            text.append(f" over {self.report.rows:,} beliefs")
            if counts:
                text.append("  ·  " + ", ".join(f"{n} {k}" for k, n in counts.items()),
                            style="dim")
            if self.marked:
                text.append(f"  ·  {len(self.marked)} marked", style="bold")
        if self.as_of:
            text.append(f"  ·  as of {self.as_of} (fixes: T first)", style="bold reverse")
        elif self.readonly:
            text.append("  ·  read-only: no fixes", style="bold reverse")
        if self.is_mounted:
            self.query_one("#hygiene-status", Static).update(text)

    @on(DataTable.RowHighlighted, "#hygiene-table")
    def _highlight(self) -> None:
        self._show_detail()
        self.refresh_bindings()

    def _show_detail(self) -> None:
        flag = self.highlighted()
        text = Text()
        if flag is None:
            text.append("Nothing to tidy." if self.report is not None and not self.flags
                        else "", style="dim")
        else:
            text.append(TITLES.get(flag.kind, flag.kind), style="bold")
            text.append("  ")
            if flag.target is not None:
                text.append("refile into ")
            text.append_text(cell(flag.subject, max_len=40))
            keys = {"merge": "m merge", "refile": "f refile", "split": "s split",
                    "pin": "p pin", "retract": "d retract", "purge": "x purge"}
            hints = [keys[x] for x in flag.fixes]
            hints.append("enter: Staleness tab" if flag.kind in ("stale", "unresolved")
                         else "enter: open")
            text.append("   " + " · ".join(hints), style="dim")
            for fid, fact in flag.texts or ((i, flag.summary) for i in flag.ids[:1]):
                text.append(f"\n#{fid} ", style="bold")
                text.append_text(cell(fact, max_len=400))
        self.query_one("#hygiene-detail", Static).update(text)

    # ----- keys -----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "fix":  # (the status line says read-only / as of; a fix that does not
            # apply to the row runs and says why: action_fix)
            return None if self.readonly or self.as_of or self.scanning else True
        if action == "cancel_scan":
            return True if self.scanning else None
        return True

    def _refusal(self, fix: str) -> str | None:
        """Why ``fix`` cannot run now (None: it can)."""
        if self.readonly:
            return "This database is open read-only: nothing can be fixed here."
        if self.as_of:
            return "Time travel is on: fixes apply to now (T goes back to now)."
        if self.scanning:
            return "A scan is running: fixes wait for its flags (c cancels it)."
        if self._targets(fix):
            return None
        flag = self.highlighted()
        applies = {"merge": "a near-duplicate group", "refile": "a fragmented subject",
                   "split": "a compound or over-long fact", "pin": "a code map",
                   "retract": "a code map"}[fix]
        if flag is None:
            return f"No flag highlighted: {fix} applies to {applies}."
        keys = {"merge": "m", "refile": "f", "split": "s", "pin": "p", "retract": "d"}
        these = " · ".join(f"{keys[x]} {x}" for x in flag.fixes)
        kind = TITLES.get(flag.kind, flag.kind)
        return (f"{fix.title()} applies to {applies}; this row is in {kind}"
                + (f" ({these})." if these else " (no fix here: Enter opens it)."))

    def action_edge(self, end: int) -> None:
        table = self.query_one("#hygiene-table", DataTable)
        if table.row_count:
            table.move_cursor(row=table.row_count - 1 if end else 0, animate=False)

    def _targets(self, fix: str) -> list[Flag]:
        """The marked flags this fix applies to; none marked: the highlighted one, if it does."""
        marked = [f for f in self.flags if f.key in self.marked and fix in f.fixes]
        if marked:
            return marked
        flag = self.highlighted()
        return [flag] if flag is not None and fix in flag.fixes else []

    def action_mark(self) -> None:
        flag = self.highlighted()
        if flag is None:
            return
        self.marked.symmetric_difference_update({flag.key})
        table = self.query_one("#hygiene-table", DataTable)
        table.update_cell(flag.key, "mark",
                          Text("●" if flag.key in self.marked else " ", style="bold"))
        if table.cursor_row < table.row_count - 1:
            table.move_cursor(row=table.cursor_row + 1, animate=False)
        self._say()
        self.refresh_bindings()

    def action_fix(self, fix: str) -> None:
        why = self._refusal(fix)
        if why is not None:
            self.mapp.notify(why, title="Hygiene", severity="warning", timeout=5)
            return
        self.post_message(self.Fix(fix, tuple(self._targets(fix))))

    @on(DataTable.RowSelected, "#hygiene-table")
    def _open(self, event: DataTable.RowSelected) -> None:
        event.stop()
        flag = self.highlighted()
        if flag is None:
            return
        if flag.kind in ("stale", "unresolved"):
            self.post_message(self.ShowStaleness())
        elif flag.ids:
            self.post_message(OpenFact(flag.ids[0]))
