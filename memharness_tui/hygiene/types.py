"""What a hygiene scan finds: one small value type per flag, and the report that holds them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = [
    "KINDS",
    "CapNote",
    "ContradictionFlag",
    "InstructionFlag",
    "SecretFlag",
    "ChainAnomaly",
    "CodeMapFlag",
    "CompoundFlag",
    "DuplicateGroup",
    "Fragment",
    "HygieneReport",
    "PinFlag",
]

#: Flag kinds, as ``--fail-on`` and the JSON ``counts`` name them.
KINDS: tuple[str, ...] = (
    "secrets", "instructions", "contradictions",
    "near-duplicate", "fragmentation", "code-map", "compound", "over-limit", "chain",
    "stale", "unresolved",
)


@dataclass(frozen=True, slots=True)
class SecretFlag:
    """A row (of any version) whose text holds credentials. ``preview``: the text with each
    span masked; the secret itself is nowhere in this value (nor in its repr)."""

    id: int
    subject: str
    status: str  # current, superseded or retracted
    chain: tuple[int, ...]  # every id of its supersession chain
    source_agent: str
    source_ref: str
    spans: tuple[Any, ...]  # secrets.SecretSpan
    preview: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "subject": self.subject, "status": self.status,
                "chain": list(self.chain), "source_agent": self.source_agent,
                "source_ref": self.source_ref, "spans": [s.to_dict() for s in self.spans],
                "preview": self.preview}


@dataclass(frozen=True, slots=True)
class InstructionFlag:
    """A current fact an agent would read as an order: ``rule`` and the ``[start, end)`` span."""

    id: int
    subject: str
    rule: str
    start: int
    end: int
    source_agent: str
    fact: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class ContradictionFlag:
    """Current facts of one subject stating different ``values`` about the same ``topic``."""

    subject: str
    topic: str
    ids: tuple[int, ...]
    values: tuple[str, ...]  # one per id
    facts: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"subject": self.subject, "topic": self.topic, "ids": list(self.ids),
                "values": list(self.values), "facts": list(self.facts)}


@dataclass(frozen=True, slots=True)
class DuplicateGroup:
    """Facts of one subject linked by near-duplicate pairs (A~B, B~C → one group)."""

    subject: str
    ids: list[int]
    facts: dict[int, str]
    pairs: list[tuple[int, int, float]]  # (id, id, similarity), most similar first

    @property
    def max_similarity(self) -> float:
        return self.pairs[0][2] if self.pairs else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"subject": self.subject, "ids": self.ids,
                "facts": {str(k): v for k, v in self.facts.items()},
                "pairs": [{"a": a, "b": b, "similarity": s} for a, b, s in self.pairs]}


@dataclass(frozen=True, slots=True)
class Fragment:
    """Subjects that collapse to one key under the gardener's normalisation, most facts first."""

    key: str
    subjects: list[tuple[str, int]]

    @property
    def canonical(self) -> str:
        """The suggested home: the subject holding the most facts."""
        return self.subjects[0][0]

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "canonical": self.canonical,
                "subjects": [{"subject": s, "count": c} for s, c in self.subjects]}


@dataclass(frozen=True, slots=True)
class CodeMapFlag:
    id: int
    subject: str
    length: int
    fact: str


@dataclass(frozen=True, slots=True)
class CompoundFlag:
    """``rule``: semicolon, several (sentences), long (over 280), or over-limit (over 1,500)."""

    id: int
    subject: str
    rule: str
    length: int
    fact: str


@dataclass(frozen=True, slots=True)
class ChainAnomaly:
    """``mid-chain-retraction``: ``id`` was retracted after ``related`` superseded it;
    ``retracted-ancestor``: live ``id`` descends from retracted ``related``."""

    kind: str
    id: int
    subject: str
    related: int


@dataclass(frozen=True, slots=True)
class PinFlag:
    id: int
    subject: str
    freshness: str
    source_path: str | None
    fact: str


@dataclass(frozen=True, slots=True)
class CapNote:
    """A subject with ``count`` rows of which only ``compared`` were compared."""

    subject: str
    count: int
    compared: int


@dataclass
class HygieneReport:
    as_of: str | None = None
    min_similarity: float = 0.5
    rows: int = 0
    duplicates: list[DuplicateGroup] = field(default_factory=list)
    fragments: list[Fragment] = field(default_factory=list)
    code_maps: list[CodeMapFlag] = field(default_factory=list)
    compound: list[CompoundFlag] = field(default_factory=list)
    over_limit: list[CompoundFlag] = field(default_factory=list)
    chains: list[ChainAnomaly] = field(default_factory=list)
    pins: list[PinFlag] = field(default_factory=list)
    capped: list[CapNote] = field(default_factory=list)
    cosine_skipped: list[CapNote] = field(default_factory=list)
    secrets: list[SecretFlag] = field(default_factory=list)
    instructions: list[InstructionFlag] = field(default_factory=list)
    contradictions: list[ContradictionFlag] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """Flags per kind (a duplicate group counts once)."""
        return {
            "secrets": len(self.secrets),
            "instructions": len(self.instructions),
            "contradictions": len(self.contradictions),
            "near-duplicate": len(self.duplicates),
            "fragmentation": len(self.fragments),
            "code-map": len(self.code_maps),
            "compound": len(self.compound),
            "over-limit": len(self.over_limit),
            "chain": len(self.chains),
            "stale": sum(1 for p in self.pins if p.freshness == "stale"),
            "unresolved": sum(1 for p in self.pins if p.freshness == "unresolved"),
        }

    @property
    def empty(self) -> bool:
        return not any(self.counts().values())

    def flagged_ids(self, kind: str) -> list[int]:
        """The fact ids one kind flags (a fragment's are not known here: ``[]``)."""
        if kind == "near-duplicate":
            return [i for g in self.duplicates for i in g.ids]
        if kind == "contradictions":
            return [i for c in self.contradictions for i in c.ids]
        if kind in ("stale", "unresolved"):
            return [p.id for p in self.pins if p.freshness == kind]
        lists: dict[str, list[Any]] = {"code-map": self.code_maps, "compound": self.compound,
                                       "over-limit": self.over_limit, "chain": self.chains,
                                       "secrets": self.secrets,
                                       "instructions": self.instructions}
        return [f.id for f in lists.get(kind, [])]

    def to_dict(self) -> dict[str, Any]:
        return {
            "as_of": self.as_of,
            "rows": self.rows,
            "min_similarity": self.min_similarity,
            "counts": self.counts(),
            "near_duplicates": [g.to_dict() for g in self.duplicates],
            "fragmentation": [f.to_dict() for f in self.fragments],
            "code_maps": [asdict(f) for f in self.code_maps],
            "compound": [asdict(f) for f in self.compound],
            "over_limit": [asdict(f) for f in self.over_limit],
            "chains": [asdict(f) for f in self.chains],
            "pins": [asdict(f) for f in self.pins],
            "capped_subjects": [asdict(c) for c in self.capped],
            "cosine_skipped": [asdict(c) for c in self.cosine_skipped],
            "secrets": [f.to_dict() for f in self.secrets],
            "instructions": [f.to_dict() for f in self.instructions],
            "contradictions": [c.to_dict() for c in self.contradictions],
        }
