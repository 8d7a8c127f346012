"""Bulk triage of flagged facts: still true at HEAD, or downgrade — asked first, then one
service call each (``app.service.still_true`` / ``app.service.downgrade``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text

from memharness_tui.tui.messages import ConfirmWanted
from memharness_tui.tui.services.store import BulkResult

if TYPE_CHECKING:
    from textual.widget import Widget



def confirm_bulk(asker: Widget, app: Any, kind: str, facts: Sequence[Any],
                 repos: Sequence[str], factor: float,
                 done: Callable[[str, BulkResult], None],
                 touching: Sequence[int] = ()) -> None:
    """Ask (``asker`` posts :class:`ConfirmWanted`; its screen opens the confirmation), then
    run the bulk action; ``done(verb, result)`` afterwards (errors: the app's one handler).
    ``touching``: the ids among ``facts`` whose triage found a changed line that mentions
    them — a still-true asks with a warning that names them."""
    n = len(facts)
    ids = " ".join(f"#{f.id}" for f in facts[:20]) + (" …" if n > 20 else "")
    plural = "s" if n != 1 else ""
    if kind == "elsewhere":
        title = (f"Still true at HEAD: {n} fact{plural} whose file changed only elsewhere?")
        detail = (_listing(facts) + "\n\nThe diff from each pin to HEAD changed its file, but "
                  "no changed line mentions anything the fact says. Each is revised with the "
                  "same text, pinned at HEAD, and recorded as current (by you, as a revision).")
        label = "Re-verify all"
    elif kind == "still_true":
        title = f"Still true at HEAD: {n} fact{plural}?"
        # What is checked is the file, not the text: git cannot tell whether the words are
        # still true (a fact said 8080, HEAD says 9090, the file is there: re-pinned).
        detail = (f"{ids}\n\nEach is revised with the same text, pinned at HEAD (same path, or "
                  "the new path when git finds the file moved), and recorded as current. "
                  "Only the file is checked: a fact whose file is gone at HEAD is skipped; "
                  "whether its words are still true is your call.")
        warn = [i for i in touching if any(f.id == i for f in facts)]
        if warn:
            listed = " ".join(f"#{i}" for i in warn[:20]) + (" …" if len(warn) > 20 else "")
            detail += (f"\n\n⚠ {len(warn)} of them had a changed line that mentions the fact "
                       f"(triage: touches it): {listed}. Read its diff (Enter) before saying "
                       "it is still true.")
        label = "Still true"
    else:
        title = f"Downgrade {n} fact{plural}?"
        detail = (f"{ids}\n\nEach is revised with the same text and pin, confidence × "
                  f"{factor:g}; the new row keeps its verdict.")
        label = "Downgrade"

    async def answered(ok: bool | None) -> None:
        if not ok:
            return
        try:
            if kind in ("still_true", "elsewhere"):
                result = await app.service.still_true(list(facts), list(repos))
                verb = "Re-verified at HEAD:"
            else:
                result = await app.service.downgrade(list(facts), factor)
                verb = "Downgraded"
        except Exception as exc:  # noqa: BLE001 - the app's one error handler shows it
            app.report_error(exc)
            return
        done(verb, result)

    asker.post_message(ConfirmWanted(title, detail, answered, confirm=label))


def _listing(facts: Sequence[Any], limit: int = 500) -> str:
    """One line per fact: ``#12  text  (path)`` (the confirmation cleans the text)."""
    lines = []
    for f in facts[:limit]:
        text = " ".join(str(f.fact).split())
        text = text if len(text) <= 70 else text[:69] + "…"
        lines.append(f"#{f.id}  {text}" + (f"  ({f.source_path})" if f.source_path else ""))
    if len(facts) > limit:
        lines.append(f"… and {len(facts) - limit} more")
    return "\n".join(lines)


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

    def done(verb: str, result: Any) -> None:
        panel.marked -= {f.id for f in facts}
        title = BULK_TITLES.get(kind, kind)
        dash.mapp.notify(result.summary(verb), title=title,
                         severity="information" if result.changed else "warning", timeout=6)
        dash.log_line(Text(f"— {title.lower()}: {result.summary(verb)}", style="bold"))

    touching = [f.id for f in facts if (row := panel.rows.get(f.id)) is not None
                and row.triage is not None and row.triage.outcome == "touches"]
    confirm_bulk(dash, dash.mapp, kind, facts, list(dash.repos), dash.options.factor, done,
                 touching)


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

        def done(verb: str, result: Any) -> None:
            panel.marked -= {f.id for f in facts}
            dash.mapp.notify(result.summary(verb), title=BULK_TITLES["elsewhere"],
                             severity="information" if result.changed else "warning",
                             timeout=6)
            dash.log_line(Text(f"— re-verified (elsewhere): {result.summary(verb)}",
                               style="bold"))

        confirm_bulk(dash, dash.mapp, "elsewhere", facts, list(dash.repos),
                     dash.options.factor, done)

    panel.analysis.triage_all(chosen)
