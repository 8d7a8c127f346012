"""A fact's terms and where they occur on a line of code (pure; no git, no I/O).

A fact such as "``SessionStore.expire`` drops sessions after 30 minutes" says
something about identifiers, numbers, quoted strings and a few distinctive
words. :func:`extract_terms` lists them once per fact; :func:`scan_line` indexes
one line of code once; :func:`match_line` finds which terms a line mentions and
where (character spans, for highlighting).

Normalisation, so the fact's spelling need not be the code's:

* identifiers compare by their lower-cased parts: ``session_ttl``,
  ``SESSION_TTL``, ``sessionTtl`` and ``SessionTTL`` are all ``session·ttl``,
  and a fact's identifier matches a code identifier that contains its parts in
  order (``session_ttl`` matches ``SESSION_TTL_SECONDS``);
* numbers compare by value, also through literal products on the line
  (``30 * 60`` is 1800) and through a unit next to the number in the fact
  (``30 minutes`` also matches 1800 and 1800000);
* plain words compare by a crude stem (``expires``, ``expired``, ``expiry``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

__all__ = [
    "LineIndex",
    "Term",
    "TermKind",
    "extract_terms",
    "ident_parts",
    "match_line",
    "scan_line",
    "stem",
]

TermKind = Literal["identifier", "number", "quoted", "word"]

# Words too common in facts or code to say what a fact is about.
_STOPWORDS = frozenset(
    """
    a about above after again against all also always an and any are around as at be
    because been before being below between both but by can cannot could did do does
    doing done down during each either else every few for from further get gets had has
    have having here how if in into is it its itself just least less like made make
    makes many may might more most much must never no nor not now of off on once one only
    or other our out over own per same several should since so some such than that the
    their them then there these they this those through to too two under until up upon
    use used uses using very via was way we well were what when where whether which while
    who whom why will with within without would yet you your
    true false none null code file files line lines value values function functions method
    methods class classes module modules default defaults call calls called return returns
    returned set sets new old first last still instead always currently now
    """.split()  # noqa: SIM905 - a word list reads better as text
)

_UNITS: dict[str, tuple[float, ...]] = {
    # unit word → factors the same quantity may be written with in code
    "ms": (1,), "millisecond": (1,), "milliseconds": (1,),
    "s": (1, 1000), "sec": (1, 1000), "secs": (1, 1000), "second": (1, 1000),
    "seconds": (1, 1000),
    "min": (1, 60, 60_000), "mins": (1, 60, 60_000), "minute": (1, 60, 60_000),
    "minutes": (1, 60, 60_000),
    "h": (1, 60, 3600, 3_600_000), "hr": (1, 60, 3600, 3_600_000),
    "hrs": (1, 60, 3600, 3_600_000), "hour": (1, 60, 3600, 3_600_000),
    "hours": (1, 60, 3600, 3_600_000),
    "day": (1, 24, 86_400), "days": (1, 24, 86_400),
    "k": (1000,), "kb": (1, 1024), "mb": (1, 1024 * 1024),
    "%": (1, 0.01), "percent": (1, 0.01),
}

_SMALL_NUMBERS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen "
    "fourteen fifteen sixteen seventeen eighteen nineteen twenty"
)
_NUMBER_WORDS = {w: float(i) for i, w in enumerate(_SMALL_NUMBERS.split(" "))} | {"thirty": 30.0, "forty": 40.0, "fifty": 50.0, "sixty": 60.0, "ninety": 90.0,
     "hundred": 100.0, "thousand": 1000.0}
_NUMBER_WORD = re.compile(
    r"(?<![\w-])(" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")(?![\w-])",
    re.IGNORECASE,
)

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_DOTTED = re.compile(rf"(?<![\w.]){_IDENT}(?:\.{_IDENT})*(?:\(\))?")
_QUOTED = re.compile(r"(?<![\w])\"([^\"\n]{2,80})\"|(?<![\w])'([^'\n]{2,80})'(?![\w])")
_BACKTICK = re.compile(r"`([^`\n]+)`")
_FACT_NUMBER = re.compile(
    r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d[\d_]*(?:\.\d+)?)(%|[A-Za-z]{1,2}\b)?(?![\w.]*\w)"
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_CODE_IDENT = re.compile(_IDENT)
_CODE_NUMBER = re.compile(r"(?<![\w.])\d[\d_]*(?:\.\d+)?(?![\w.]*[A-Za-z_])")
_PRODUCT = re.compile(r"(?<![\w.])\d[\d_]*(?:\.\d+)?(?:\s*\*\s*\d[\d_]*(?:\.\d+)?)+")


@dataclass(frozen=True, slots=True)
class Term:
    """One thing a fact says. ``strong`` terms alone make a line "touch" the fact;
    ``word`` terms need a second one on the same line (see :mod:`.triage`)."""

    text: str  # as the fact writes it
    kind: TermKind
    parts: tuple[tuple[str, ...], ...] = ()  # identifier: each alternative's lower-cased parts
    values: tuple[float, ...] = ()  # number: the values it may be written as
    neighbours: tuple[str, ...] = ()  # number: stems of the words next to it
    needle: str = ""  # quoted: lower-cased text; word: its stem

    @property
    def strong(self) -> bool:
        return self.kind != "word"

    @property
    def label(self) -> str:
        """How evidence names the term: ``30 minutes``, ``SESSION_TTL``, ``"Bearer"``."""
        if self.kind == "quoted":
            return f'"{self.text}"'
        return self.text


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude stem: lower-case, one common suffix off (``expires`` → ``expir``)."""
    w = word.lower().replace("'", "")
    for suffix in ("ations", "ation", "ing", "ies", "ied", "es", "ed", "s", "y", "e"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            return w[: -len(suffix)] + ("i" if suffix in ("ies", "ied") else "")
    return w


@lru_cache(maxsize=65536)
def ident_parts(name: str) -> tuple[str, ...]:
    """``SESSION_TTL`` / ``sessionTtl`` / ``SessionTTL`` → ``('session', 'ttl')``."""
    out: list[str] = []
    for chunk in re.split(r"[_.\-]+", name):
        if chunk:
            out.extend(p.lower() for p in _CAMEL.split(chunk) if p)
    return tuple(out)


def _is_identifier(token: str) -> bool:
    """Written like code: snake_case, camelCase, CamelCase, ALL_CAPS or dotted."""
    bare = token.removesuffix("()")
    if "." in bare or "_" in bare.strip("_") or bare.startswith("_"):
        return True
    if token.endswith("()"):
        return True
    if len(bare) >= 2 and bare.isupper() and bare.isalpha():
        return len(bare) >= 3  # TTL, RRF (but not "OK", "IT")
    return bool(re.search(r"[a-z][A-Z]|[A-Z][a-z]+[A-Z]", bare))


def _ident_term(token: str) -> Term:
    bare = token.removesuffix("()")
    alts: list[tuple[str, ...]] = [ident_parts(bare)]
    if "." in bare:
        # SessionStore.expire: the method line usually shows only ``expire``; the owner
        # alone counts only when it is a name (CamelCase, snake_case), not ``user`` or ``self``
        comps = bare.split(".")
        for k, comp in enumerate(comps):
            p = ident_parts(comp)
            last = k == len(comps) - 1
            if p and (len(p) > 1 or (last and len(p[0]) >= 4 and p[0] not in _STOPWORDS)):
                alts.append(p)
    uniq = tuple(dict.fromkeys(a for a in alts if a))
    return Term(token, "identifier", parts=uniq)


def _neighbour(words: list[str]) -> str | None:
    for w in words:
        lw = w.lower()
        if lw not in _STOPWORDS and not lw.isdigit():
            return stem(lw)
    return None


def _number_term(text: str, raw: str, unit: str | None, before: str, after: str) -> Term | None:
    try:
        value = float(raw.replace(",", "").replace("_", ""))
    except ValueError:
        return None
    # neighbours: the words next to the number, not across punctuation
    after_words = _WORD.findall(re.split(r"[,;:()]", after, maxsplit=1)[0])[:2]
    before_words = _WORD.findall(re.split(r"[,;:()]", before)[-1])[-2:]
    unit_word = (unit or "").lower() or (after_words[0].lower() if after_words else "")
    factors = _UNITS.get(unit_word, (1,))
    values = tuple(dict.fromkeys(value * f for f in factors))
    neighbours = tuple(
        n for n in (_neighbour(list(reversed(before_words))), _neighbour(after_words)) if n
    )
    shown = text.strip()
    return Term(shown, "number", values=values, neighbours=neighbours)


def extract_terms(fact: str) -> tuple[Term, ...]:
    """The fact's identifiers, numbers (with neighbour words), quoted strings and words."""
    terms: list[Term] = []
    seen: set[tuple[str, str]] = set()
    taken: list[tuple[int, int]] = []

    def add(t: Term) -> None:
        key = (t.kind, t.text.lower())
        if key not in seen:
            seen.add(key)
            terms.append(t)

    # `code`: an identifier even when it is one plain word; numbers inside count too
    for m in _BACKTICK.finditer(fact):
        taken.append(m.span())
        inner = m.group(1).strip()
        if _DOTTED.fullmatch(inner):
            add(_ident_term(inner))
            continue
        for im in _DOTTED.finditer(inner):
            if _is_identifier(im.group(0)) or len(im.group(0)) >= 4:
                add(_ident_term(im.group(0)))
        for nm in _CODE_NUMBER.finditer(inner):
            t = _number_term(nm.group(0), nm.group(0), None, "", "")
            if t is not None:
                add(t)
    for m in _QUOTED.finditer(fact):
        if any(s <= m.start() < e for s, e in taken):
            continue
        taken.append(m.span())
        inner = (m.group(1) or m.group(2) or "").strip()
        if inner:
            add(Term(inner, "quoted", needle=inner.lower()))

    def free(start: int, end: int) -> bool:
        return not any(s < end and start < e for s, e in taken)

    for m in _DOTTED.finditer(fact):
        tok = m.group(0)
        if free(*m.span()) and _is_identifier(tok):
            taken.append(m.span())
            add(_ident_term(tok))
    for m in _FACT_NUMBER.finditer(fact):
        if not free(*m.span()):
            continue
        raw, unit = m.group(1), m.group(2)
        if unit and unit.lower() not in _UNITS:
            continue  # "3rd", "2x": not a quantity we can compare
        after = fact[m.end() : m.end() + 30]
        text = m.group(0)
        nxt = _WORD.match(after.lstrip())
        before = fact[max(0, m.start() - 30) : m.start()]
        if not unit and nxt and nxt.group(0).lower() in _UNITS:
            text = f"{m.group(0)} {nxt.group(0)}"
            start = m.end() + (len(after) - len(after.lstrip())) + nxt.start()
            taken.append((start, start + len(nxt.group(0))))  # the unit is not a word term
        elif not unit:
            prev = re.search(r"([A-Za-z]+)\s+$", before)
            if prev and prev.group(1).lower() not in _STOPWORDS:
                text = f"{prev.group(1)} {m.group(0)}"
        t = _number_term(text, raw, unit, before, after)
        if t is not None:
            taken.append(m.span())
            add(t)
    for m in _NUMBER_WORD.finditer(fact):
        word = m.group(1).lower()
        if not free(*m.span()) or word in ("zero", "one"):  # "one of", "no one": not numbers
            continue
        after = fact[m.end() : m.end() + 30]
        before = fact[max(0, m.start() - 30) : m.start()]
        nxt = _WORD.match(after.lstrip())
        text = m.group(0)
        if nxt and nxt.group(0).lower() in _UNITS:
            text = f"{m.group(0)} {nxt.group(0)}"
            start = m.end() + (len(after) - len(after.lstrip())) + nxt.start()
            taken.append((start, start + len(nxt.group(0))))
        t = _number_term(text, str(_NUMBER_WORDS[word]), None, before, after)
        if t is not None:
            taken.append(m.span())
            add(t)
    for m in _WORD.finditer(fact):
        w = m.group(0)
        if not free(*m.span()) or len(w) < 4 or "'" in w or w.lower() in _STOPWORDS:
            continue
        add(Term(w, "word", needle=stem(w)))
    return tuple(terms)


@dataclass(frozen=True, slots=True)
class LineIndex:
    """One line of code, indexed once for every term of every fact."""

    text: str
    idents: tuple[tuple[tuple[str, ...], int, int], ...]  # (parts, start, end)
    numbers: tuple[tuple[float, int, int], ...]  # (value, start, end), products included
    stems: frozenset[str]


@lru_cache(maxsize=16384)
def scan_line(text: str) -> LineIndex:
    """Index one line (cached: the same lines recur across pins and facts)."""
    idents = []
    stems: set[str] = set()
    for m in _CODE_IDENT.finditer(text):
        parts = ident_parts(m.group(0))
        if parts:
            idents.append((parts, m.start(), m.end()))
            stems.update(stem(p) for p in parts)
    numbers: list[tuple[float, int, int]] = []
    for m in _CODE_NUMBER.finditer(text):
        try:
            numbers.append((float(m.group(0).replace("_", "")), m.start(), m.end()))
        except ValueError:
            continue
    for m in _PRODUCT.finditer(text):
        value = 1.0
        for factor in re.split(r"\s*\*\s*", m.group(0)):
            value *= float(factor.replace("_", ""))
        numbers.append((value, m.start(), m.end()))
    return LineIndex(text, tuple(idents), tuple(numbers), frozenset(stems))


def _contains(seq: tuple[str, ...], sub: tuple[str, ...]) -> bool:
    n = len(sub)
    return any(seq[i : i + n] == sub for i in range(len(seq) - n + 1))


def match_line(terms: tuple[Term, ...], line: LineIndex) -> list[tuple[Term, int, int]]:
    """Every (term, start, end) the line mentions, in line order."""
    hits: list[tuple[Term, int, int]] = []
    low = line.text.lower()
    # a small number counts next to its own words, or beside any other word of the fact
    context = {t.needle for t in terms if t.kind == "word"} & line.stems
    for t in terms:
        if t.kind == "identifier":
            for parts, s, e in line.idents:
                if any(_contains(parts, alt) for alt in t.parts):
                    hits.append((t, s, e))
        elif t.kind == "number":
            for value, s, e in line.numbers:
                # a small number is only evidence next to one of its words
                if any(abs(value - v) < 1e-9 for v in t.values) and (
                    max(t.values) >= 10
                    or context
                    or any(n in line.stems for n in t.neighbours)
                ):
                    hits.append((t, s, e))
        elif t.kind == "quoted":
            start = low.find(t.needle)
            if start >= 0:
                hits.append((t, start, start + len(t.needle)))
        else:
            if t.needle in line.stems:
                for parts, s, e in line.idents:
                    if any(stem(p) == t.needle for p in parts):
                        hits.append((t, s, e))
                        break
    hits.sort(key=lambda h: (h[1], h[2]))
    return hits
