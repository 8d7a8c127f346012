"""The SessionStart hook's text in the app: its flags and the text last looked at, per database.

The flags (the subjects the user's hook passes, its budget and limit) are entered once and
saved for the database in ``context-preview.json`` beside the settings, with the text as it
was the last time it was shown, so the next look can say what changed (a line diff). The
text is the store's ``session_context`` (never reinforcing), read on the DB thread.
"""

from __future__ import annotations

import difflib
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from memharness_tui import config
from memharness_tui.store.session_context import (
    DEFAULT_LIMIT,
    DEFAULT_MAX_TOKENS,
    DEFAULT_SUBJECTS,
    SessionContext,
)

if TYPE_CHECKING:
    from memharness_tui.tui.services.gateway import StoreGateway

__all__ = ["CONTEXT_FILE", "ContextFlags", "Seen", "SessionContext", "changed_lines",
           "load_seen", "parse_flags", "read_context", "save_flags", "save_seen"]

CONTEXT_FILE = "context-preview.json"


class _ContextReader(Protocol):
    def session_context(self, subjects: Sequence[str] = (), *, max_tokens: float = ...,
                        limit: float = ...) -> SessionContext: ...


@dataclass(frozen=True)
class ContextFlags:
    """The hook's flags: ``--subject`` each (in order), ``--max-tokens``, ``--limit``."""

    subjects: tuple[str, ...] = ()
    max_tokens: int = DEFAULT_MAX_TOKENS
    limit: int = DEFAULT_LIMIT

    def argv(self) -> list[str]:
        out = [x for s in self.subjects for x in ("--subject", s)]
        if self.max_tokens != DEFAULT_MAX_TOKENS:
            out += ["--max-tokens", str(self.max_tokens)]
        if self.limit != DEFAULT_LIMIT:
            out += ["--limit", str(self.limit)]
        return out

    def shown(self) -> str:
        """The flags as typed on a command line (what the edit box shows)."""
        return shlex.join(self.argv())

    @property
    def effective_subjects(self) -> tuple[str, ...]:
        return self.subjects or DEFAULT_SUBJECTS


def _positive(value: str, flag: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise ValueError(f"{flag} needs a whole number, got {value!r}") from None
    if n < 1:
        raise ValueError(f"{flag} must be at least 1, got {n}")
    return n


def parse_flags(text: str) -> ContextFlags:
    """The hook's flags from what the user typed (its command line's flags, pasted, or bare
    subjects). ValueError with one sentence for anything else."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise ValueError(f"the flags do not parse: {exc}") from None
    subjects: list[str] = []
    max_tokens, limit = DEFAULT_MAX_TOKENS, DEFAULT_LIMIT
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("--subject", "--max-tokens", "--limit"):
            if i + 1 >= len(words):
                raise ValueError(f"{word} needs a value")
            value = words[i + 1]
            i += 2
            if word == "--subject":
                subjects.append(value)
            elif word == "--max-tokens":
                max_tokens = _positive(value, word)
            else:
                limit = _positive(value, word)
            continue
        if word.startswith("--"):
            raise ValueError(f"unknown flag {word}: the hook takes --subject, --max-tokens "
                             "and --limit")
        if word != "memharness-context":  # a pasted command line keeps its name
            subjects.append(word)
        i += 1
    return ContextFlags(tuple(subjects), max_tokens, limit)


@dataclass(frozen=True)
class Seen:
    """What is saved for a database: its flags, the text last shown and when."""

    flags: ContextFlags
    text: str | None = None
    at: str | None = None


def _entry_flags(entry: dict[str, Any]) -> ContextFlags:
    subjects = entry.get("subjects")
    max_tokens, limit = entry.get("max_tokens"), entry.get("limit")
    return ContextFlags(
        tuple(s for s in subjects if isinstance(s, str)) if isinstance(subjects, list) else (),
        max_tokens if isinstance(max_tokens, int) and max_tokens >= 1 else DEFAULT_MAX_TOKENS,
        limit if isinstance(limit, int) and limit >= 1 else DEFAULT_LIMIT,
    )


def load_seen(folder: Path, db: str) -> Seen:
    entry = config.load_database_entry(CONTEXT_FILE, db, folder)
    text, at = entry.get("text"), entry.get("at")
    return Seen(_entry_flags(entry), text if isinstance(text, str) else None,
                at if isinstance(at, str) else None)


def _save(folder: Path, db: str, seen: Seen) -> None:
    entry: dict[str, object] = {"subjects": list(seen.flags.subjects),
                                "max_tokens": seen.flags.max_tokens, "limit": seen.flags.limit}
    if seen.text is not None:
        entry["text"], entry["at"] = seen.text, seen.at
    config.save_database_entry(CONTEXT_FILE, db, entry, folder)


def save_flags(folder: Path, db: str, flags: ContextFlags) -> None:
    """Remember ``flags`` for ``db`` (keeping the text last looked at). OSError if not saved."""
    old = load_seen(folder, db)
    _save(folder, db, Seen(flags, old.text, old.at))


def save_seen(folder: Path, db: str, flags: ContextFlags, text: str, at: str) -> None:
    """Remember ``text`` as looked at, at ``at``, for ``db``. OSError if not saved."""
    _save(folder, db, Seen(flags, text, at))


async def read_context(gateway: StoreGateway, flags: ContextFlags) -> SessionContext:
    """The hook's text for ``flags`` on the open store (the DB thread; never writes)."""
    subjects, max_tokens, limit = list(flags.subjects), flags.max_tokens, flags.limit
    return await gateway.call(lambda s: cast(_ContextReader, s).session_context(
        subjects, max_tokens=max_tokens, limit=limit))


def changed_lines(old: str, new: str) -> list[str]:
    """The lines removed (``- ``) and added (``+ ``) from ``old`` to ``new``, in order."""
    return [line for line in difflib.ndiff(old.splitlines(), new.splitlines())
            if line.startswith(("- ", "+ "))]
