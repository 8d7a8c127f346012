"""Reembed in the app: ``memharness-tui reembed``'s semantics with a progress bar and cancel.

The facts lacking a vector from the installed model (none yet, or another model's), oldest
first, in batches of 64, each embedded as ``subject: predicate: fact`` and written in one
transaction (all of a batch or none of it). Esc cancels between batches: the batch being
embedded is dropped, never half written, and the last line says how many facts were written
and how many still lack a vector. Embedding runs on the embedding thread, writes on the DB
thread: the UI never waits for either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, ProgressBar, Static

from memharness_tui.tui import tcss
from memharness_tui.tui.messages import StoreChanged
from memharness_tui.tui.render import clean
from memharness_tui.tui.widgets.base import WorkerErrorsToApp

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp

BATCH = 64  # the reference's (and the CLI's) batch


class ReembedScreen(WorkerErrorsToApp, ModalScreen[int | None]):
    """Dismisses with the number of facts embedded (None: closed before it started)."""

    CSS_PATH = tcss.path(__file__)

    BINDINGS = [
        Binding("escape", "cancel", "Cancel / close", id="reembed.cancel",
                tooltip="Stop after the batch in hand (nothing half written); then close"),
    ]

    def __init__(self, *, batch: int = BATCH) -> None:
        super().__init__()
        self.batch_size = batch  # (not ``batch``: that is Textual's own batch-update method)
        self.embedded = 0
        self.todo = 0
        self.arrived = 0  # facts that came to lack a vector after the count (the agent wrote)
        self.cancel_requested = False
        self.finished = False
        self.outcome = ""

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    def compose(self) -> ComposeResult:
        with Vertical(id="reembed-box", classes="modal-box"):
            yield Static(Text("Reembed: a vector for every fact, from the installed model",
                              style="bold"), id="reembed-title")
            yield Static(id="reembed-note")
            yield ProgressBar(id="reembed-progress", show_eta=False)
            yield Static(Text("loading the embedding model…", style="dim italic"),
                         id="reembed-status")
            yield Button("Cancel (Esc)", id="reembed-cancel")
        yield Footer()

    def on_mount(self) -> None:
        self._run()

    def say(self, line: str, style: str = "") -> None:
        self.query_one("#reembed-status", Static).update(Text(clean(line), style=style))

    @work(exclusive=True, group="reembed", exit_on_error=False)
    async def _run(self) -> None:
        embedding, vectors = self.mapp.embedding, self.mapp.vectors
        embedder = await embedding.loaded()
        if embedder is None or self.cancel_requested:
            self._finish(f"reembed needs the embedding model: {embedding.error}"
                         if embedder is None else "reembed cancelled before it started; "
                         "nothing was embedded", error=embedder is None)
            return
        model = embedder.name
        note = await vectors.model_note(model, await embedding.dim())
        if note:
            self.query_one("#reembed-note", Static).update(Text(clean(note), style="italic"))
        self.todo = await vectors.embed_todo(model)
        bar = self.query_one("#reembed-progress", ProgressBar)
        bar.update(total=max(self.todo, 1), progress=0)
        while not self.cancel_requested:
            targets = await vectors.embed_targets(model, self.batch_size)
            if not targets:
                break
            vecs = await embedding.embed_documents([t.document_text for t in targets])
            if self.cancel_requested:
                break  # the batch in hand is dropped whole: nothing half written
            await vectors.write_embeddings(
                [(t.id, v) for t, v in zip(targets, vecs, strict=True)], model)
            self.embedded += len(targets)
            if self.embedded > self.todo + self.arrived:  # written since the count: count again
                self.arrived = self.embedded + await vectors.embed_todo(model) - self.todo
            total = self.todo + self.arrived
            bar.update(total=max(total, 1), progress=self.embedded)
            since = f" ({self.arrived:,} written since reembed began)" if self.arrived else ""
            self.say(f"embedded {self.embedded:,} of {total:,}{since}")
        left = await vectors.embed_todo(model)
        if self.embedded:
            self.post_message(StoreChanged())  # recall's vector leg and the mode label move
        if self.cancel_requested:
            self._finish(f"Reembed cancelled: {self.embedded:,} fact(s) embedded with {model}; "
                         f"{left:,} still lack one (reembed again to continue).")
        else:
            self._finish(f"Reembed done: {self.embedded:,} fact(s) embedded with {model}.")

    def _finish(self, outcome: str, *, error: bool = False) -> None:
        self.finished = True
        self.outcome = outcome
        self.say(outcome, "bold red" if error else "bold")
        self.query_one("#reembed-cancel", Button).label = "Close (Esc)"

    @on(Button.Pressed, "#reembed-cancel")
    def action_cancel(self) -> None:
        if self.finished:
            self.dismiss(self.embedded)
            return
        if not self.cancel_requested:
            self.cancel_requested = True
            self.say("stopping after the batch in hand…", "italic")
