"""The repos a staleness pass checks: add (a path, checked at once) and remove.

Dismisses with the new list (saved by the caller) or None when nothing changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from memharness_tui.tui.render import clean
from memharness_tui.tui.repos import display_path
from memharness_tui.tui.services.git import check_repo


@dataclass
class RepoChecked(Message):
    """A typed path, checked in a worker: its work tree, or why it is not a repo."""

    raw: str
    tree: str | None
    problem: str | None


class ReposScreen(ModalScreen[list[str] | None]):
    AUTO_FOCUS = "#repo-add"
    BINDINGS = [
        Binding("escape", "close", "Done", id="repos.close"),
        Binding("delete,x", "remove", "Remove", id="repos.remove"),
    ]

    def __init__(self, repos: list[str]) -> None:
        super().__init__()
        self.repos = list(repos)
        self.changed = False

    def compose(self) -> ComposeResult:
        with Vertical(id="repos-box", classes="modal-box"):
            yield Static("Repos to check", id="repos-title")
            yield OptionList(id="repo-list")
            yield Input(placeholder="add a repo: a path (Enter)", id="repo-add", compact=True)
            yield Static(id="repo-error")
            yield Static("Enter adds the path · Tab to the list, then Delete or x removes · "
                         "Esc done (remembered for next time)", id="repos-help")

    def on_mount(self) -> None:
        self._fill()

    def _fill(self, highlight: int = 0) -> None:
        """List the repos with one highlighted (Delete removes exactly the one you see)."""
        options = self.query_one("#repo-list", OptionList)
        options.clear_options()
        for r in self.repos:
            label = Text(clean(display_path(r), single_line=True))
            if display_path(r) != r:
                label.append(f"   {clean(r, single_line=True)}", style="dim")
            options.add_option(Option(label, id=r))
        if not self.repos:
            options.add_option(Option(Text("no repos yet: add one below", style="dim italic"),
                                      disabled=True))
        else:
            options.highlighted = max(0, min(highlight, len(self.repos) - 1))

    @on(events.DescendantFocus, "#repo-list")
    def _list_focused(self) -> None:
        options = self.query_one("#repo-list", OptionList)
        if options.highlighted is None and self.repos:
            options.highlighted = 0

    @on(Input.Submitted, "#repo-add")
    def _add(self, event: Input.Submitted) -> None:
        raw = event.value.strip()
        if raw:
            self._check(raw)

    @work(thread=True, group="repo-check")
    def _check(self, raw: str) -> None:
        """Open the path with git off the UI thread; the answer comes back as a message."""
        tree, problem = check_repo(raw)
        self.post_message(RepoChecked(raw, tree, problem))

    def on_repo_checked(self, message: RepoChecked) -> None:
        box = self.query_one("#repo-add", Input)
        error = self.query_one("#repo-error", Static)
        if message.tree is None:
            error.update(Text(f"✗ {clean(message.problem or 'not a repo', single_line=True)}"))
            return
        error.update("")
        if message.tree not in self.repos:
            self.repos.append(message.tree)
            self.changed = True
        if box.value.strip() == message.raw:  # not retyped while git looked
            box.value = ""
        self._fill(highlight=self.repos.index(message.tree))

    def action_remove(self) -> None:
        options = self.query_one("#repo-list", OptionList)
        if options.highlighted is None or not self.repos:
            return
        option = options.get_option_at_index(options.highlighted)
        if option.id in self.repos:
            self.repos.remove(option.id)
            self.changed = True
            self._fill(highlight=options.highlighted)

    def action_close(self) -> None:
        self.dismiss(self.repos if self.changed else None)
