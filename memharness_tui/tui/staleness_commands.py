"""Command palette entries for the staleness feature and for editing facts.

``StalenessCommands`` is a provider the app can add to ``MemharnessApp.COMMANDS``; it also
answers ``retract 12`` / ``revise 12`` with the matching action on that fact.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from textual.binding import Binding
from textual.command import Hit, Hits

from memharness_tui.tui.commands import EntriesProvider, Entry

if TYPE_CHECKING:
    pass



def _on_dashboard(app: Any, binding_id: str) -> None:
    """Show the Staleness tab, then press the dashboard key whose binding has this id.

    Keys are data: the palette runs the same binding a person would press (so ``check_action``
    gating applies), and never calls into the widget.
    """
    from memharness_tui.tui.widgets.dashboard import StalenessDashboard

    key = next((b.key.split(",")[0] for b in StalenessDashboard.BINDINGS
                if isinstance(b, Binding) and b.id == binding_id), None)
    if key is None or not hasattr(app, "show_tab"):
        return
    app.show_tab("staleness")
    app.call_after_refresh(app.simulate_key, key)  # once the tab's table has focus


async def _fact_action(app: Any, verb: str, fact_id: int) -> None:
    from memharness_tui.tui.editing import retract, revise

    if verb == "retract":
        retract(app, fact_id)
        return
    try:
        fact = await app.service.get(fact_id)
    except Exception as exc:  # noqa: BLE001 - unknown id etc.: the app's one error handler
        app.report_error(exc)
        return
    revise(app, fact, list(app.repos), factor=app.options.factor)


def _start_fact_action(app: Any, verb: str, fact_id: int) -> None:
    app.run_worker(_fact_action(app, verb, fact_id), exit_on_error=False)


class StalenessCommands(EntriesProvider):
    def entries(self) -> list[Entry]:
        from memharness_tui.tui.editing import new_fact

        app = self.mapp
        return [
            ("Staleness: start a pass", "Judge every pinned fact against git HEAD (s)",
             partial(_on_dashboard, app, "staleness.start")),
            ("Staleness: cancel the pass", "Stop after the current batch (c)",
             partial(_on_dashboard, app, "staleness.cancel")),
            ("Staleness: toggle check-only", "Passes compute verdicts but write nothing (k)",
             partial(_on_dashboard, app, "staleness.check_only")),
            ("Staleness: repos to check…", "Add or remove the git repos a pass uses (g)",
             partial(_on_dashboard, app, "staleness.repos")),
            ("Staleness: toggle follow", "Run a pass after each commit or checkout (l)",
             partial(_on_dashboard, app, "staleness.follow")),
            ("New fact…", "Remember a new fact (n)", partial(new_fact, app)),
        ]

    async def search(self, query: str) -> Hits:
        async for hit in super().search(query):
            yield hit
        words = query.strip().lower().split()
        if len(words) == 2 and words[0] in ("retract", "revise") \
                and words[1].lstrip("#").isdigit():
            verb, fact_id = words[0], int(words[1].lstrip("#"))
            yield Hit(1.0, f"{verb.capitalize()} fact #{fact_id}",
                      partial(_start_fact_action, self.mapp, verb, fact_id),
                      help="retract asks first" if verb == "retract"
                      else "its pin, the diff to HEAD, and the four fixes")
