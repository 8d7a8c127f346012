"""The editors a hygiene fix asks for before its preview: a merge's surviving text, a split's
parts, a pin's commit and path. Each dismisses with what to plan, or None (cancelled)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from memharness_tui.tui import tcss
from memharness_tui.tui.render import cell, clean

__all__ = ["FixEditor", "MergeEditor", "PinEditor", "SplitEditor"]


class FixEditor(ModalScreen[object]):
    """A box with a title, a help line, the editor's widgets and Preview / Cancel."""

    CSS_PATH = tcss.path(__file__)

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="hygiene_edit.cancel"),
        Binding("ctrl+s", "done", "Preview", id="hygiene_edit.preview"),
    ]
    heading = ""
    help_text = ""

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box hygiene-editor"):
            yield Static(Text(self.heading, style="bold"), classes="modal-title")
            yield Static(Text(self.help_text), classes="modal-help")
            yield from self.fields()
            yield Static(id="edit-error")
            with Horizontal(classes="modal-buttons"):
                yield Button("Cancel (esc)", id="edit-cancel")
                yield Button("Preview (ctrl+s)", id="edit-done", variant="primary")

    def fields(self) -> ComposeResult:  # pragma: no cover - each editor has its own
        yield from ()

    def result(self) -> object:  # pragma: no cover
        return None

    def refuse(self, why: str) -> None:
        self.query_one("#edit-error", Static).update(Text(f"✗ {why}", style="bold red"))

    @on(Button.Pressed, "#edit-done")
    def action_done(self) -> None:
        value = self.result()
        if value is not None:
            self.dismiss(value)

    @on(Button.Pressed, "#edit-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class MergeEditor(FixEditor):
    """Pick the surviving text (Enter on a member) and edit it; dismisses with the text."""

    heading = "Merge: the text the merged fact keeps"
    help_text = "Enter on a fact copies its text below; edit it there. ctrl+s: preview."
    AUTO_FOCUS = "#merge-pick"

    def __init__(self, texts: Sequence[tuple[int, str]]) -> None:
        super().__init__()
        self.texts = list(texts)

    def fields(self) -> ComposeResult:
        yield OptionList(*(Option(Text(f"#{i} ").append_text(cell(t, max_len=300)), id=str(i))
                           for i, t in self.texts), id="merge-pick")
        yield TextArea(clean(self.texts[0][1]) if self.texts else "", id="merge-text",
                       soft_wrap=True)

    @on(OptionList.OptionSelected, "#merge-pick")
    def _pick(self, event: OptionList.OptionSelected) -> None:
        chosen = dict(self.texts).get(int(event.option.id or 0), "")
        area = self.query_one("#merge-text", TextArea)
        area.text = clean(chosen)  # control characters shown, never sent to the terminal
        area.focus()

    def result(self) -> object:
        text = self.query_one("#merge-text", TextArea).text.strip()
        if not text:
            self.refuse("The merged fact needs a text.")
            return None
        return text


class SplitEditor(FixEditor):
    """One part per line (proposed at semicolons and sentence ends); dismisses with the parts."""

    heading = "Split: one fact per line"
    help_text = "The first line revises the fact; each other line becomes a new fact. ctrl+s: preview."
    AUTO_FOCUS = "#split-parts"

    def __init__(self, fact_id: int, text: str, parts: Sequence[str]) -> None:
        super().__init__()
        self.fact_id, self.text, self.parts = fact_id, text, list(parts)

    def fields(self) -> ComposeResult:
        yield Static(Text(f"#{self.fact_id} ").append_text(cell(self.text, max_len=300)),
                     id="split-original")
        yield TextArea("\n".join(clean(p, single_line=True) for p in self.parts),
                       id="split-parts", soft_wrap=True)

    def result(self) -> object:
        parts = [line.strip() for line in self.query_one("#split-parts", TextArea).text.split("\n")]
        parts = [p for p in parts if p]
        if len(parts) < 2:
            self.refuse("A split needs at least two lines.")
            return None
        return parts


class PinEditor(FixEditor):
    """A commit (and a path) to pin code-map facts to; dismisses with ``(full sha, path)``.

    The commit box starts at HEAD of the repos' first repo; what is typed there is looked up
    in the repos (through the app's git door) and stored as its full SHA, as a rewrite does."""

    heading = "Pin to a commit"
    help_text = ("The fact is revised with the same text, pinned to this commit (and path): "
                 "a staleness pass then checks it. ctrl+s: preview.")
    AUTO_FOCUS = "#pin-commit"

    def __init__(self, ids: Sequence[int], *, repos: Sequence[str] = (),
                 head: str | None = None) -> None:
        super().__init__()
        self.ids = list(ids)
        self.repos = list(repos)
        self.head = head

    def fields(self) -> ComposeResult:
        yield Static(Text(", ".join(f"#{i}" for i in self.ids)), id="pin-ids")
        yield Input(self.head or "", placeholder="commit (sha)", id="pin-commit")
        yield Input(placeholder="path in the repository (optional)", id="pin-path")

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_done()

    def action_done(self) -> None:
        typed = self.result()
        if typed is not None:
            self._resolve(*typed)  # type: ignore[misc]

    @work(exclusive=True, group="pin-commit", exit_on_error=False)
    async def _resolve(self, commit: str, path: str | None) -> None:
        from memharness_tui.tui.services.git import pin_commit

        sha, why = await pin_commit(self.repos, commit)
        if sha is None:
            self.refuse(clean(why, single_line=True))
            return
        self.dismiss((sha, path))

    def result(self) -> object:
        commit = self.query_one("#pin-commit", Input).value.strip()
        path = self.query_one("#pin-path", Input).value.strip()
        if not commit:
            self.refuse("Give the commit to pin to.")
            return None
        return commit, path or None
