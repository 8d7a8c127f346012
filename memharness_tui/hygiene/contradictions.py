"""Current facts of one subject that say different things about the same thing: the same
sentence around a different port, version, count, date, host or name ("The API listens on port
8080" / "… on port 9090"). Told apart from agreeing near-duplicates: the words around the
values must mostly agree (token Jaccard of the non-value words ≥ ``CONTEXT_SIMILARITY``) and a
value must stand at the same place (after the same word, or before it for a leading name) in
both, with a different value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["CONTEXT_SIMILARITY", "Disagreement", "disagreement", "group_disagreements",
           "slots"]

#: How alike the words around the values must be for two facts to speak of the same thing.
CONTEXT_SIMILARITY = 0.6

_TOKEN = re.compile(r"[A-Za-z0-9][\w.:/@+-]*[A-Za-z0-9]|[A-Za-z0-9]", re.ASCII)
_NUMBER = re.compile(r"v?\d[\d.,:/-]*[a-z%]{0,3}", re.ASCII | re.IGNORECASE)
_HOST = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+", re.IGNORECASE)
def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_STOP = _words(
    "a an the is are was were be been of on in at to for and or with by from as it its this "
    "that these those has have had uses use runs run now")
_WEEKDAYS = _words("monday tuesday wednesday thursday friday saturday sunday")


@dataclass(frozen=True, slots=True)
class Disagreement:
    topic: str
    a: str
    b: str


def _is_value(tok: str, first: bool) -> bool:
    if _NUMBER.fullmatch(tok) and any(c.isdigit() for c in tok):
        return True
    if "." in tok and _HOST.fullmatch(tok) and not tok.replace(".", "").isdigit():
        return any(c.isalpha() for c in tok.rsplit(".", 1)[-1])
    if tok.lower() in _WEEKDAYS:
        return True
    return tok[:1].isupper() and not first and not tok.isupper()


def slots(text: str) -> tuple[dict[str, str], set[str]]:
    """(place → value, the other words): a value's place is the word before it (lower case),
    or ``^word`` after it for a value that opens the sentence."""
    toks = _TOKEN.findall(text)
    places: dict[str, str] = {}
    context: set[str] = set()
    for k, tok in enumerate(toks):
        first = k == 0
        if _is_value(tok, first) or (first and tok[:1].isupper() and len(toks) > 2
                                     and _looks_like_name(tok)):
            if k > 0 and any(c.isdigit() for c in tok):
                before = toks[k - 1].lower()  # "Python 3.11": the version of Python
            else:
                before = next((toks[j].lower() for j in range(k - 1, -1, -1)
                               if not _is_value(toks[j], j == 0)), None)
            place = before if before is not None else (
                "^" + toks[k + 1].lower() if k + 1 < len(toks) else "^")
            places.setdefault(place, tok.rstrip(".,").lower())
        else:
            low = tok.lower()
            if low not in _STOP:
                context.add(low)
    return places, context


def _looks_like_name(tok: str) -> bool:
    """A capitalised opening word that is a name rather than a sentence's first word: one
    that is not a common English opener."""
    return tok.lower() not in _OPENERS


_OPENERS = _words(
    "the a an our we use run all every each this that these those it its if when do don't "
    "never always tests test builds build deploys logs api ci staging production prod local "
    "users user release releases backups images")


# A number after these words labels an item ("fact number 3", "step 2", "issue 41"): facts
# that differ there are different items, not a disagreement.
_ORDINAL_PLACES = _words(
    "number no nr item step part case example line row id issue ticket pr chapter section "
    "phase fact task page note entry test sample batch run")


def disagreement(a: str, b: str) -> Disagreement | None:
    """Where ``a`` and ``b`` say the same thing with a different value (None: they agree,
    or speak of different things)."""
    pa, ca = slots(a)
    pb, cb = slots(b)
    if not pa or not pb:
        return None
    union = ca | cb
    if union and len(ca & cb) / len(union) < CONTEXT_SIMILARITY:
        return None
    for place in sorted(pa.keys() & pb.keys()):
        if place in _ORDINAL_PLACES or place.lstrip("#") == "":
            continue
        if pa[place] != pb[place]:
            return Disagreement(place.lstrip("^") or "value", pa[place], pb[place])
    return None


def group_disagreements(texts: Sequence[str]) -> list[tuple[int, int, Disagreement]]:
    """(i, j, what) for every pair of ``texts`` that disagree (a merge asks before folding)."""
    out = []
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            d = disagreement(texts[i], texts[j])
            if d is not None:
                out.append((i, j, d))
    return out
