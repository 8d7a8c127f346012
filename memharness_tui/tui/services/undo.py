"""Undo and redo of this app's own writes, from a journal kept per database.

Every write the app makes (a new fact, a rewrite, a retraction) is one step in a journal in
the app's data folder (``undo/<hash of the database path>.json``), so it survives a restart.
Undo writes NEW rows and never edits history: a new fact is undone by retracting it, a
rewrite by revising its row back to the old text, a retraction by revising the retracted row
to its own text (each ``source_agent`` ``memharness-tui/undo``, ``source_ref`` ``undo:step-N``);
redo applies the inverse of the undo the same way (``memharness-tui/redo``). Before writing,
the row the step produced must still be where the step left it: if an agent has built on it
since (revised it, retracted it, or brought it back), undo says what changed and writes
nothing. A new write of the app's own clears what could be redone.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import weakref
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from memharness_tui.config import atomic_write_text, database_key
from memharness_tui.store.errors import MemharnessError

if TYPE_CHECKING:
    from memharness_tui.store.types import Fact
    from memharness_tui.tui.app import MemharnessApp
    from memharness_tui.tui.services.gateway import StoreGateway

__all__ = ["Step", "UndoJournal", "UndoRefused", "journal_for", "run_undo"]

DONE = {"undo": "undone", "redo": "redone"}
UNDO_AGENT = "memharness-tui/undo"
REDO_AGENT = "memharness-tui/redo"


class UndoRefused(Exception):
    """Undo or redo would overwrite what changed since (the message says what)."""


@dataclass(frozen=True)
class Step:
    """One write: ``op`` new / revise / retract / restore (a retracted row revised to its own
    text), on ``target``, producing ``result`` (the row it wrote; a retraction's is its
    target), with a label for people."""

    n: int
    op: str
    target: int | None
    result: int
    label: str

    @staticmethod
    def load(raw: Any) -> Step | None:
        try:
            return Step(int(raw["n"]), str(raw["op"]),
                        None if raw["target"] is None else int(raw["target"]),
                        int(raw["result"]), str(raw["label"]))
        except (KeyError, TypeError, ValueError):
            return None


def _journal_path(folder: Path, db: str) -> Path:
    key = database_key(db)
    return folder / "undo" / (hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]
                              + ".json")


class UndoJournal:
    """The journal of one database: ``record`` after each app write; ``undo`` / ``redo``."""

    def __init__(self, folder: Path, db: str, gateway: StoreGateway,
                 wrote: Callable[[], None] = lambda: None) -> None:
        self._path = _journal_path(folder, db)
        self._db = database_key(db)
        self._gw = gateway
        self._wrote = wrote
        self.undo_stack: list[Step] = []
        self.redo_stack: list[Step] = []
        self._next = 1
        self._load()

    # ----- the file -----------------------------------------------------------------------
    def _load(self) -> None:
        try:
            raw = json.loads(self._path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if not isinstance(raw, dict) or raw.get("db") != self._db:
            return
        self.undo_stack = [s for s in map(Step.load, raw.get("undo") or []) if s is not None]
        self.redo_stack = [s for s in map(Step.load, raw.get("redo") or []) if s is not None]
        steps = [s.n for s in (*self.undo_stack, *self.redo_stack)]
        nxt = raw.get("next")
        self._next = max([nxt if isinstance(nxt, int) else 1, *(n + 1 for n in steps)])

    def _save(self) -> None:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self._path, json.dumps({
            "db": self._db, "next": self._next,
            "undo": [asdict(s) for s in self.undo_stack],
            "redo": [asdict(s) for s in self.redo_stack]}, indent=1) + "\n")

    def _step(self, op: str, target: int | None, result: int, label: str) -> Step:
        step = Step(self._next, op, target, result, label)
        self._next += 1
        return step

    # ----- recording ------------------------------------------------------------------------
    def record(self, op: str, target: int | None, result: int) -> None:
        """The app wrote: ``op`` new / revise / retract (StoreService calls this). A journal
        that cannot be saved only loses the step (the write itself happened)."""
        label = {"new": f"new fact #{result}", "revise": f"rewrite of #{target} as #{result}",
                 "retract": f"retraction of #{result}"}[op]
        self.undo_stack.append(self._step(op, target, result, label))
        self.redo_stack.clear()
        with contextlib.suppress(OSError):
            self._save()

    # ----- undo / redo ----------------------------------------------------------------------
    async def undo(self) -> str:
        """Undo the last step; one sentence saying what was written. UndoRefused / a store
        error (nothing written) otherwise; IndexError when there is nothing to undo."""
        step = self.undo_stack[-1]
        done = await self._invert(step, UNDO_AGENT, "undo")
        self.undo_stack.pop()
        self.redo_stack.append(done)
        self._save_quietly()
        return f"Undid step {step.n} ({step.label}): {done.label}."

    async def redo(self) -> str:
        step = self.redo_stack[-1]
        done = await self._invert(step, REDO_AGENT, "redo")
        self.redo_stack.pop()
        self.undo_stack.append(done)
        self._save_quietly()
        return f"Redid step {step.n} ({step.label}): {done.label}."

    def _save_quietly(self) -> None:
        with contextlib.suppress(OSError):
            self._save()

    async def _invert(self, step: Step, agent: str, verb: str) -> Step:
        """Write the inverse of ``step`` as new rows, if the row it left is still as it left it."""
        n = self._next
        ref = f"{verb}:step-{step.n}"

        def write(s: Any) -> tuple[str, int | None, int]:
            store = cast(Any, s)
            row: Fact = store.get(step.result)
            _check_unchanged(store, step, row, DONE[verb])
            if step.op in ("new", "restore"):  # the row it wrote (or brought back) retracted
                store.forget(fact_id=row.id)
                return "retract", row.id, row.id
            if step.op == "revise":  # the row it wrote revised back to the text it replaced
                assert step.target is not None
                old: Fact = store.get(step.target)
                _, new_id, _ = store.revise(
                    row.id, old.fact, confidence=old.confidence, importance=old.importance,
                    kind=old.kind, source_ref=ref, source_agent=agent,
                    source_commit=old.source_commit, source_path=old.source_path)
                return "revise", row.id, int(new_id)
            # a retraction: the retracted row revised to its own text (a live copy)
            _, new_id, _ = store.revise(
                row.id, row.fact, confidence=row.confidence, importance=row.importance,
                kind=row.kind, source_ref=ref, source_agent=agent,
                source_commit=row.source_commit, source_path=row.source_path)
            return "restore", row.id, int(new_id)

        try:
            op, target, result = await self._gw.call(write)
        except UndoRefused:
            raise
        except MemharnessError as exc:
            raise UndoRefused(f"Not {DONE[verb]}: {exc}") from None
        self._wrote()
        label = {"retract": f"#{result} retracted",
                 "revise": f"#{target} revised back as #{result} ({ref})",
                 "restore": f"#{target} brought back as #{result} ({ref})"}[op]
        self._next = max(self._next, n) + 1
        return Step(n, op, target, result, label)


def _check_unchanged(store: Any, step: Step, row: Fact, done: str) -> None:
    """Refuse (UndoRefused, saying what changed) when the row ``step`` left has moved on."""
    if row.superseded_by is not None:
        head: Fact = store.why(row.id).descendants[-1]
        who = head.source_agent or "unknown"
        raise UndoRefused(
            f"Not {done}: #{row.id} was revised since (now #{head.id} by {who}: "
            f"\"{head.fact}\"); that would overwrite it — revise #{head.id} instead")
    retracted = row.retracted_at is not None
    if step.op == "retract" and not retracted:
        raise UndoRefused(f"Not {done}: #{row.id} is no longer retracted")
    if step.op != "retract" and retracted:
        raise UndoRefused(f"Not {done}: #{row.id} was retracted since, at {row.retracted_at}")


_journals: weakref.WeakKeyDictionary[Any, UndoJournal] = weakref.WeakKeyDictionary()


def journal_for(app: MemharnessApp) -> UndoJournal | None:
    """The app's journal for the database it has open (made once; None before it is open).
    From then on every write of the app's own is recorded in it."""
    journal = _journals.get(app)
    if journal is None and app.info is not None:
        from memharness_tui.paths import data_dir

        journal = UndoJournal(data_dir(), app.info.path, app.gateway, app.service.wrote)
        _journals[app] = journal
        app.service.journal = journal.record
    return journal


async def run_undo(app: MemharnessApp, *, redo: bool = False) -> None:
    """``z`` / ``Z``: undo or redo the last step, saying in one notification what was written
    or why nothing was."""
    from memharness_tui.tui.editing import is_readonly
    from memharness_tui.tui.render import terminal_text

    verb = "redo" if redo else "undo"
    journal = journal_for(app)
    if journal is None or not (journal.redo_stack if redo else journal.undo_stack):
        app.notify(f"Nothing to {verb}.", title=verb, timeout=3)
        return
    if is_readonly(app):
        app.notify(f"This database is open read-only; nothing to {verb} here.", title=verb,
                   severity="warning", timeout=5)
        return
    try:
        said = await (journal.redo() if redo else journal.undo())
    except (UndoRefused, MemharnessError) as exc:
        app.notify(terminal_text(str(exc)), title=verb, severity="warning", timeout=10,
                   markup=False)
        return
    app.notify(terminal_text(said), title=verb, timeout=5, markup=False)
