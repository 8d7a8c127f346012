"""Forms that write facts: a new fact (``n``) and the rewrite of a flagged one.

Each field is validated with the Store's own rules (``normalize_iso``, the confidence and
importance ranges, pin syntax); errors show inline under the field and nothing is written
until the whole form is valid. A write the Store still refuses (e.g. a valid-from in the
future) is shown inline too, and the form stays open. Ctrl+S submits, Esc cancels.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Footer, Input, Select, Static, TextArea

from memharness_tui.tui.editing import (
    FactValues,
    Judged,
    PathAtHead,
    check_not_gone,
    is_readonly,
    parse_confidence,
    parse_importance,
    parse_pin_commit,
    parse_pin_path,
    parse_valid_from,
)
from memharness_tui.tui.render import clean, fact_heading, safe
from memharness_tui.tui.services.vectors import Nudges

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp

KINDS = ("semantic", "episodic", "procedural")

# which field a Store error message is about (InvalidInput messages start with the name)
_ERROR_FIELDS = (
    ("new_fact", "fact"), ("fact", "fact"), ("subject", "subject"), ("confidence", "confidence"),
    ("importance", "importance"), ("valid_from", "valid_from"), ("cannot backdate", "valid_from"),
    ("source_commit", "commit"), ("source_path", "path"), ("kind", "kind"),
)


def _refused_again(raw: str, refused: str, rule: Callable[[str], Any] | None,
                   message: str) -> None:
    """A field the store refused passes once it changed (and passes the form's own rule)."""
    from memharness_tui.store.errors import InvalidInput

    if raw == refused:
        raise InvalidInput(message)
    if rule is not None:
        rule(raw)


class FactFormScreen(ModalScreen[int | None]):
    """Shared form machinery; subclasses list their fields and do the write."""

    AUTO_FOCUS = "#form-fact"
    BINDINGS = [
        Binding("ctrl+s", "submit", "Save", id="form.save"),
        Binding("escape", "cancel", "Cancel", id="form.cancel"),
        Binding("ctrl+o", "open_similar", "Open similar", id="form.open_similar",
                tooltip="Open the fact the text resembles (the agent server's nudge)"),
    ]

    TITLE_TEXT = "Fact"
    NUDGE_DELAY = 0.3
    """Seconds after the last keystroke before the nudges are asked for (debounce)."""

    def __init__(self, *, repos: Sequence[str] = ()) -> None:
        super().__init__()
        self.repos = list(repos)
        self.errors: dict[str, str] = {}
        self.rules: dict[str, Callable[[str], Any]] = {}
        """Each checked field's rule (``check``): an inline error goes once its field passes."""
        self.busy = False
        self.nudges: Nudges = Nudges()
        """The agent server's notes for the text as typed (``VectorService.nudges``)."""
        self._nudge_timer: Timer | None = None

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    # ----- layout ---------------------------------------------------------------------
    def context(self) -> Text | None:
        return None

    def fields(self) -> ComposeResult:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        with Vertical(id="form-box", classes="modal-box"):
            yield Static(Text(self.TITLE_TEXT), id="form-title")
            ctx = self.context()
            if ctx is not None:
                yield Static(ctx, id="form-context")
            with VerticalScroll(id="form-fields"):
                yield from self.fields()
            yield Static(classes="-empty", id="form-nudge")
            yield Static(classes="form-error -empty", id="form-general")
            yield Static("Ctrl+S save · Esc cancel · Tab next field", id="form-help")
            with Horizontal(id="form-buttons"):
                yield Button("Cancel", id="form-cancel")
                yield Button("Save", variant="primary", id="form-save")
        yield Footer()

    def on_mount(self) -> None:
        # Toasts sit over the bottom right, where the form's buttons are ("New store" on a
        # new file stays 8 s and hid Save): they were read before the form was asked for.
        self.app.clear_notifications()

    def on_resize(self) -> None:
        self.query_one("#form-box").set_class(self.size.height < 34, "short")

    @staticmethod
    def row(label: str, widget: Any, name: str) -> ComposeResult:
        with Horizontal(classes="form-row"):
            yield Static(label, classes="form-label")
            yield widget
        yield Static(classes="form-error -empty", id=f"err-{name}")

    @staticmethod
    def text_input(name: str, value: str = "", placeholder: str = "") -> Input:
        return Input(value=value, placeholder=placeholder, id=f"form-{name}", compact=True)

    @staticmethod
    def fact_area(value: str) -> TextArea:
        return TextArea(value, id="form-fact", soft_wrap=True, compact=True,
                        show_line_numbers=False, tab_behavior="focus",
                        placeholder="what is true (required; Tab leaves this box)")

    # ----- values ---------------------------------------------------------------------
    def value(self, name: str) -> str:
        if name == "fact":
            return self.query_one("#form-fact", TextArea).text
        widget = self.query_one(f"#form-{name}")
        if isinstance(widget, Select):
            v = widget.value
            return v if isinstance(v, str) else ""
        return cast(Input, widget).value

    def set_error(self, name: str, message: str | None) -> None:
        target = "#form-general" if name == "general" else f"#err-{name}"
        matches = self.query(target)
        if not matches:
            target, message = "#form-general", (f"{name}: {message}" if message else message)
        widget = self.query_one(target, Static)
        widget.update(Text(f"✗ {clean(message, single_line=True)}") if message else Text(""))
        widget.set_class(not message, "-empty")
        if message:
            self.errors[name] = message
        else:
            self.errors.pop(name, None)

    def check(self, name: str, parse: Callable[[str], Any]) -> Any:
        """Parse one field; on failure record its inline error and return None."""
        from memharness_tui.store.errors import MemharnessError

        self.rules[name] = parse
        try:
            result = parse(self.value(name))
        except MemharnessError as exc:
            self.set_error(name, exc.message)
            return None
        self.set_error(name, None)
        return result

    def passes(self, name: str) -> bool:
        """Whether field ``name`` now passes the rule it was last checked with."""
        from memharness_tui.store.errors import MemharnessError

        rule = self.rules.get(name)
        if rule is None:
            return False
        try:
            rule(self.value(name))
        except MemharnessError:
            return False
        return True

    @on(Input.Changed)
    @on(TextArea.Changed)
    def _recheck(self) -> None:
        """An inline error goes as soon as its field is valid (a new one waits for Save;
        the pin path's depends on the commit, so every change rechecks every error)."""
        for name in [n for n in self.errors if n != "general"]:
            if self.passes(name):
                self.set_error(name, None)

    def collect(self) -> FactValues | None:
        """Validate every field (all errors at once); None when anything is wrong."""
        raise NotImplementedError

    def check_pin(self) -> tuple[str | None, str | None]:
        """The pin fields: a path needs a commit (checked once the fields themselves are valid)."""
        commit = self.check("commit", parse_pin_commit)
        path = self.check("path", parse_pin_path)
        if not self.errors:
            path = self.check("path", self.path_rule)
        return commit, path

    def path_rule(self, raw: str) -> str | None:
        """The pin path with the commit beside it: a path needs a commit."""
        from memharness_tui.store.errors import InvalidInput

        path = parse_pin_path(raw)
        if path is not None and parse_pin_commit(self.value("commit")) is None:
            raise InvalidInput("a pin path needs a pin commit")
        return path

    @staticmethod
    def _nonempty(label: str) -> Callable[[str], str]:
        def parse(raw: str) -> str:
            from memharness_tui.store.errors import InvalidInput
            from memharness_tui.store.timeutil import js_trim

            text = js_trim(raw)
            if not text:
                raise InvalidInput(f"{label} must not be empty")
            return text

        return parse

    # ----- the agent server's nudges, live ------------------------------------------------
    def nudge_subject(self) -> str:
        return self.value("subject")

    def nudge_exclude(self) -> int | None:
        """A fact not to compare with (the one being rewritten)."""
        return None

    @on(TextArea.Changed, "#form-fact")
    @on(Input.Changed, "#form-subject, #form-commit")
    def _typed_for_nudges(self) -> None:
        """Debounced: the nudges are asked for once typing pauses, off the UI thread."""
        if self._nudge_timer is not None:
            self._nudge_timer.stop()
        self._nudge_timer = self.set_timer(self.NUDGE_DELAY, self._ask_nudges)

    @work(exclusive=True, group="nudges", exit_on_error=False)
    async def _ask_nudges(self) -> None:
        from memharness_tui.store.errors import MemharnessError

        try:
            found = await self.mapp.vectors.nudges(
                self.nudge_subject(), self.value("fact"), pinned=bool(self.value("commit").strip()),
                exclude=self.nudge_exclude())
        except MemharnessError:  # text the store refuses: the form says so on save
            found = Nudges()
        self.show_nudges(found)

    def show_nudges(self, found: Nudges) -> None:
        self.nudges = found
        box = self.query_one("#form-nudge", Static)
        if found.note:
            text = Text("⚑ ", style="bold")
            text.append(clean(found.note))
            if found.similar:
                text.append(f"   ctrl+o opens #{found.similar[0].id}", style="dim")
            box.update(text)
        else:
            box.update(Text(""))
        box.set_class(not found.note, "-empty")
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_similar":
            return bool(self.nudges.similar)  # shown only while a fact is resembled
        return True

    def action_open_similar(self) -> None:
        """Open the most similar fact over the form (Esc comes back, the text kept)."""
        if self.nudges.similar:
            self.mapp.open_fact(self.nudges.similar[0].id)

    # ----- submit ---------------------------------------------------------------------
    async def write(self, values: FactValues) -> int:
        raise NotImplementedError

    @on(Button.Pressed, "#form-save")
    @on(Input.Submitted)
    async def action_submit(self) -> None:
        from memharness_tui.store.errors import MemharnessError

        if self.busy:
            return
        self.set_error("general", None)
        values = self.collect()
        if values is None:
            return
        if is_readonly(self.mapp):
            self.set_error("general", "this database is open read-only; nothing was written")
            return
        self.busy = True
        try:
            new_id = await self.write(values)
        except MemharnessError as exc:
            self.busy = False
            self._store_error(exc.message)
            return
        except Exception as exc:  # noqa: BLE001 - shown inline; the form stays open
            self.busy = False
            self.set_error("general", str(exc) or type(exc).__name__)
            return
        self.busy = False
        self.dismiss(new_id)

    def _store_error(self, message: str) -> None:
        for prefix, name in _ERROR_FIELDS:
            if message.startswith(prefix) and self.query(f"#err-{name}"):
                self.set_error(name, message)
                self.rules[name] = partial(_refused_again, refused=self.value(name),
                                           rule=self.rules.get(name), message=message)
                return
        self.set_error("general", message)

    @on(Button.Pressed, "#form-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class NewFactScreen(FactFormScreen):
    """``n``: remember a new fact (a pinned one is checked against the repos at once)."""

    AUTO_FOCUS = ".-first-empty"
    """The first empty field: the subject, or the text when the subject comes filled in."""
    TITLE_TEXT = "New fact"

    def __init__(self, *, subject: str = "", repos: Sequence[str] = ()) -> None:
        super().__init__(repos=repos)
        self.subject = subject

    def fields(self) -> ComposeResult:
        subject = self.text_input("subject", self.subject, "e.g. auth")
        text = self.fact_area("")
        (text if self.subject.strip() else subject).add_class("-first-empty")
        yield from self.row("subject", subject, "subject")
        yield from self.row("predicate", self.text_input("predicate", "", "optional"), "predicate")
        yield from self.row("fact", text, "fact")
        yield from self.row("confidence", self.text_input("confidence", "1.0"), "confidence")
        yield from self.row("importance", self.text_input("importance", "5"), "importance")
        yield from self.row("kind", Select([(k, k) for k in KINDS], value="semantic",
                                           allow_blank=False, id="form-kind", compact=True),
                            "kind")
        yield from self.row("valid from", self.text_input(
            "valid_from", "", "blank = now; 2026-03-01 or 2026-03-01T09:30Z"), "valid_from")
        yield from self.row("source ref", self.text_input(
            "source_ref", "", "session id, file, URL, repo@sha:path"), "source_ref")
        yield from self.row("pin commit", self.text_input(
            "commit", "", "optional: the SHA the fact was read at"), "commit")
        yield from self.row("pin path", self.text_input(
            "path", "", "optional: repo-relative path"), "path")

    def collect(self) -> FactValues | None:
        subject = self.check("subject", self._nonempty("subject"))
        fact = self.check("fact", self._nonempty("fact"))
        predicate = self.check("predicate", lambda raw: raw)
        confidence = self.check("confidence", parse_confidence)
        importance = self.check("importance", parse_importance)
        valid_from = self.check("valid_from", parse_valid_from)
        commit, path = self.check_pin()
        if self.errors:
            return None
        return FactValues(
            fact=fact, confidence=confidence, valid_from=valid_from,
            source_ref=self.value("source_ref"), source_commit=commit, source_path=path,
            subject=subject, predicate=predicate, importance=importance, kind=self.value("kind"),
        )

    async def write(self, values: FactValues) -> int:
        new_id, _ = await self.mapp.service.new_fact(values, self.repos)
        self.mapp.notify(f"Remembered #{new_id}", title="new fact", timeout=4)
        return new_id


class ReviseFormScreen(FactFormScreen):
    """Rewrite a flagged fact: new text, confidence, importance, kind, valid-from, ref; pinned
    at HEAD by default. Confidence, importance and kind start as the fact's own."""

    TITLE_TEXT = "Rewrite"

    def __init__(self, fact: Any, *, head: str | None, repos: Sequence[str] = (),
                 source_ref: str | None = None, at_head: PathAtHead | None = None) -> None:
        super().__init__(repos=repos)
        self.fact = fact
        self.head = head
        self.source_ref = fact.source_ref if source_ref is None else source_ref
        self.at_head = at_head
        """Where the pinned file is at HEAD when not at its pinned path (moved, deleted)."""
        self.judged: Judged | None = None

    def context(self) -> Text:
        f = self.fact
        text = fact_heading(f)
        text.append("\nwas: ", style="dim")
        text.append_text(safe(f.fact, "dim", single_line=True, max_len=150))
        text.append("\nThe old row is closed and superseded by the new one; nothing is deleted.",
                    style="dim italic")
        if self.at_head is not None and self.head:
            text.append("\n")
            text.append(clean(self.at_head.note(), single_line=True), style="bold")
        return text

    def nudge_subject(self) -> str:
        return str(self.fact.subject)

    def nudge_exclude(self) -> int | None:
        return int(self.fact.id)

    def fields(self) -> ComposeResult:
        f = self.fact
        commit = self.head or f.source_commit or ""
        yield from self.row("fact", self.fact_area(f.fact), "fact")
        yield from self.row("confidence", self.text_input("confidence", f"{f.confidence:g}"),
                            "confidence")
        yield from self.row("importance", self.text_input("importance", str(f.importance)),
                            "importance")
        yield from self.row("kind", Select([(k, k) for k in KINDS], value=f.kind,
                                           allow_blank=False, id="form-kind", compact=True),
                            "kind")
        yield from self.row("valid from", self.text_input(
            "valid_from", "", "blank = now; 2026-03-01 or 2026-03-01T09:30Z"), "valid_from")
        yield from self.row("source ref", self.text_input("source_ref", self.source_ref),
                            "source_ref")
        yield from self.row("pin commit", self.text_input(
            "commit", commit, "blank = not pinned"), "commit")
        path = f.source_path or ""
        if self.at_head is not None and self.head:  # pinned at HEAD: where the file is there
            path = self.at_head.now or ""
        yield from self.row("pin path", self.text_input(
            "path", path, "blank = whole repo"), "path")

    def path_rule(self, raw: str) -> str | None:
        """Also: not a path that is gone at HEAD when pinned at HEAD."""
        path = super().path_rule(raw)
        check_not_gone(path, parse_pin_commit(self.value("commit")), self.head, self.at_head)
        return path

    def collect(self) -> FactValues | None:
        fact = self.check("fact", self._nonempty("fact"))
        confidence = self.check("confidence", parse_confidence)
        importance = self.check("importance", parse_importance)
        valid_from = self.check("valid_from", parse_valid_from)
        commit, path = self.check_pin()
        if self.errors:
            return None
        return FactValues(fact=fact, confidence=confidence, valid_from=valid_from,
                          source_ref=self.value("source_ref"), source_commit=commit,
                          source_path=path, importance=importance, kind=self.value("kind"))

    async def write(self, values: FactValues) -> int:
        new_id, judged = await self.mapp.service.rewrite(self.fact.id, values, self.repos)
        self.judged = judged
        verdict = f" — checked: {judged.freshness}" if judged is not None else ""
        self.mapp.notify(f"Revised #{self.fact.id} → #{new_id}{verdict}", title="rewrite",
                         timeout=5)
        return new_id
