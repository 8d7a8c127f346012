"""Revise a flagged fact: the fact, its pin, the diff of the pinned path pin → HEAD, four actions.

*rewrite* (e) opens the form, pinned at HEAD; *still true* (y) re-verifies at HEAD; *downgrade*
(w) keeps text and pin with confidence × factor; *retract* (r / Delete) forgets after a
confirmation. Git runs in a worker thread through the staleness package (``GitView``).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from memharness_tui.tui import tcss
from memharness_tui.tui.editing import DEFAULT_FACTOR, PathAtHead, is_readonly, repin_ref
from memharness_tui.tui.render import clean, fact_heading, freshness_badge, safe, theme_color
from memharness_tui.tui.services.git import Judged, revise_picture
from memharness_tui.tui.widgets.base import WorkerErrorsToApp
from memharness_tui.tui.widgets.similar import SimilarList
from memharness_tui.tui.widgets.staleness.revise_actions import Downgrade, Retract, StillTrue

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp
    from memharness_tui.tui.services.git import Drift, Triage, TriageHunk

WRITE_ACTIONS = {"rewrite", "still_true", "downgrade", "retract"}
REWRITE_RETRACTED = ("#{id} was retracted by an agent since you looked: saving your rewrite "
                     "makes its text a current fact again (a revision of the retracted row)")
MAX_DIFF_LINES = 3000  # a diff longer than this is cut (the rest is one `git diff` away)


def diff_text(diff: str, app: object, *, max_lines: int = MAX_DIFF_LINES) -> Text:
    """A unified diff as literal, coloured text (theme colours; never markup)."""
    add = theme_color(app, "success", "green")
    rem = theme_color(app, "error", "red")
    hunk = theme_color(app, "accent", "cyan")
    out = Text(no_wrap=True, overflow="ellipsis")
    lines = diff.splitlines()
    for line in lines[:max_lines]:
        shown = clean(line)
        if line.startswith(("diff --git", "index ", "--- ", "+++ ", "new file", "deleted file",
                            "similarity", "rename ")):
            style = "bold"
        elif line.startswith("@@"):
            style = hunk
        elif line.startswith("+"):
            style = add
        elif line.startswith("-"):
            style = rem
        else:
            style = ""
        out.append(shown + "\n", style=style)
    if len(lines) > max_lines:
        out.append(f"… {len(lines) - max_lines} more lines not shown\n", style="dim italic")
    out.rstrip()
    return out


TRIAGE_HEADING = {"touches": "the change touches the fact", "elsewhere": "elsewhere in the file",
                  "moved": "moved", "deleted": "deleted", "unknown": "not analysed"}


def _after_heading(outcome: str, heading: str, summary: str) -> str:
    """The summary after its heading, saying once what the heading says ("the change touches
    the fact: `port 8080`", "moved to src/new.py unchanged"), not twice."""
    if outcome == "touches" and summary.startswith(TOUCHES_SAID):
        return ": " + summary.removeprefix(TOUCHES_SAID)
    if summary.startswith(heading + " "):
        return summary.removeprefix(heading)
    return "  " + summary


TOUCHES_SAID = "the change touches "
"""How the triage's summary of a ``touches`` outcome begins (``staleness/triage.py``)."""


def _line_text(text: str, spans: Any, style: str, mark: str) -> Text:
    """One diff line as literal text, the fact's terms (``spans``) in ``mark`` style."""
    out = Text(style=style)
    at = 0
    for sp in spans:
        if sp.start > at:
            out.append(clean(text[at:sp.start]))
        out.append(clean(text[sp.start:sp.end]), style=mark)
        at = max(at, sp.end)
    out.append(clean(text[at:]))
    return out


def triage_text(result: Triage, app: object, *, max_lines: int = 400) -> Text:
    """The triage: outcome, evidence, and the hunks that mention the fact, terms highlighted.

    Built from ``Text`` pieces with styles (database and file text never read as markup)."""
    add = theme_color(app, "success", "green")
    rem = theme_color(app, "error", "red")
    hunk_colour = theme_color(app, "accent", "cyan")
    mark = f"bold reverse {theme_color(app, 'warning', 'yellow')}"
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append("triage     ", style="bold")
    heading = TRIAGE_HEADING.get(result.outcome, result.outcome)
    out.append(heading, style=f"bold {mark}")
    out.append(_after_heading(result.outcome, heading, clean(result.summary, single_line=True)))
    for ev in result.evidence:
        if ev == result.summary:  # (an elsewhere's evidence repeats it: said once, above)
            continue
        out.append("\nevidence   ", style="bold")
        out.append(clean(ev, single_line=True))
    matching: list[TriageHunk] = [h for h in result.hunks if h.matches]
    if matching:
        n = len(matching)
        out.append(f"\n\nhunks that mention the fact ({n})", style="bold")
    shown = 0
    for h in matching:
        out.append("\n")
        out.append(clean(f"{h.file}  {h.header}", single_line=True), style=hunk_colour)
        for ln in h.lines:
            if shown >= max_lines:
                out.append("\n… more lines in the diff below", style="dim italic")
                return out
            shown += 1
            style = add if ln.origin == "+" else rem if ln.origin == "-" else ""
            if ln.origin in "+-" and not ln.changed:
                style = "dim"  # whitespace, reformatting or a moved line: not a real change
            out.append("\n")
            out.append_text(_line_text(f"{ln.origin}{ln.text}", _shifted(ln.spans), style, mark))
    if result.hunks:
        out.append("\n\nthe whole diff, pin → HEAD", style="bold")
    return out


def _shifted(spans: Any) -> list[Any]:
    """Spans moved one place right (the line is shown after its ``+`` / ``-`` / space)."""
    from memharness_tui.tui.services.git import TermSpan

    return [TermSpan(sp.start + 1, sp.end + 1, sp.term) for sp in spans]


def drift_label(drift: Drift | None) -> str:
    if drift is None:
        return "—"
    c = drift.commits
    return f"{c} commit{'s' if c != 1 else ''}  +{drift.added} −{drift.removed}"


class ReviseScreen(WorkerErrorsToApp, ModalScreen[str | None]):
    """Dismisses with what was done ("rewritten", "still-true", "downgraded", "retracted") or None."""

    CSS_PATH = tcss.path(__file__)

    AUTO_FOCUS = "#revise-diff"
    BINDINGS = [
        Binding("e", "rewrite", "Rewrite", id="revise.rewrite",
                tooltip="Rewrite: new text, confidence, valid-from, ref; pinned at HEAD"),
        Binding("y", "still_true", "Still true", id="revise.still_true",
                tooltip="Still true: same text re-pinned at HEAD, recorded current"),
        Binding("w", "downgrade", "Downgrade", id="revise.downgrade",
                tooltip="Downgrade: same text and pin, confidence × factor"),
        Binding("r,delete", "retract", "Retract", id="revise.retract",
                tooltip="Retract this fact (asks first)"),
        Binding("s", "similar", "Similar", show=False, id="revise.similar",
                tooltip="Similar by meaning: the nearest facts by stored vector (Enter opens)"),
        Binding("escape", "close", "Close", id="revise.close",
                tooltip="Close without changing anything"),
    ]

    def __init__(self, fact: Any, repos: list[str], *, factor: float = DEFAULT_FACTOR) -> None:
        super().__init__()
        self.fact = fact
        self.repos = repos
        self.factor = factor
        self.judged: Judged | None = None
        self.drift: Drift | None = None
        self.diff: str | None = None
        self.triage: Triage | None = None
        self.triage_shown = Text()
        self.git_errors: list[str] = []
        self.git_ready = asyncio.Event()

    @property
    def mapp(self) -> MemharnessApp:
        return cast("MemharnessApp", self.app)

    def compose(self) -> ComposeResult:
        with Vertical(id="revise-box", classes="modal-box"):
            yield Static(id="revise-title")
            yield Static(id="revise-fact")
            yield Static(id="revise-pin")
            yield SimilarList(id="revise-similar")
            with VerticalScroll(id="revise-diff"):
                yield Static(id="revise-triage")
                yield Static(Text("reading git…", style="dim italic"), id="revise-diff-text")
        yield Footer()

    def on_mount(self) -> None:
        f = self.fact
        title = fact_heading(f, prefix="Revise ")
        title.append("   ")
        title.append_text(freshness_badge(self.app, f.freshness, f.is_pinned))
        self.query_one("#revise-title", Static).update(title)
        body = safe(f.fact)
        body.append(f"\nconfidence {f.confidence:.2f} · importance {f.importance} · {f.kind}"
                    f" · learned {f.tx_at[:10]}", style="dim")
        self.query_one("#revise-fact", Static).update(body)
        self.query_one("#revise-diff").border_title = "diff pin → HEAD"
        self._show_pin()
        self._load_git()
        self.query_one("#revise-similar", SimilarList).show_for(f.id)

    # ----- git ------------------------------------------------------------------------
    @work(exclusive=True, group="revise-git", exit_on_error=False)
    async def _load_git(self) -> None:
        f = self.fact
        try:
            pic = await revise_picture(self.repos, f.source_commit, f.source_path, f.fact)
            self.judged, self.drift, self.diff, self.git_errors = (pic.judged, pic.drift,
                                                                   pic.diff, pic.errors)
            self.triage = pic.triage
        finally:
            self.git_ready.set()
        self._show_pin()
        self._show_diff()

    def _show_pin(self) -> None:
        f = self.fact
        t = Text()
        t.append("pin        ", style="bold")
        if f.source_commit:
            t.append_text(safe((f"{f.source_path}@" if f.source_path else "(whole repo)@")
                               + f.source_commit[:12], single_line=True, max_len=90))
        else:
            t.append("not pinned", style="dim")
        j = self.judged
        if j is not None:
            from memharness_tui.tui.repos import display_path

            t.append("\nHEAD       ", style="bold")
            t.append(j.head[:12])
            t.append("  in ", style="dim")
            t.append_text(safe(display_path(j.repo), single_line=True, max_len=60))
            t.append("\nnow        ", style="bold")
            t.append_text(freshness_badge(self.app, j.freshness, True))
            t.append("  ")
            t.append_text(safe(j.reason, single_line=True, max_len=110))
            t.append("\ndrift      ", style="bold")
            if not j.resolved:
                t.append("— (pin not in this repo)")
            elif j.freshness == "unresolved":  # no file at the pin: "0 commits" said nothing
                t.append("unknown (the pin does not resolve)", style="dim")
            else:
                t.append(drift_label(self.drift))
        elif self.git_ready.is_set():
            t.append("\ngit        ", style="bold")
            problem = "; ".join(self.git_errors) or "no repo to check against (g on the dashboard)"
            t.append_text(safe(problem, "italic", single_line=True, max_len=120))
        self.query_one("#revise-pin", Static).update(t)

    def _show_diff(self) -> None:
        box = self.query_one("#revise-triage", Static)
        box.display = self.triage is not None
        if self.triage is not None:
            self.triage_shown = triage_text(self.triage, self.app)
            box.update(self.triage_shown)
        target = self.query_one("#revise-diff-text", Static)
        if self.diff is None:
            target.update(Text("no diff: the pin is not a commit in the checked repos",
                               style="dim italic"))
        elif not self.diff.strip():
            target.update(Text("no changes to the pinned path between the pin and HEAD",
                               style="dim italic"))
        else:
            target.update(diff_text(self.diff, self.app))

    def triage_rendered(self) -> Text:
        """The triage block as shown (tests read its text and styles)."""
        return self.triage_shown

    def diff_plain(self) -> str:
        """The diff as shown (tests read it)."""
        r = self.query_one("#revise-diff-text", Static).render()
        return r.plain if isinstance(r, Text) else str(r)

    # ----- actions --------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The one read-only rule: write keys are disabled (and shown so) on a read-only store."""
        if action in WRITE_ACTIONS and is_readonly(self.mapp):
            return None
        return True

    async def action_rewrite(self) -> None:
        await self.git_ready.wait()
        from memharness_tui.tui.screens.fact_form import ReviseFormScreen

        head = self.judged.head if self.judged is not None else None
        ref = repin_ref(self.fact.source_ref, head) if head else self.fact.source_ref
        try:
            retracted = (await self.mapp.service.get(self.fact.id)).retracted_at is not None
        except Exception as exc:  # noqa: BLE001 - the app's one error handler shows it
            self.mapp.report_error(exc)
            return
        if retracted:  # your own words: revised as the reference's revise would, and said so
            self.mapp.notify(REWRITE_RETRACTED.format(id=self.fact.id), title="rewrite",
                             severity="warning", timeout=10)

        def done(new_id: int | None) -> None:
            if new_id is not None:
                if retracted:
                    self.mapp.notify(f"#{new_id} is current: your rewrite of the retracted "
                                     f"#{self.fact.id}; agents recall it", title="rewrite",
                                     timeout=8)
                self.dismiss("rewritten")

        self.app.push_screen(ReviseFormScreen(self.fact, head=head, repos=self.repos,
                                              source_ref=ref, at_head=self._path_at_head()),
                             done)

    def _path_at_head(self) -> PathAtHead | None:
        """Where the pinned file is at HEAD, when git says it is not where the pin says:
        moved (the rewrite is pinned to its new path) or deleted (to no path)."""
        t = self.triage
        if t is None or self.fact.source_path is None:
            return None
        if t.outcome == "moved" and t.new_path:
            return PathAtHead(self.fact.source_path, t.new_path)
        if t.outcome == "deleted":
            return PathAtHead(self.fact.source_path, None)
        return None

    def _run(self, action: StillTrue | Downgrade | Retract, done: str) -> None:
        """Ask ``action``'s confirmation; once confirmed, run it, tell its summary, and close
        with ``done`` when it wrote (the same actions as the dashboard's bulk triage)."""
        from memharness_tui.tui.screens.confirm import ConfirmScreen

        ask = action.ask()

        async def answered(ok: bool | None) -> None:
            if not ok:
                return
            try:
                outcome = await action.run(self.mapp)
            except Exception as exc:  # noqa: BLE001 - the app's one error handler shows it
                self.mapp.report_error(exc)
                return
            self.mapp.notify(outcome.summary, title=action.title,
                             severity="information" if outcome.written else "warning",
                             timeout=5 if outcome.written else 6)
            if outcome.written:
                self.dismiss(done)

        self.app.push_screen(ConfirmScreen(ask.title, ask.detail, confirm=ask.label,
                                           danger=ask.danger), answered)

    def action_still_true(self) -> None:
        self._run(StillTrue([self.fact], self.repos, {self.fact.id: self.triage}), "still-true")

    def action_downgrade(self) -> None:
        self._run(Downgrade([self.fact], self.factor, self.repos, {self.fact.id: self.judged}),
                  "downgraded")

    @work(group="revise-retract", exit_on_error=False)
    async def action_retract(self) -> None:
        """Ask, then retract — unless the fact is no longer a belief (as it is now, not as it
        was when the modal opened): then say so, and change nothing."""
        action = Retract([await self.mapp.service.get(self.fact.id)])
        refused = action.refused()
        if refused is not None:
            self.mapp.notify(refused, title="nothing to retract", severity="warning", timeout=8)
            return
        self._run(action, "retracted")

    def action_similar(self) -> None:
        """Focus the similar-by-meaning list; Enter there opens the fact (over this modal)."""
        similar = self.query_one("#revise-similar", SimilarList)
        if similar.display:
            similar.focus()
        else:
            self.mapp.notify("No stored vectors in this store: similar by meaning needs them "
                             "(reembed gives every fact one).", timeout=5)

    def action_close(self) -> None:
        self.dismiss(None)
