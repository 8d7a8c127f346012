"""A hygiene report as text (a terminal or a SessionStart hook) or Markdown (a CI comment).

Facts and subjects are data: in text every control character is shown as an escape
(``cli_text.visible``: no ESC, no bidi override reaches the terminal); in Markdown they are
escaped so no fact can open a link, a heading or a table (the staleness report's rules).
"""

from __future__ import annotations

from collections.abc import Callable

from memharness_tui.cli_text import visible
from memharness_tui.staleness.text import code_span, md_text, plain

from .types import HygieneReport

__all__ = ["to_markdown", "to_text"]

#: Rows shown per section before "…and N more" (the gardener shows 12).
SHOWN = 12
SNIPPET = 70
_RULES = {"semicolon": "semicolon-joined clauses", "several": "several sentences",
          "long": "over 280 characters", "over-limit": "over the server's 1,500-character limit"}


def _snippet(text: str) -> str:
    one = " ".join(text.split())
    return one if len(one) <= SNIPPET else one[:SNIPPET] + "…"


def _md(text: str) -> str:
    """Database text as Markdown running text, never markup: one line, escaped by the staleness
    report's own rule (every markup character, ``&`` and ``!`` included, and GFM's bare
    autolinks), control characters shown as escapes."""
    return md_text(" ".join(text.split()))


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _sections(r: HygieneReport, esc: Callable[[str], str],
              subj: Callable[[str], str]) -> list[tuple[str, list[str]]]:
    """(heading, bullet lines) per flag kind that has flags; ``esc``/``subj`` make text safe.
    A line starting with four spaces belongs to the entry above it."""
    def snip(text: str) -> str:
        return esc(_snippet(text))

    out: list[tuple[str, list[str]]] = []
    if r.secrets:
        lines = []
        for f in r.secrets:
            rules = ", ".join(f"{sp.rule} at {sp.start}–{sp.end} ({esc(sp.masked)})"
                              for sp in f.spans)
            writer = esc(f.source_agent or "unknown agent")
            ref = f", {esc(f.source_ref)}" if f.source_ref else ""
            chain = " ".join(f"#{i}" for i in f.chain)
            lines.append(f"#{f.id} {subj(f.subject)} {f.status}, chain {chain}, by "
                         f"{writer}{ref}: {rules}")
        out.append((f"{_plural(len(r.secrets), 'row')} holding credentials, in any version "
                    "(memharness-tui purge --id N rewrites the chain)", lines))
    if r.instructions:
        out.append((f"{_plural(len(r.instructions), 'fact')} an agent would read as orders "
                    "(check them; retract what no one meant to store)",
                    [f"#{f.id} {subj(f.subject)} {f.rule} at {f.start}–{f.end}: "
                     f"{snip(f.fact[f.start:f.end])}" for f in r.instructions]))
    if r.contradictions:
        lines = []
        for c in r.contradictions:
            vals = " vs ".join(f"#{i} {esc(v)}" for i, v in zip(c.ids, c.values, strict=True))
            lines.append(f"{subj(c.subject)} {esc(c.topic)}: {vals}")
        out.append((f"{_plural(len(r.contradictions), 'contradiction')} (current facts that "
                    "disagree; revise the wrong one)", lines))
    if r.duplicates:
        lines = []
        for g in r.duplicates:
            ids = ", ".join(f"#{i}" for i in g.ids)
            lines.append(f"{subj(g.subject)} {ids} (similarity up to {g.max_similarity:.2f})")
            lines += [f"    #{i} {esc(_snippet(g.facts[i]))}" for i in g.ids]
        out.append((f"Near-duplicates ({_plural(len(r.duplicates), 'group')}; revise or merge "
                    "them into one)", lines))
    if r.fragments:
        out.append(("Subject fragmentation (one subject under several keys; refile into one)",
                    ["  vs  ".join(f"{subj(s)} ({c:,})" for s, c in f.subjects)
                     + f"  → {subj(f.canonical)}" for f in r.fragments]))
    if r.code_maps:
        out.append((f"{_plural(len(r.code_maps), 'fact')} read like a code map an Explore agent "
                     "could re-derive (pin it to a commit, or retract it)",
                     [f"#{f.id} {subj(f.subject)} {snip(f.fact)}" for f in r.code_maps]))
    if r.compound:
        out.append((f"{_plural(len(r.compound), 'compound fact')} (split into one fact per "
                    "assertion)",
                    [f"#{f.id} {subj(f.subject)} {_RULES[f.rule]}: {snip(f.fact)}"
                     for f in r.compound]))
    if r.over_limit:
        out.append((f"{_plural(len(r.over_limit), 'fact')} over the server's 1,500-character "
                    "limit (split them)",
                    [f"#{f.id} {subj(f.subject)} {f.length:,} characters: {snip(f.fact)}"
                     for f in r.over_limit]))
    if r.chains:
        lines = []
        for a in r.chains:
            if a.kind == "mid-chain-retraction":
                lines.append(f"#{a.id} {subj(a.subject)} was retracted after #{a.related} "
                             "superseded it")
            else:
                lines.append(f"#{a.id} {subj(a.subject)} is live but descends from retracted "
                             f"#{a.related}")
        out.append(("Chain anomalies (a retraction inside a supersession chain)", lines))
    for kind, heading in (("stale", "whose code moved past its commit "
                                    "(re-verify, then revise or retract)"),
                          ("unresolved", "whose commit could not be verified")):
        pins = [p for p in r.pins if p.freshness == kind]
        if pins:
            out.append((f"{_plural(len(pins), 'pinned fact')} {heading}",
                        [f"#{p.id} {subj(p.subject)}"
                         + (f" {esc(p.source_path)}" if p.source_path else "")
                         + f" {snip(p.fact)}" for p in pins]))
    return out


def _notes(r: HygieneReport, subj: Callable[[str], str]) -> list[str]:
    notes = [f"{subj(c.subject)} has {c.count:,} current facts: only the first {c.compared:,} "
             f"(the reference's cap) were compared for near-duplicates; {c.count - c.compared:,} "
             "were not" for c in r.capped]
    notes += [f"{subj(c.subject)} has {c.count:,} embedded facts: too many to compare by "
              "cosine here; its near-duplicates are by words only" for c in r.cosine_skipped]
    return notes


def _flag_count(r: HygieneReport) -> int:
    return sum(r.counts().values())


def to_text(r: HygieneReport) -> str:
    """The gardener's shape: a heading, indented sections, at most 12 rows each; "" if clean."""
    if r.empty:
        return ""
    when = f" as of {r.as_of}" if r.as_of else ""
    lines = [f"memharness hygiene — {_plural(_flag_count(r), 'flag')} over "
             f"{_plural(r.rows, 'belief')}{when}:"]

    def subj(s: str) -> str:
        return f"[{visible(s)}]"

    for heading, rows in _sections(r, visible, subj):
        lines += ["", f"  {heading}:"]
        cut = _cut(rows)
        lines += [f"    {row}" if row.startswith("    ") else f"    - {row}"
                  for row in rows[:cut]]
        hidden = sum(1 for row in rows[cut:] if not row.startswith("    "))
        if hidden:
            lines.append(f"    …and {hidden:,} more")
    notes = _notes(r, subj)
    if notes:
        lines += ["", "  Not compared:"] + [f"    - {n}" for n in notes]
    return "\n".join(lines)


def _cut(rows: list[str]) -> int:
    """How many lines of a section to show: the first SHOWN entries (with their sub-lines)."""
    entries = 0
    for k, row in enumerate(rows):
        if not row.startswith("    "):
            entries += 1
            if entries > SHOWN:
                return k
    return len(rows)


def to_markdown(r: HygieneReport) -> str:
    """A Markdown report (every flag listed); "" if clean."""
    if r.empty:
        return ""
    when = f" as of {r.as_of}" if r.as_of else ""
    lines = [f"### Memory hygiene: {_plural(_flag_count(r), 'flag')} over "
             f"{_plural(r.rows, 'belief')}{when}"]

    def subj(s: str) -> str:
        return code_span(plain(s))

    for heading, rows in _sections(r, _md, subj):
        lines += ["", f"#### {heading}", ""]
        lines += [f"  - {row.strip()}" if row.startswith("    ") else f"- {row}" for row in rows]
    notes = _notes(r, subj)
    if notes:
        lines += ["", "#### Not compared", ""] + [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"
