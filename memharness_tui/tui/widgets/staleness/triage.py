"""Bulk triage of flagged facts: still true at HEAD, or downgrade — asked first, then one
service call each. The actions (their confirmation, call and summary) are the revise modal's
own (``revise_actions.py``), given many facts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text

from memharness_tui.tui.messages import ConfirmWanted
from memharness_tui.tui.widgets.staleness.revise_actions import Downgrade, Outcome, StillTrue

if TYPE_CHECKING:
    from textual.widget import Widget

    from memharness_tui.tui.services.git import Triage

Action = StillTrue | Downgrade


def confirm_action(asker: Widget, app: Any, action: Action,
                   done: Callable[[Outcome], None]) -> None:
    """Ask (``asker`` posts :class:`ConfirmWanted`; its screen opens the confirmation), then
    run ``action``; ``done(outcome)`` afterwards (errors: the app's one handler)."""
    ask = action.ask()

    async def answered(ok: bool | None) -> None:
        if not ok:
            return
        try:
            outcome = await action.run(app)
        except Exception as exc:  # noqa: BLE001 - the app's one error handler shows it
            app.report_error(exc)
            return
        done(outcome)

    asker.post_message(ConfirmWanted(ask.title, ask.detail, answered, confirm=ask.label,
                                     danger=ask.danger))


def bulk_action(kind: str, facts: Sequence[Any], repos: Sequence[str], factor: float,
                triage: dict[int, Triage | None]) -> Action:
    """The action ``kind`` (still_true, elsewhere, downgrade) on ``facts``."""
    if kind in ("still_true", "elsewhere"):
        return StillTrue(list(facts), list(repos), triage, elsewhere=kind == "elsewhere")
    return Downgrade(list(facts), factor, list(repos))


def _triage_of(panel: Any, facts: Sequence[Any]) -> dict[int, Triage | None]:
    return {f.id: row.triage for f in facts if (row := panel.rows.get(f.id)) is not None}


#: A bulk action's notice is titled by what it did (not by the triage it read first).
BULK_TITLES = {"still_true": "Still true", "downgrade": "Downgrade",
               "elsewhere": "Still true (changed elsewhere)"}


def bulk_on_targets(dash: Any, kind: str) -> None:
    """``kind`` (still true, downgrade) on the dashboard's marked (or highlighted) facts, once
    confirmed; those whose triage found a changed line that mentions them are named."""
    panel = dash.panel
    facts = panel.targets()
    if not facts:
        return

    def done(outcome: Outcome) -> None:
        panel.marked -= {f.id for f in facts}
        title = BULK_TITLES.get(kind, kind)
        dash.mapp.notify(outcome.summary, title=title,
                         severity="information" if outcome.written else "warning", timeout=6)
        dash.log_line(Text(f"— {title.lower()}: {outcome.summary}", style="bold"))

    action = bulk_action(kind, facts, list(dash.repos), dash.options.factor,
                         _triage_of(panel, facts))
    confirm_action(dash, dash.mapp, action, done)


def reverify_elsewhere(dash: Any) -> None:
    """Triage every matching row of the dashboard's flagged table, select the *elsewhere*
    ones (the file changed, no changed line mentions the fact), confirm, re-verify them."""
    panel = dash.panel

    def chosen() -> None:
        facts = panel.with_outcome("elsewhere")
        if not facts:
            dash.mapp.notify("No flagged fact here changed only elsewhere in its file.",
                             timeout=4)
            return
        panel.marked = {f.id for f in facts}
        panel.table.refresh_rows()
        panel.show_filters()

        def done(outcome: Outcome) -> None:
            panel.marked -= {f.id for f in facts}
            dash.mapp.notify(outcome.summary, title=BULK_TITLES["elsewhere"],
                             severity="information" if outcome.written else "warning",
                             timeout=6)
            dash.log_line(Text(f"— re-verified (elsewhere): {outcome.summary}", style="bold"))

        action = bulk_action("elsewhere", facts, list(dash.repos), dash.options.factor,
                             _triage_of(panel, facts))
        confirm_action(dash, dash.mapp, action, done)

    panel.analysis.triage_all(chosen)
