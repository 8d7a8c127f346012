"""What the reference's SessionStart hook (``memharness-context``) injects, without writing.

The hook runs, per subject in order, a recall of that subject (``limit``, the token budget
left) and formats the facts as ``## subject`` sections; each section's tokens come off the
budget, and a subject is skipped once the budget is spent. If any section was written it
prints the preamble, the sections and "Other subjects on file" (the top subjects by current
beliefs not asked for), joined by blank lines. The hook's recalls reinforce
(``last_accessed_at``); this one never writes the file. Reinforcement only changes a later
recall that can see the rows an earlier one returned (the same subject twice, or the empty
subject: every subject), so only then the recalls run, reinforcing, on a scratch copy of
the file that is removed afterwards.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from . import formats
from .browse import BrowseReads
from .driver import sqlite3
from .handle import StoreFile
from .recall import RecallReads, estimate_tokens
from .rows import StorePart, _guarded
from .timeutil import js_trim
from .types import Fact, SubjectCount

PREAMBLE = (
    "Long-term memory (memharness), injected at session start. For anything "
    "deeper, use the memharness MCP tools: recall (supports as_of), remember "
    "for new durable facts, revise — never re-remember — for corrections."
)
DEFAULT_SUBJECTS = ("user",)
DEFAULT_MAX_TOKENS = 600
DEFAULT_LIMIT = 8
#: A budget larger than any text can cost: passed to recall in place of a larger one (the
#: hook's numbers are JavaScript doubles; the store's integers stop at 2^63 - 1).
_HUGE = 2**62


@dataclass(frozen=True)
class ContextSection:
    subject: str
    facts: list[Fact]
    text: str


@dataclass(frozen=True)
class SessionContext:
    """The hook's output for these flags: ``text`` is its stdout ("" when it prints nothing)."""

    text: str
    sections: list[ContextSection] = field(default_factory=list)
    other_subjects: list[SubjectCount] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        """The reference's estimate for the whole text (ceil(UTF-16 length / 4))."""
        return estimate_tokens(self.text)


def _overlapping(subjects: Sequence[str]) -> bool:
    """Whether a later recall can see rows an earlier one returned (and reinforced)."""
    seen: set[str] = set()
    for raw in subjects:
        s = js_trim(raw)
        if s in seen or (seen and (s == "" or "" in seen)):
            return True
        seen.add(s)
    return False


def _budget_arg(budget: float) -> float:
    return _HUGE if budget > _HUGE else budget


class ContextReads(StorePart):
    """``Store.session_context``: the hook's text, read without reinforcing."""

    def __init__(self, file: StoreFile, recall: RecallReads, browse: BrowseReads) -> None:
        super().__init__(file)
        self._recall = recall
        self._browse = browse

    @_guarded(writing=False)
    def session_context(self, subjects: Sequence[str] = (), *,
                        max_tokens: float = DEFAULT_MAX_TOKENS,
                        limit: float = DEFAULT_LIMIT) -> SessionContext:
        """The hook's text for ``--subject`` each of ``subjects`` (none: ``user``),
        ``--max-tokens`` and ``--limit``. A bad limit or budget raises InvalidInput exactly
        where the hook's recall would refuse it (the hook then prints nothing)."""
        wanted = list(subjects) or list(DEFAULT_SUBJECTS)
        if self.file.on_disk and _overlapping(wanted):
            return self._on_scratch_copy(wanted, max_tokens, limit)
        return self._assemble(self._recall, wanted, max_tokens, limit, reinforce=False)

    def _assemble(self, recall: RecallReads, subjects: list[str], max_tokens: float,
                  limit: float, *, reinforce: bool) -> SessionContext:
        sections: list[ContextSection] = []
        budget = max_tokens
        for subject in subjects:
            if budget <= 0:  # NaN goes on, as in the hook (its recall then refuses it)
                break
            # the numbers as the hook has them (a float, NaN): recall's own check refuses them
            limit_arg: Any = limit
            budget_arg: Any = _budget_arg(budget)
            r = recall.recall(subject=subject, limit=limit_arg, max_tokens=budget_arg,
                              reinforce=reinforce)
            if not r.facts:
                continue
            text = "\n".join([f"## {subject}", *(formats.fmt_fact(f) for f in r.facts)])
            budget -= estimate_tokens(text)
            sections.append(ContextSection(subject=subject, facts=r.facts, text=text))
        if not sections:
            return SessionContext(text="")
        requested = set(subjects)
        others = [t for t in self._browse.stats().top_subjects if t.subject not in requested]
        out = [PREAMBLE, *(s.text for s in sections)]
        if others:
            out.append("Other subjects on file: "
                       + ", ".join(f"{t.subject} ({t.count})" for t in others) + ".")
        return SessionContext(text="\n\n".join(out) + "\n", sections=sections,
                              other_subjects=others)

    def _on_scratch_copy(self, subjects: list[str], max_tokens: float,
                         limit: float) -> SessionContext:
        """The recalls as the hook runs them (each reinforcing) on a copy of the file."""
        from .store import Store

        with tempfile.TemporaryDirectory(prefix="memharness-context-") as folder:
            copy_path = os.path.join(folder, "copy.db")
            target = sqlite3.connect(copy_path)
            try:
                self.conn.backup(target)
            finally:
                target.close()
            f = self.file
            with Store.open(copy_path, clock=f.clock, ranking=f.ranking,
                            trust_clock=f.trust_clock) as copy:
                return self._assemble(copy._recall, subjects, max_tokens, limit, reinforce=True)
