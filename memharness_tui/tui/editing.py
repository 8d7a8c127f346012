"""Editing the store from the app: new fact, rewrite, still true, downgrade, retract.

Plain functions and async helpers, so any pane can offer them:

- ``new_fact(app)`` / ``retract(app, fact_id)`` / ``revise(app, fact, repos)`` open the
  forms and confirmations (non-blocking; safe to call from any action handler);
- ``write_*`` coroutines do the writes through ``app.gateway`` (the app's one Store);
- :class:`GitView` asks git (through the staleness package's public API only) about pins,
  in whatever thread creates it — never share one across threads.

Every write is refused with a notification on a read-only store, and every successful
write posts ``StoreChanged`` so the lists reload.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from memharness_tui.tui.messages import StoreChanged

T = TypeVar("T")

if TYPE_CHECKING:
    from memharness_tui.staleness.git import Drift, GitChecker

__all__ = [
    "APP_AGENT",
    "BulkResult",
    "DEFAULT_FACTOR",
    "FactValues",
    "GitView",
    "Judged",
    "downgrade_many",
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
    "still_true_many",
    "write_new_fact",
    "write_retract",
    "write_rewrite",
]

#: ``source_agent`` of rows a person writes in the app (new, rewrite, still true).
APP_AGENT = "human"
DEFAULT_FACTOR = 0.5


# ----- git, through the staleness package ------------------------------------------------


@dataclass(frozen=True)
class Judged:
    """What git says about one pin right now (SPEC §8 verdict and its reason)."""

    freshness: str
    reason: str
    repo: str  # work tree of the repo the pin was judged in
    head: str  # that repo's HEAD
    resolved: bool  # the pin is a commit in that repo (drift and diff are possible)


class GitView:
    """Checkers for a list of repos, opened in (and only used from) the creating thread.

    Repos that cannot be opened are listed in ``errors`` instead of failing the view.
    """

    def __init__(self, repos: Sequence[str]) -> None:
        from memharness_tui.staleness.git import GitChecker, RepoError

        self.checkers: list[GitChecker] = []
        self.errors: list[str] = []
        seen: set[str] = set()
        for r in repos:
            try:
                ch = GitChecker(r)
            except RepoError as exc:
                self.errors.append(str(exc))
                continue
            if str(ch.path) not in seen:
                seen.add(str(ch.path))
                self.checkers.append(ch)

    def __bool__(self) -> bool:
        return bool(self.checkers)

    def _checker(self, repo: str) -> GitChecker | None:
        for ch in self.checkers:
            if str(ch.path) == repo:
                return ch
        return None

    def judge(self, commit: str, path: str | None) -> Judged | None:
        """Classify a pin against the repos (the repo whose history holds it wins)."""
        from memharness_tui.staleness.verdicts import classify, classify_many

        if not self.checkers:
            return None
        if len(self.checkers) == 1:
            facts = self.checkers[0].facts(commit, path)
            freshness, reason = classify(facts)
        else:
            facts, freshness, reason = classify_many([c.facts(commit, path) for c in self.checkers])
        return Judged(freshness, reason, facts.repo, facts.head, facts.resolution == "commit")

    def _ask(self, repo: str, question: Callable[[GitChecker], T]) -> T | None:
        """Ask one repo's checker; an unusable repo or missing objects answer None."""
        from memharness_tui.staleness.git import RepoError

        ch = self._checker(repo)
        if ch is None:
            return None
        try:
            return question(ch)
        except RepoError:
            return None

    def drift(self, commit: str, path: str | None, repo: str) -> Drift | None:
        return self._ask(repo, lambda ch: ch.drift(commit, path))

    def diff(self, commit: str, path: str | None, repo: str) -> str | None:
        return self._ask(repo, lambda ch: ch.diff_text(commit, path))

    def head_of(self, repo: str) -> str | None:
        ch = self._checker(repo)
        return ch.head if ch is not None else None


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
    from memharness_tui.store.store import check_confidence

    return check_confidence(_number_or_text(raw))


def parse_importance(raw: str) -> int:
    from memharness_tui.store.store import check_importance

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


def repin_ref(source_ref: str, new_commit: str) -> str:
    """``name@OLDSHA:path`` → ``name@NEWSHA:path``: a ref naming the old pin names the new one.

    Refs that hold no pin (``session-41``, URLs) are kept as they are.
    """
    from memharness_tui.staleness.pins import parse_source_ref

    pin = parse_source_ref(source_ref)
    if pin is None:
        return source_ref
    pattern = re.compile(re.escape(pin.commit), re.IGNORECASE)
    match = pattern.search(source_ref)
    if match is None:
        return source_ref
    width = len(match.group(0))
    replacement = new_commit if width >= 40 else new_commit[: max(width, 7)]
    return source_ref[: match.start()] + replacement + source_ref[match.end():]


@dataclass
class FactValues:
    """A validated form: what to write (``None`` = the store's default)."""

    fact: str
    confidence: float = 1.0
    valid_from: str | None = None
    source_ref: str = ""
    source_commit: str | None = None
    source_path: str | None = None
    subject: str = ""
    predicate: str = ""
    importance: int = 5
    kind: str = "semantic"


@dataclass
class BulkResult:
    """What a bulk action changed: (old id, new id) pairs, and (id, why) it skipped."""

    changed: list[tuple[int, int]] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)

    def summary(self, verb: str) -> str:
        n = len(self.changed)
        text = f"{verb} {n} fact{'s' if n != 1 else ''}"
        if self.skipped:
            text += f"; skipped {len(self.skipped)}: " + "; ".join(
                f"#{i} {why}" for i, why in self.skipped[:3]
            )
            if len(self.skipped) > 3:
                text += "; …"
        return text


# ----- guards ----------------------------------------------------------------------------


def is_readonly(app: Any) -> bool:
    info = getattr(app, "info", None)
    return bool(info is not None and info.readonly)


def _refuse_readonly(app: Any) -> bool:
    """True (and a notification) when the store cannot be written."""
    if is_readonly(app):
        app.notify("This database is open read-only; nothing was written.",
                   title="read only", severity="warning", timeout=5)
        return True
    return False


def _changed(app: Any) -> None:
    app.post_message(StoreChanged())


def _note_reason(app: Any, fact_id: int, judged: Judged | None) -> None:
    """Let the detail screen explain a verdict written here, not only those of a pass."""
    from memharness_tui.tui.staleness_commands import dashboard

    dash = dashboard(app)
    if dash is not None and judged is not None:
        dash.pass_reasons[fact_id] = judged.reason


# ----- writes ----------------------------------------------------------------------------


async def _judge(repos: Sequence[str], commit: str | None, path: str | None) -> Judged | None:
    if not commit or not repos:
        return None

    def run() -> Judged | None:
        return GitView(repos).judge(commit, path)

    return await asyncio.to_thread(run)


async def write_new_fact(app: Any, values: FactValues, repos: Sequence[str] = ()) -> int:
    """Remember a fact; a pinned one is checked against the repos at once. Returns its id."""
    judged = await _judge(repos, values.source_commit, values.source_path)

    def write(s: Any) -> int:
        new_id, _ = s.remember(
            values.subject, values.fact, predicate=values.predicate,
            confidence=values.confidence, importance=values.importance, kind=values.kind,
            source_ref=values.source_ref, source_agent=APP_AGENT,
            source_commit=values.source_commit, source_path=values.source_path,
            valid_from=values.valid_from,
        )
        if judged is not None:
            s.set_staleness(new_id, judged.freshness, s.now(), judged.head)
        return new_id

    new_id = await app.gateway.call(write)
    _note_reason(app, new_id, judged)
    _changed(app)
    return new_id


async def write_rewrite(app: Any, old_id: int, values: FactValues,
                        repos: Sequence[str] = ()) -> tuple[int, Judged | None]:
    """Revise ``old_id`` with new text (SPEC §6) and record the new pin's verdict at once."""
    judged = await _judge(repos, values.source_commit, values.source_path)

    def write(s: Any) -> int:
        _, new_id, _ = s.revise(
            old_id, values.fact, confidence=values.confidence, source_ref=values.source_ref,
            source_agent=APP_AGENT, source_commit=values.source_commit,
            source_path=values.source_path, valid_from=values.valid_from,
        )
        if judged is not None:
            s.set_staleness(new_id, judged.freshness, s.now(), judged.head)
        return new_id

    new_id = await app.gateway.call(write)
    _note_reason(app, new_id, judged)
    _changed(app)
    return new_id, judged


async def write_retract(app: Any, fact_id: int) -> list[int]:
    """Forget one fact (SPEC §6). Returns the ids retracted now (empty: it already was)."""
    _, ids = await app.gateway.call(lambda s: s.forget(fact_id=fact_id))
    _changed(app)
    return list(ids)


async def still_true_many(app: Any, facts: Sequence[Any], repos: Sequence[str]) -> BulkResult:
    """Re-verify at HEAD: revise each with the same text pinned at HEAD, and record the verdict.

    Confidence, importance and kind are kept; the pin moves to HEAD (same path) and a ref
    that named the old pin names HEAD. A fact whose path is gone at HEAD is skipped (it
    cannot be "still true" there; rewrite it instead).
    """
    result = BulkResult()
    if not facts:
        return result

    def plan() -> list[tuple[Any, str, Judged | None, str | None]]:
        view = GitView(repos)
        out: list[tuple[Any, str, Judged | None, str | None]] = []
        for f in facts:
            where = view.judge(f.source_commit or "", f.source_path) if view else None
            if where is None:
                out.append((f, "", None, "; ".join(view.errors) or "no usable repo"))
                continue
            now = view.judge(where.head, f.source_path)
            if now is None or now.freshness != "current":
                why = now.reason if now is not None else "cannot check at HEAD"
                out.append((f, where.head, now, f"not true at HEAD ({why})"))
            else:
                out.append((f, where.head, now, None))
        return out

    planned = await asyncio.to_thread(plan)
    reasons: dict[int, Judged] = {}

    def write(s: Any) -> BulkResult:
        from memharness_tui.store.errors import MemharnessError

        for f, head, judged, problem in planned:
            if problem is not None or judged is None:
                result.skipped.append((f.id, problem or "cannot check"))
                continue
            try:
                _, new_id, _ = s.revise(
                    f.id, f.fact, confidence=f.confidence, source_ref=repin_ref(f.source_ref, head),
                    source_agent=APP_AGENT, source_commit=head, source_path=f.source_path,
                )
            except MemharnessError as exc:
                result.skipped.append((f.id, exc.message))
                continue
            s.set_staleness(new_id, judged.freshness, s.now(), head)
            result.changed.append((f.id, new_id))
            reasons[new_id] = judged
        return result

    await app.gateway.call(write)
    for new_id, judged in reasons.items():
        _note_reason(app, new_id, judged)
    if result.changed:
        _changed(app)
    return result


async def downgrade_many(app: Any, facts: Sequence[Any], factor: float = DEFAULT_FACTOR,
                         head: str | None = None) -> BulkResult:
    """SPEC §8 downgrade: same text, confidence × factor, same pin, same verdict on the new row."""
    from memharness_tui.staleness.runner import DOWNGRADE_AGENT

    result = BulkResult()

    def write(s: Any) -> BulkResult:
        from memharness_tui.store.errors import MemharnessError

        for f in facts:
            try:
                _, new_id, _ = s.revise(
                    f.id, f.fact, confidence=f.confidence * factor, source_ref=f.source_ref,
                    source_agent=DOWNGRADE_AGENT, source_commit=f.source_commit,
                    source_path=f.source_path,
                )
            except MemharnessError as exc:
                result.skipped.append((f.id, exc.message))
                continue
            if f.freshness:
                s.set_staleness(new_id, f.freshness, s.now(), f.checked_head or head or "")
            result.changed.append((f.id, new_id))
        return result

    await app.gateway.call(write)
    if result.changed:
        _changed(app)
    return result


# ----- entry points for any pane (non-blocking: they open a screen) ----------------------


def new_fact(app: Any, *, subject: str = "", repos: Sequence[str] | None = None) -> None:
    """Open the new-fact form (refused on a read-only store)."""
    if _refuse_readonly(app):
        return
    from memharness_tui.tui.repos import load_repos
    from memharness_tui.tui.screens.fact_form import NewFactScreen

    chosen = list(repos) if repos is not None else load_repos(getattr(app, "config_dir", None))
    app.push_screen(NewFactScreen(subject=subject, repos=chosen))


def retract(app: Any, fact_id: int, fact_text: str | None = None) -> None:
    """Ask, then forget ``fact_id`` (refused on a read-only store)."""
    if _refuse_readonly(app):
        return
    from memharness_tui.tui.screens.confirm import ConfirmScreen

    async def confirmed(ok: bool | None) -> None:
        if not ok:
            return
        try:
            ids = await write_retract(app, fact_id)
        except Exception as exc:  # noqa: BLE001 - the app's one error handler shows it
            app.report_error(exc)
            return
        app.notify(f"Retracted #{fact_id}" if ids else f"#{fact_id} was already retracted",
                   title="retract", timeout=4)

    body = f"Retract fact #{fact_id}?"
    detail = (fact_text or "") + "\n\nIt stays in the history (SPEC §5: nothing is deleted), " \
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
