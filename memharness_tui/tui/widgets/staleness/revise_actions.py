"""The revise actions on flagged facts — still true at HEAD, downgrade, retract — one
implementation each, for one fact (the revise modal) and for many (the dashboard's bulk
triage): each owns its confirmation text, its service call and its summary sentence, so the
two ways in never drift apart (which facts are warned about, which HEAD a verdict records).

An action is built from the facts and what is known about them (their triage, their pins
judged at HEAD); ``ask()`` is the confirmation, ``run(app)`` the write and what to tell.
The store re-checks inside each write that a fact is still a belief: one an agent retracted
or revised since it was read is left as it is, and the summary says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memharness_tui.tui.render import clean
from memharness_tui.tui.services.store import LOOKED, BulkResult

if TYPE_CHECKING:
    from memharness_tui.tui.services.git import Judged, Triage

__all__ = ["Ask", "Downgrade", "Outcome", "Retract", "StillTrue", "TOUCHES_ONE"]

TOUCHES_ONE = "touches this fact's words"
"""How the warning on one fact says its triage found the change at HEAD touching it."""


@dataclass(frozen=True)
class Ask:
    """A confirmation: its title, the text under it, the confirm button's label."""

    title: str
    detail: str
    label: str
    danger: bool = False


@dataclass(frozen=True)
class Outcome:
    """What an action did: ``written`` (anything changed), the sentence to tell, the detail."""

    written: bool
    summary: str
    result: BulkResult


def _ids(facts: Sequence[Any], limit: int = 20) -> str:
    """``#3 #5 #8`` (the first ``limit``): of facts, or of ids."""
    ids = [f if isinstance(f, int) else f.id for f in facts]
    return " ".join(f"#{i}" for i in ids[:limit]) + (" …" if len(ids) > limit else "")


def _plural(n: int) -> str:
    return "s" if n != 1 else ""


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


@dataclass
class StillTrue:
    """Re-verify at HEAD: each fact revised with the same text, pinned at HEAD (its new path
    when git finds the file moved), recorded current. ``triage``: what the triage found per
    fact id (a fact whose changed lines mention it is warned about); ``elsewhere``: the facts
    are those whose file changed only elsewhere (the dashboard's *E*)."""

    facts: Sequence[Any]
    repos: Sequence[str]
    triage: Mapping[int, Triage | None] = field(default_factory=dict)
    elsewhere: bool = False

    title = "still true"

    def touching(self) -> list[int]:
        return [f.id for f in self.facts
                if (t := self.triage.get(f.id)) is not None and t.outcome == "touches"]

    def ask(self) -> Ask:
        facts, n = self.facts, len(self.facts)
        warn = self.touching()
        if n == 1 and not self.elsewhere:
            f = facts[0]
            t = self.triage.get(f.id)
            where = (f"on its new path {clean(t.new_path, single_line=True)} (git finds it moved)"
                     if t is not None and t.outcome == "moved" and t.new_path else "(same path)")
            detail = (f"{clean(f.fact)}\n\nRevise it with the same text, pinned at HEAD {where}, "
                      "and record it as current. Only the file is checked: whether its words "
                      "are still true is your call.")
            if warn:
                detail += (f"\n\n⚠ The triage says the change at HEAD {TOUCHES_ONE}: read the "
                           "diff first; rewrite it if they no longer hold.")
            return Ask(f"Still true at HEAD: #{f.id}?", detail, "Still true")
        if self.elsewhere:
            return Ask(
                f"Still true at HEAD: {n} fact{_plural(n)} whose file changed only elsewhere?",
                _listing(facts) + "\n\nThe diff from each pin to HEAD changed its file, but no "
                "changed line mentions anything the fact says. Each is revised with the same "
                "text, pinned at HEAD, and recorded as current (by you, as a revision).",
                "Re-verify all")
        # What is checked is the file, not the text: git cannot tell whether the words are
        # still true (a fact said 8080, HEAD says 9090, the file is there: re-pinned).
        detail = (f"{_ids(facts)}\n\nEach is revised with the same text, pinned at HEAD (same "
                  "path, or the new path when git finds the file moved), and recorded as "
                  "current. Only the file is checked: a fact whose file is gone at HEAD is "
                  "skipped; whether its words are still true is your call.")
        if warn:
            detail += (f"\n\n⚠ {len(warn)} of them had a changed line that mentions the fact "
                       f"(triage: touches it): {_ids(warn)}. Read its diff (Enter) before "
                       "saying it is still true.")
        return Ask(f"Still true at HEAD: {n} fact{_plural(n)}?", detail, "Still true")

    async def run(self, app: Any) -> Outcome:
        result = await app.service.still_true(list(self.facts), list(self.repos))
        verb = "Re-verified at HEAD:" if result.changed else "Re-verified"
        return Outcome(bool(result.changed), result.summary(verb), result)


@dataclass
class Downgrade:
    """Same text and pin, confidence × ``factor``, the verdict kept. A fact whose verdict
    names no HEAD records the HEAD its pin is judged at (``judged``, else judged now in
    ``repos``), so one fact and many record the same."""

    facts: Sequence[Any]
    factor: float
    repos: Sequence[str] = ()
    judged: Mapping[int, Judged | None] = field(default_factory=dict)

    title = "downgrade"

    def ask(self) -> Ask:
        facts, n = self.facts, len(self.facts)
        if n == 1:
            f = facts[0]
            return Ask(f"Downgrade #{f.id}?",
                       f"{clean(f.fact)}\n\nSame text and pin, confidence {f.confidence:.2f} → "
                       f"{f.confidence * self.factor:.2f}; the new row keeps the "
                       f"{f.freshness or 'same'} verdict.", "Downgrade")
        return Ask(f"Downgrade {n} fact{_plural(n)}?",
                   f"{_ids(facts)}\n\nEach is revised with the same text and pin, confidence × "
                   f"{self.factor:g}; the new row keeps its verdict.", "Downgrade")

    async def heads(self) -> dict[int, str]:
        """The HEAD each fact's verdict records when it names none of its own."""
        from memharness_tui.tui.services.git import judge_facts

        out = {fid: j.head for fid, j in self.judged.items() if j is not None and j.head}
        wanting = [f for f in self.facts
                   if not f.checked_head and f.id not in out and f.source_commit]
        if wanting and self.repos:
            judged = await judge_facts(list(self.repos), wanting)
            out.update({fid: j.head for fid, j in judged.items() if j is not None and j.head})
        return out

    async def run(self, app: Any) -> Outcome:
        heads = await self.heads()
        result = await app.service.downgrade(list(self.facts), self.factor, heads=heads)
        return Outcome(bool(result.changed), result.summary("Downgraded"), result)


@dataclass
class Retract:
    """Forget each fact (it stays in the history). A fact no longer a belief (retracted, or
    superseded: agents already do not recall it) is left as it is, and said so."""

    facts: Sequence[Any]

    title = "retract"

    def refused(self) -> str | None:
        """Why retracting would change nothing agents see (one fact, as last read)."""
        from memharness_tui.tui.editing import not_a_belief

        return not_a_belief(self.facts[0]) if len(self.facts) == 1 else None

    def ask(self) -> Ask:
        facts, n = self.facts, len(self.facts)
        after = ("It stays in the history (nothing is deleted), but agents will no longer "
                 "recall it.")
        if n == 1:
            return Ask(f"Retract #{facts[0].id}?", f"{clean(facts[0].fact)}\n\n{after}",
                       "Retract", danger=True)
        return Ask(f"Retract {n} facts?", f"{_ids(facts)}\n\nEach {after[3:]}", "Retract",
                   danger=True)

    async def run(self, app: Any) -> Outcome:
        from memharness_tui.tui.editing import not_a_belief

        result = BulkResult(total=len(self.facts))
        for f in self.facts:
            now = await app.service.get(f.id)  # as it is now, not as it was shown
            why = not_a_belief(now)
            if why is not None:
                result.skipped.append((f.id, _since(why, f.id)))
                continue
            if await app.service.retract(f.id):
                result.changed.append((f.id, f.id))
            else:
                result.skipped.append((f.id, f"was retracted by an agent since {LOOKED}"))
        if len(self.facts) == 1 and not result.changed:
            text = f"#{self.facts[0].id} {result.skipped[0][1]}; left as it is"
        else:
            done = [old for old, _ in result.changed]
            text = f"Retracted {_ids(done) if done else '0 facts'}"
            if result.skipped:
                text += f"; skipped {len(result.skipped):,}: " + "; ".join(
                    f"#{i} {why}" for i, why in result.skipped[:3]) + (
                    "; …" if len(result.skipped) > 3 else "")
        return Outcome(bool(result.changed), text, result)


def _since(why: str, fact_id: int) -> str:
    """``not_a_belief``'s sentence after the ``#id`` a summary puts first."""
    return why.removeprefix(f"#{fact_id} ")
