"""Triage of a stale fact: does the change since its pin touch what the fact says? (pure)

Input is a :class:`PathChange` (what git says happened to the fact's path from
the pin to HEAD, built by :func:`memharness_tui.staleness.git_changes.path_change`);
output is a :class:`Triage` with one of the outcomes

* ``touches``   — a term of the fact is on a line the diff really changed;
* ``elsewhere`` — the path changed, but no changed line mentions the fact;
* ``moved``     — the path is gone at HEAD and git found it renamed/moved
  (``touched``/``survived`` say whether the move's edits hit the fact's terms);
* ``deleted``   — the path is gone at HEAD and nothing looks like it;
* ``unknown``   — no path, a binary file, or git could not say.

"Really changed": whitespace, quote style, trailing commas, re-wrapping a
statement over several lines and moving lines around inside the file are not
changes. Hunk lines are compared token by token (whitespace ignored) and lines
whose removed text reappears among the added lines are left out.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, replace
from typing import Literal

from .terms import LineIndex, Term, extract_terms, match_line, scan_line
from .text import code_span, plain

__all__ = [
    "DELETED",
    "ELSEWHERE",
    "MOVED",
    "OUTCOMES",
    "TOUCHES",
    "UNKNOWN",
    "DiffHunk",
    "DiffLine",
    "PathChange",
    "Triage",
    "TriageHunk",
    "TriageLine",
    "triage",
]

TOUCHES = "touches"
ELSEWHERE = "elsewhere"
MOVED = "moved"
DELETED = "deleted"
UNKNOWN = "unknown"
#: outcomes in the order a report lists them (most in need of a person first)
OUTCOMES = (TOUCHES, MOVED, DELETED, ELSEWHERE, UNKNOWN)
LABELS = {
    TOUCHES: "touches it",
    MOVED: "moved",
    DELETED: "deleted",
    ELSEWHERE: "elsewhere in the file",
    UNKNOWN: "not analysed",
}

Status = Literal["unchanged", "modified", "deleted", "moved", "binary", "error"]


@dataclass(frozen=True, slots=True)
class DiffLine:
    origin: str  # "-", "+" or " "
    old_no: int | None
    new_no: int | None
    text: str  # without the line end


@dataclass(frozen=True, slots=True)
class DiffHunk:
    file: str
    header: str
    lines: tuple[DiffLine, ...]


@dataclass(frozen=True, slots=True)
class PathChange:
    """What happened to one path from the pin to HEAD (built by ``git_changes.path_change``).

    ``moved``: ``new_path`` is where git's rename detection found it
    (``similarity`` in %), ``hunks`` diff the old file at the pin against the
    new one at HEAD and ``new_text`` is the new file's text.
    """

    path: str
    status: Status
    hunks: tuple[DiffHunk, ...] = ()
    new_path: str | None = None
    similarity: int | None = None
    new_text: str | None = None
    error: str | None = None
    #: set when the diff was too big to read whole: how big, and what was read
    note: str | None = None


@dataclass(frozen=True, slots=True)
class TermSpan:
    start: int
    end: int
    term: str


@dataclass(frozen=True, slots=True)
class TriageLine:
    origin: str
    old_no: int | None
    new_no: int | None
    text: str
    changed: bool  # a real change (not whitespace/reformatting/moved)
    spans: tuple[TermSpan, ...] = ()


@dataclass(frozen=True, slots=True)
class TriageHunk:
    file: str
    header: str
    lines: tuple[TriageLine, ...]
    matches: int  # changed lines in this hunk that mention the fact

    def to_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "header": self.header,
            "matches": self.matches,
            "lines": [
                {
                    "origin": ln.origin,
                    "old_no": ln.old_no,
                    "new_no": ln.new_no,
                    "text": ln.text,
                    "changed": ln.changed,
                    "spans": [[s.start, s.end, s.term] for s in ln.spans],
                }
                for ln in self.lines
            ],
        }


@dataclass(frozen=True, slots=True)
class Triage:
    """The outcome for one fact, with evidence a person can check."""

    outcome: str
    summary: str  # one line: why this outcome
    evidence: tuple[str, ...] = ()
    hunks: tuple[TriageHunk, ...] = ()  # matching hunks first
    terms: tuple[str, ...] = ()  # the fact's terms as labelled in evidence
    path: str | None = None
    new_path: str | None = None  # moved: where it went
    similarity: int | None = None  # moved: git's similarity, %
    touched: bool = False  # moved: the move's edits hit a term
    survived: bool | None = None  # moved: every strong term is still in the new file
    missing: tuple[str, ...] = ()  # moved: strong terms not found in the new file
    changed_lines: int = 0

    @property
    def label(self) -> str:
        return LABELS.get(self.outcome, self.outcome)

    @property
    def rank(self) -> int:
        """Sort key for a table: touches it, moved, deleted, elsewhere, not analysed."""
        return OUTCOMES.index(self.outcome) if self.outcome in OUTCOMES else len(OUTCOMES)

    def to_dict(self) -> dict[str, object]:
        return {
            "outcome": self.outcome,
            "label": self.label,
            "summary": self.summary,
            "evidence": list(self.evidence),
            "terms": list(self.terms),
            "path": self.path,
            "new_path": self.new_path,
            "similarity": self.similarity,
            "touched": self.touched,
            "survived": self.survived,
            "missing": list(self.missing),
            "changed_lines": self.changed_lines,
            "hunks": [h.to_dict() for h in self.hunks],
        }


# -- what really changed -------------------------------------------------------

_TOKEN = re.compile(r"\w+|\"[^\"]*\"|'[^']*'|\S")


def _tokens(text: str) -> list[str]:
    out = []
    for t in _TOKEN.findall(text):
        if t == ",":
            continue  # trailing commas come and go with reformatting
        if t.startswith("'") and len(t) >= 2:
            t = '"' + t[1:-1] + '"'
        out.append(t)
    return out


def _squash(text: str) -> str:
    return "".join(_tokens(text))


#: per side of a hunk; above it lines are not compared token by token (difflib is quadratic)
_MAX_TOKENS = 5000
#: changed lines a removed line is compared with to find its new version (evidence only)
_MAX_PAIRING = 200


def _real_changes(hunks: tuple[DiffHunk, ...]) -> list[list[bool]]:
    """For each hunk, for each line: is it a real change?"""
    added: dict[str, int] = {}
    removed: dict[str, int] = {}
    for h in hunks:
        for ln in h.lines:
            key = _squash(ln.text)
            if not key:
                continue
            if ln.origin == "+":
                added[key] = added.get(key, 0) + 1
            elif ln.origin == "-":
                removed[key] = removed.get(key, 0) + 1
    # a line whose text is both removed and added somewhere in the file moved or was re-indented
    moved = {k: min(n, removed.get(k, 0)) for k, n in added.items() if k in removed}
    out: list[list[bool]] = []
    for h in hunks:
        flags = [False] * len(h.lines)
        budget = {"-": dict(moved), "+": dict(moved)}
        rest: dict[str, list[int]] = {"-": [], "+": []}
        for i, ln in enumerate(h.lines):
            if ln.origin not in "+-":
                continue
            key = _squash(ln.text)
            if not key:
                continue
            b = budget[ln.origin]
            if b.get(key, 0) > 0:
                b[key] -= 1
                continue
            rest[ln.origin].append(i)
        # token-level compare of what is left: re-wrapped statements are equal token runs
        old_toks: list[tuple[str, int]] = [
            (t, i) for i in rest["-"] for t in _tokens(h.lines[i].text)
        ]
        new_toks: list[tuple[str, int]] = [
            (t, i) for i in rest["+"] for t in _tokens(h.lines[i].text)
        ]
        if len(old_toks) > _MAX_TOKENS or len(new_toks) > _MAX_TOKENS:
            # too big to compare token by token in time: every such line counts as changed
            for i in rest["-"] + rest["+"]:
                flags[i] = True
            out.append(flags)
            continue
        sm = difflib.SequenceMatcher(
            None, [t for t, _ in old_toks], [t for t, _ in new_toks], autojunk=False
        )
        for tag, a0, a1, b0, b1 in sm.get_opcodes():
            if tag == "equal":
                continue
            for _, i in old_toks[a0:a1]:
                flags[i] = True
            for _, i in new_toks[b0:b1]:
                flags[i] = True
            # tokens only inserted (or only deleted) still modify the line they land in
            if tag == "insert" and old_toks:
                flags[old_toks[max(a0 - 1, 0)][1]] = True
            if tag == "delete" and new_toks:
                flags[new_toks[max(b0 - 1, 0)][1]] = True
        out.append(flags)
    return out


# -- classification ------------------------------------------------------------


def _clip(text: str, width: int = 100) -> str:
    t = " ".join(plain(text).split())
    return t if len(t) <= width else t[: width - 1] + "…"


def _counterpart(h: DiffHunk, flags: list[bool], i: int) -> int | None:
    """The index of the changed line on the other side of the hunk most like line ``i``."""
    ln = h.lines[i]
    other = "+" if ln.origin == "-" else "-"
    best, score = None, 0.5
    candidates = [j for j, o in enumerate(h.lines) if o.origin == other and flags[j]]
    if len(candidates) > _MAX_PAIRING:  # nearest ones first: a pair is usually close by
        candidates = sorted(candidates, key=lambda j: abs(j - i))[:_MAX_PAIRING]
    for j in candidates:
        r = difflib.SequenceMatcher(None, _squash(ln.text), _squash(h.lines[j].text)).ratio()
        if r > score:
            best, score = j, r
    return best


def _line_matches(
    terms: tuple[Term, ...], index: LineIndex, n_words: int, n_strong: int
) -> tuple[list[tuple[Term, int, int]], bool]:
    """(hits, decisive): a strong term, or two different words (one only when the
    fact is a single distinctive word and nothing else)."""
    hits = match_line(terms, index)
    strong = any(t.strong for t, _, _ in hits)
    words = {t.text for t, _, _ in hits if not t.strong}
    need = 1 if n_words == 1 and n_strong == 0 else 2
    return hits, strong or (n_words > 0 and len(words) >= need)


@dataclass
class _Scan:
    hunks: list[TriageHunk] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    changed: int = 0
    touched: bool = False
    strong_terms: list[str] = field(default_factory=list)
    word_terms: list[str] = field(default_factory=list)

    @property
    def hit_terms(self) -> list[str]:
        """The terms the summary names: the strong ones when any matched."""
        return self.strong_terms or self.word_terms


def _scan(terms: tuple[Term, ...], hunks: tuple[DiffHunk, ...], max_evidence: int = 5) -> _Scan:
    n_words = sum(1 for t in terms if not t.strong)
    n_strong = len(terms) - n_words
    res = _Scan()
    flags_all = _real_changes(hunks)
    has_removal = [any(f and ln.origin == "-" for f, ln in zip(fl, h.lines, strict=True))
                   for h, fl in zip(hunks, flags_all, strict=True)]
    for h, flags, removal in zip(hunks, flags_all, has_removal, strict=True):
        out_lines: list[TriageLine] = []
        matches = 0
        cited: set[int] = set()
        for i, ln in enumerate(h.lines):
            changed = flags[i]
            # a pure insertion rarely makes an existing statement false: only lines of
            # hunks that also removed something count
            counts = changed and (ln.origin == "-" or removal)
            res.changed += changed
            hits, decisive = _line_matches(terms, scan_line(ln.text), n_words, n_strong)
            if counts and decisive:
                matches += 1
                res.touched = True
                strong = [t.label for t, _, _ in hits if t.strong]
                labels = list(dict.fromkeys(strong or [t.label for t, _, _ in hits]))
                for lb in labels:
                    bucket = res.strong_terms if strong else res.word_terms
                    if lb not in bucket:
                        bucket.append(lb)
                # the other side of a pair already shown: once is enough
                if i not in cited and len(res.evidence) < max_evidence:
                    line, other = _evidence(h, flags, i, labels)
                    if other is not None:
                        cited.add(other)
                    if line not in res.evidence:
                        res.evidence.append(line)
            spans = _spans(hits)
            out_lines.append(TriageLine(ln.origin, ln.old_no, ln.new_no, ln.text, changed, spans))
        res.hunks.append(TriageHunk(h.file, h.header, tuple(out_lines), matches))
    res.hunks.sort(key=lambda th: -th.matches)  # stable: matching hunks first, in file order
    return res


def _spans(hits: list[tuple[Term, int, int]]) -> tuple[TermSpan, ...]:
    out: list[TermSpan] = []
    for t, s, e in hits:
        if out and s < out[-1].end:  # overlapping hits: keep the wider one
            if e > out[-1].end:
                out[-1] = TermSpan(out[-1].start, e, out[-1].term)
            continue
        out.append(TermSpan(s, e, t.label))
    return tuple(out)


def _evidence(h: DiffHunk, flags: list[bool], i: int, labels: list[str]) -> tuple[str, int | None]:
    """(one evidence line, the index of the paired line on the other side, if any)."""
    ln = h.lines[i]
    what = ", ".join(code_span(plain(lb)) for lb in labels[:3])
    j = _counterpart(h, flags, i)
    if j is None:
        verb, no = ("removed", ln.old_no) if ln.origin == "-" else ("added", ln.new_no)
        return f"{what} {verb} on line {no}: {code_span(_clip(ln.text))}", None
    other = h.lines[j]
    old, new, no = (ln, other, ln.old_no) if ln.origin == "-" else (other, ln, ln.new_no)
    return (f"{what} changed on line {no}: {code_span(_clip(old.text))} → "
            f"{code_span(_clip(new.text))}"), j


def _strong_missing(terms: tuple[Term, ...], text: str) -> list[str]:
    lines = [scan_line(ln) for ln in text.splitlines()]
    missing = []
    for t in terms:
        if t.strong and not any(match_line((t,), li) for li in lines):
            missing.append(t.label)
    return missing


def _term_list(labels: list[str], limit: int = 4) -> str:
    shown = ", ".join(code_span(plain(lb)) for lb in labels[:limit])
    return shown + (f" and {len(labels) - limit} more" if len(labels) > limit else "")


def triage(fact: str, change: PathChange | None, *, terms: tuple[Term, ...] | None = None) -> Triage:
    """Classify one fact against what happened to its path (None: the fact has no path).

    A diff too big to read whole (``change.note``) is triaged on what was read; the summary
    and the first evidence line say how big it is and what was read."""
    result = _triage(fact, change, terms)
    if change is None or not change.note:
        return result
    return replace(result, summary=f"{result.summary} ({change.note})",
                   evidence=(change.note, *result.evidence))


def _triage(fact: str, change: PathChange | None, terms: tuple[Term, ...] | None) -> Triage:
    terms = extract_terms(fact) if terms is None else terms
    labels = tuple(t.label for t in terms)
    if change is None:
        return Triage(UNKNOWN, "no path pinned: the whole repo moved on", terms=labels)
    path = change.path
    if change.status == "error":
        return Triage(UNKNOWN, change.error or "git could not diff the path", terms=labels,
                      path=path)
    if change.status == "binary":
        return Triage(UNKNOWN, f"{path} is a binary file", terms=labels, path=path)
    if change.status == "unchanged":
        return Triage(UNKNOWN, f"{path} is unchanged since the pin", terms=labels, path=path)
    if change.status == "deleted":
        return Triage(DELETED, f"{path} was deleted and git finds no rename",
                      (f"{path} is gone at HEAD",), terms=labels, path=path)
    if not terms:
        scan = _scan(terms, change.hunks)
        return Triage(UNKNOWN, "the fact names nothing to look for in the diff",
                      hunks=tuple(scan.hunks), path=path, changed_lines=scan.changed,
                      new_path=change.new_path, similarity=change.similarity)
    scan = _scan(terms, change.hunks)
    if change.status == "moved":
        missing = _strong_missing(terms, change.new_text or "")
        strong = [t for t in terms if t.strong]
        survived = not missing if strong else None
        move = f"{path} → {change.new_path} ({change.similarity} %)"
        evidence = [move]
        if missing:
            evidence.append("not found in the new file: " + _term_list(missing))
        elif strong:
            evidence.append(f"all of {_term_list([t.label for t in strong])} still in "
                            f"{change.new_path}")
        evidence.extend(scan.evidence)
        if scan.touched:
            summary = f"moved to {change.new_path}, and the edits touch {_term_list(scan.hit_terms)}"
        elif scan.changed:
            summary = f"moved to {change.new_path}; its edits do not mention the fact"
        else:
            summary = f"moved to {change.new_path} unchanged"
        return Triage(MOVED, summary, tuple(evidence), tuple(scan.hunks), labels, path,
                      change.new_path, change.similarity, scan.touched, survived,
                      tuple(missing), scan.changed)
    if scan.touched:
        summary = f"the change touches {_term_list(scan.hit_terms)}"
        return Triage(TOUCHES, summary, tuple(scan.evidence), tuple(scan.hunks), labels, path,
                      touched=True, changed_lines=scan.changed)
    n_hunks = len(change.hunks)
    if scan.changed == 0:
        summary = f"{path}: only whitespace or formatting changed"
    else:
        summary = (f"{path} changed ({scan.changed} lines in {n_hunks} "
                   f"hunk{'s' if n_hunks != 1 else ''}), none mentions the fact")
    looked = (summary, f"looked for {_term_list(list(labels), 6)}")
    return Triage(ELSEWHERE, summary, looked, tuple(scan.hunks), labels, path,
                  changed_lines=scan.changed)
