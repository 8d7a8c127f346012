"""Bulk triage of flagged facts: still true at HEAD, or downgrade — asked first, then one
service call each (``app.service.still_true`` / ``app.service.downgrade``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memharness_tui.tui.services.store import BulkResult


def confirm_bulk(app: Any, kind: str, facts: Sequence[Any], repos: Sequence[str], factor: float,
                 done: Callable[[str, BulkResult], None]) -> None:
    """Ask, then run the bulk action; ``done(verb, result)`` afterwards (errors: the app's
    one handler)."""
    from memharness_tui.tui.screens.confirm import ConfirmScreen

    n = len(facts)
    ids = " ".join(f"#{f.id}" for f in facts[:20]) + (" …" if n > 20 else "")
    plural = "s" if n != 1 else ""
    if kind == "still_true":
        title = f"Still true at HEAD: {n} fact{plural}?"
        detail = (f"{ids}\n\nEach is revised with the same text, pinned at HEAD (same path), "
                  "and recorded as current. Facts whose path is gone at HEAD are skipped.")
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
            if kind == "still_true":
                result = await app.service.still_true(list(facts), list(repos))
                verb = "Re-verified at HEAD:"
            else:
                result = await app.service.downgrade(list(facts), factor)
                verb = "Downgraded"
        except Exception as exc:  # noqa: BLE001 - the app's one error handler shows it
            app.report_error(exc)
            return
        done(verb, result)

    app.push_screen(ConfirmScreen(title, detail, confirm=label), answered)
