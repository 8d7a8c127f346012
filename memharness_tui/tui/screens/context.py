"""What the agent's SessionStart hook injects (``memharness-context``), shown in the app.

The hook's exact text for the flags saved for this database (entered once here; Enter
saves them), its token count against the budget, and what changed since the last look (a
line diff against the text saved then). Reading it never writes the store: the preview does
not reinforce as the hook does. Opened from the palette or with ``x`` on the Recall tab (context_commands.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static

from memharness_tui.tui import tcss
from memharness_tui.tui.render import clean, short_time
from memharness_tui.tui.services import context as svc
from memharness_tui.tui.widgets.base import WorkerErrorsToApp

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp


class ContextScreen(WorkerErrorsToApp, ModalScreen[None]):
    """The hook's text for this database's saved flags, its tokens and its changes."""

    CSS_PATH = tcss.path(__file__)

    BINDINGS = [
        Binding("escape", "close", "Close", id="context.close", tooltip="Close"),
        Binding("ctrl+r", "reload", "Reload", id="context.reload",
                tooltip="Read the hook's text again"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.flags = svc.ContextFlags()
        self.shown: svc.SessionContext | None = None
        self.changes: list[str] | None = None  # None: nothing saved from an earlier look

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    @property
    def _db(self) -> str:
        info = self.mapp.info
        return info.path if info is not None else ":memory:"

    def compose(self) -> ComposeResult:
        self._seen = svc.load_seen(self.mapp.config_dir, self._db)
        self.flags = self._seen.flags
        with Vertical(id="context-box", classes="modal-box"):
            yield Static(Text("Session context: what the agent's SessionStart hook injects",
                              style="bold"), classes="modal-title")
            yield Input(self.flags.shown(), id="context-flags", placeholder="the hook's flags: --subject user "
                        "--subject proj:x --max-tokens 600 --limit 8 (Enter saves)")
            yield Static(id="context-summary")
            with VerticalScroll(id="context-scroll"):
                yield Static(id="context-changes")
                yield Static(id="context-text")
        yield Footer()

    def on_mount(self) -> None:
        self._load(self._seen)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_reload(self) -> None:
        self._load(svc.load_seen(self.mapp.config_dir, self._db))

    @on(Input.Submitted, "#context-flags")
    def _flags_entered(self, event: Input.Submitted) -> None:
        try:
            flags = svc.parse_flags(event.value)
        except ValueError as exc:
            self._say(Text(clean(str(exc)), style="bold red"))
            return
        self.flags = flags
        app = self.mapp
        try:
            svc.save_flags(app.config_dir, self._db, flags)
        except OSError as exc:
            app.notify(clean(f"The flags are used now but were not saved: {exc}"),
                       severity="warning", timeout=6, markup=False)
        self._load(svc.load_seen(app.config_dir, self._db))

    def _say(self, text: Text) -> None:
        self.query_one("#context-summary", Static).update(text)

    @work(exclusive=True, group="context", exit_on_error=False)
    async def _load(self, seen: svc.Seen) -> None:
        app = self.mapp
        flags = self.flags
        try:
            ctx = await svc.read_context(app.gateway, flags)
        except Exception as exc:  # noqa: BLE001 - one sentence, never a traceback
            self._say(Text(clean(f"The hook would print nothing: {exc}"), style="bold red"))
            self.query_one("#context-text", Static).update("")
            return
        self.shown = ctx
        self.changes = svc.changed_lines(seen.text, ctx.text) if seen.text is not None else None
        self._show(ctx, seen)
        now = app.now_iso()
        try:
            svc.save_seen(app.config_dir, self._db, flags, ctx.text, now)
        except OSError as exc:
            app.notify(clean(f"This look was not saved (the next one cannot say what changed):"
                             f" {exc}"), severity="warning", timeout=6, markup=False)

    def _show(self, ctx: svc.SessionContext, seen: svc.Seen) -> None:
        subjects = ", ".join(self.flags.effective_subjects)
        summary = Text()
        summary.append(f"{ctx.tokens} tokens", style="bold")
        summary.append(f" of a {self.flags.max_tokens}-token budget · {len(ctx.sections)} "
                       f"section(s) · limit {self.flags.limit} · subjects: ")
        summary.append(clean(subjects, single_line=True))
        if self.changes is None:
            summary.append("\nFirst look at this database's context: the next look shows "
                           "what changed.", style="dim")
        elif not self.changes:
            summary.append(f"\nUnchanged since the last look ({short_time(seen.at)}).",
                           style="dim")
        else:
            added = sum(1 for line in self.changes if line.startswith("+"))
            summary.append(f"\nSince the last look ({short_time(seen.at)}): {added} line(s) "
                           f"added, {len(self.changes) - added} removed.", style="bold")
        self._say(summary)
        changes = Text()
        for line in self.changes or []:
            changes.append(clean(line) + "\n",
                           style="green" if line.startswith("+") else "red")
        if changes:
            changes.append("\n")
        self.query_one("#context-changes", Static).update(changes)
        body = ctx.text if ctx.text else ("(the hook prints nothing: no facts for these "
                                          "subjects, or no budget)")
        self.query_one("#context-text", Static).update(
            Text(clean(body), style="" if ctx.text else "dim italic"))

