"""Editing the store from the app: the forms' validation and the entry points any pane uses.

- ``new_fact(app)`` / ``retract(app, fact_id)`` / ``revise(app, fact, repos)`` open the forms
  and confirmations (non-blocking; safe to call from any action handler);
- the writes themselves are ``app.service`` methods (:mod:`memharness_tui.tui.services.store`):
  ``new_fact``, ``rewrite``, ``retract``, ``still_true``, ``downgrade`` — one function each;
- git goes through :mod:`memharness_tui.tui.services.git` (``GitView``).

Every write is refused on a read-only store, and every successful one moves the app's
``store_revision`` so every list refreshes itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memharness_tui.staleness.pins import repin_ref  # the pin rule, kept with the pins
from memharness_tui.tui.services.git import GitView, Judged
from memharness_tui.tui.services.store import AGENTS, APP_AGENT, BulkResult, FactValues
from memharness_tui.tui.state import DEFAULT_FACTOR

__all__ = [
    "AGENTS",
    "APP_AGENT",
    "BulkResult",
    "DEFAULT_FACTOR",
    "FactValues",
    "GitView",
    "Judged",
    "PathAtHead",
    "check_not_gone",
    "fact_id_at_cursor",
    "is_readonly",
    "new_fact",
    "parse_confidence",
    "parse_importance",
    "parse_pin_commit",
    "parse_pin_path",
    "parse_valid_from",
    "repin_ref",
    "retract",
    "retract_highlighted",
    "revise",
]



# ----- form values and their validation (the Store's own rules) --------------------------


def _number_or_text(raw: str) -> float | str:
    """The form's text as a number when it is one; otherwise the text, which the store refuses."""
    text = raw.strip()
    try:
        return float(text)
    except ValueError:
        return text


def parse_confidence(raw: str) -> float:
    """Validated by the Store's own rule, so the form and the store can never disagree."""
    from memharness_tui.store.validation import check_confidence

    return check_confidence(_number_or_text(raw))


def parse_importance(raw: str) -> int:
    from memharness_tui.store.validation import check_importance

    return check_importance(_number_or_text(raw))


def parse_valid_from(raw: str) -> str | None:
    """Blank → None (the store then uses the write time); else the canonical form."""
    from memharness_tui.store.timeutil import js_trim, normalize_iso

    text = js_trim(raw)
    return normalize_iso(text, "valid_from") if text else None


def parse_pin_commit(raw: str) -> str | None:
    from memharness_tui.staleness.pins import is_sha_like, normalize_sha
    from memharness_tui.store.errors import InvalidInput

    text = raw.strip()
    if not text:
        return None
    if not is_sha_like(text):
        raise InvalidInput(f"pin commit must be 7-40 hex digits, got {text!r}")
    return normalize_sha(text)


def parse_pin_path(raw: str) -> str | None:
    from memharness_tui.staleness.pins import normalize_path
    from memharness_tui.store.errors import InvalidInput

    if not raw.strip():
        return None
    norm = normalize_path(raw)
    if norm == "":
        raise InvalidInput(f"pin path must be inside the repo, got {raw.strip()!r}")
    return norm


@dataclass(frozen=True)
class PathAtHead:
    """A pinned file that is not at its pinned path at HEAD: ``now`` is where git finds it
    (renamed), or None (deleted). A rewrite pinned at HEAD to ``pinned`` would be unresolved
    at once ("did not exist at HEAD"), so the rewrite form starts from ``now``."""

    pinned: str
    now: str | None

    def note(self) -> str:
        """What the rewrite form says about its pin path."""
        if self.now is None:
            return (f"{self.pinned} is gone at HEAD (deleted since the pin): the rewrite pins "
                    "the whole repo unless you give the file the fact is about now.")
        return f"{self.pinned} is now {self.now} at HEAD (git finds it renamed): pinned there."


def check_not_gone(path: str | None, commit: str | None, head: str | None,
                   at_head: PathAtHead | None) -> None:
    """Refuse a rewrite pinned at HEAD to a path that is gone there (it would be unresolved
    the moment it was written)."""
    from memharness_tui.store.errors import InvalidInput

    if at_head is None or path != at_head.pinned or head is None or commit is None \
            or not head.startswith(commit):
        return
    raise InvalidInput(f"pin path {path} is not in the repo at HEAD {head[:12]}: leave it "
                       "blank to pin the whole repo, or give the file the fact is about now")


# ----- guards ----------------------------------------------------------------------------


def is_readonly(app: Any) -> bool:
    return bool(getattr(app, "readonly", False))


def _refuse_readonly(app: Any) -> bool:
    """True (and a notification) when the store cannot be written."""
    if is_readonly(app):
        app.notify("This database is open read-only; nothing was written.",
                   title="read only", severity="warning", timeout=5)
        return True
    return False


# ----- entry points for any pane (non-blocking: they open a screen) ----------------------


def new_fact(app: Any, *, subject: str = "", repos: Sequence[str] | None = None) -> None:
    """Open the new-fact form (refused on a read-only store)."""
    if _refuse_readonly(app):
        return
    from memharness_tui.tui.screens.fact_form import NewFactScreen

    chosen = list(repos) if repos is not None else list(getattr(app, "repos", ()))
    app.push_screen(NewFactScreen(subject=subject, repos=chosen))


def retract(app: Any, fact_id: int, fact_text: str | None = None) -> None:
    """Ask, then forget ``fact_id`` (refused on a read-only store, and for a row that is no
    longer a belief: a superseded or retracted one, which agents already do not recall —
    shown, say, by time travel)."""
    if _refuse_readonly(app):
        return
    app.run_worker(_ask_retract(app, fact_id, fact_text), group="retract",
                   exit_on_error=False)


def not_a_belief(fact: Any) -> str | None:
    """Why retracting ``fact`` would change nothing agents see (None: it is a belief)."""
    if fact.retracted_at:
        return f"#{fact.id} was already retracted ({fact.retracted_at[:16].replace('T', ' ')})"
    if fact.superseded_by is not None:
        return (f"#{fact.id} is no longer believed: #{fact.superseded_by} superseded it, so "
                "agents already do not recall it. Retract the newer version (or open it: "
                "Enter) to change what they recall.")
    return None


async def _ask_retract(app: Any, fact_id: int, fact_text: str | None) -> None:
    from memharness_tui.tui.screens.confirm import ConfirmScreen

    try:
        fact = await app.service.get(fact_id)
    except Exception as exc:  # noqa: BLE001 - the app's one error handler shows it
        app.report_error(exc)
        return
    refused = not_a_belief(fact)
    if refused is not None:
        app.notify(refused, title="nothing to retract", severity="warning", timeout=8)
        return

    async def confirmed(ok: bool | None) -> None:
        if not ok:
            return
        try:
            ids = await app.service.retract(fact_id)
        except Exception as exc:  # noqa: BLE001 - the app's one error handler shows it
            app.report_error(exc)
            return
        app.notify(f"Retracted #{fact_id}" if ids else f"#{fact_id} was already retracted",
                   title="retract", timeout=4)

    body = f"Retract fact #{fact_id}?"
    detail = (fact_text or "") + "\n\nIt stays in the history (nothing is ever deleted), " \
        "but agents will no longer recall it."
    app.push_screen(ConfirmScreen(body, detail.strip(), confirm="Retract", danger=True),
                    confirmed)


def revise(app: Any, fact: Any, repos: Sequence[str], *, factor: float = DEFAULT_FACTOR) -> None:
    """Open the revise screen for a fact (its pin, the diff, and the four actions)."""
    from memharness_tui.tui.screens.revise import ReviseScreen

    app.push_screen(ReviseScreen(fact, list(repos), factor=factor))


# ----- helpers for other panes (one-line bindings) ----------------------------------------


def fact_id_at_cursor(table: Any) -> int | None:
    """The fact id of a table's highlighted row, when its row keys are fact ids.

    Keys like ``L12`` / ``R12`` / ``X12`` (the Changes tab) count too.
    """
    if not getattr(table, "row_count", 0):
        return None
    try:
        if hasattr(table, "coordinate_to_cell_key"):  # a DataTable
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        else:  # the recall pane's ResultsTable: ``cursor_key`` (a property or a method)
            key = table.cursor_key
            key = key() if callable(key) else key
    except Exception:  # noqa: BLE001 - no cursor / empty table
        return None
    text = str(key or "").lstrip("LRX#")
    return int(text) if text.isdigit() else None


def retract_highlighted(app: Any, table: Any) -> None:
    """Retract (after a confirmation) the fact on the table's highlighted row."""
    fact_id = fact_id_at_cursor(table)
    if fact_id is not None:
        retract(app, fact_id)
