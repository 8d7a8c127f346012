"""Plain value types the store hands out. Snake_case mirrors of the reference's shapes."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, NamedTuple

Kind = Literal["semantic", "episodic", "procedural"]
Freshness = Literal["current", "stale", "unresolved"]
KINDS: tuple[str, ...] = ("semantic", "episodic", "procedural")
FRESHNESS_VALUES: tuple[str, ...] = ("current", "stale", "unresolved")
# Recall's freshness filter also accepts "unchecked" (freshness IS NULL).
FRESHNESS_FILTERS: tuple[str, ...] = (*FRESHNESS_VALUES, "unchecked")

# Column order of the facts table at schema v5 (embedding BLOB excluded from Fact).
FACT_COLUMNS: tuple[str, ...] = (
    "id",
    "subject",
    "predicate",
    "fact",
    "confidence",
    "valid_from",
    "valid_to",
    "tx_at",
    "superseded_by",
    "source_agent",
    "source_ref",
    "retracted_at",
    "importance",
    "kind",
    "last_accessed_at",
    "embedding_dim",
    "embedding_model",
    "source_commit",
    "source_path",
    "freshness",
    "checked_at",
    "checked_head",
)


@dataclass(frozen=True, slots=True)
class Fact:
    """One row of ``facts``. ``score`` is set only on recall results."""

    id: int
    subject: str
    predicate: str
    fact: str
    confidence: float
    valid_from: str
    valid_to: str | None
    tx_at: str
    superseded_by: int | None
    source_agent: str
    source_ref: str
    retracted_at: str | None
    importance: int
    kind: str
    last_accessed_at: str | None = None
    embedding_dim: int | None = None
    embedding_model: str | None = None
    source_commit: str | None = None
    source_path: str | None = None
    freshness: str | None = None
    checked_at: str | None = None
    checked_head: str | None = None
    score: float | None = None

    @property
    def is_retracted(self) -> bool:
        return self.retracted_at is not None

    @property
    def is_superseded(self) -> bool:
        return self.superseded_by is not None

    @property
    def is_live(self) -> bool:
        """Neither superseded nor retracted (the staleness engine's notion of live)."""
        return self.superseded_by is None and self.retracted_at is None

    @property
    def is_pinned(self) -> bool:
        return self.source_commit is not None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if d["score"] is None:
            d.pop("score")
        return d


@dataclass(frozen=True, slots=True)
class RecallResult:
    facts: list[Fact]
    as_of: str | None
    truncated: bool
    used_fallback: bool
    #: False for a first screen (``Store.recall_first_screen``) that ranked only the newest
    #: rows: not yet the agent's exact ranking, and the UI must say so until the full one comes.
    exact: bool = True

    @property
    def ids(self) -> list[int]:
        return [f.id for f in self.facts]

    @property
    def scores(self) -> list[float]:
        return [f.score if f.score is not None else 0.0 for f in self.facts]


@dataclass(frozen=True, slots=True)
class WhyResult:
    fact: Fact
    ancestors: list[Fact]  # rows it superseded, nearest first
    descendants: list[Fact]  # rows that superseded it, nearest first


@dataclass(frozen=True, slots=True)
class RevisedPair:
    old: Fact
    new: Fact | None


@dataclass(frozen=True, slots=True)
class DiffResult:
    since: str
    learned: list[Fact]
    revised: list[RevisedPair]
    retracted: list[Fact]


@dataclass(frozen=True, slots=True)
class SubjectCount:
    subject: str
    count: int


@dataclass(frozen=True, slots=True)
class StatsResult:
    db_path: str
    total_facts: int
    current_beliefs: int
    top_subjects: list[SubjectCount]
    schema_version: int


@dataclass(frozen=True, slots=True)
class StoreCounts:
    """Header counts for the app: total rows, current beliefs, live pinned, live stale/unresolved."""

    total: int
    current: int
    pinned: int
    stale: int
    unresolved: int


@dataclass(frozen=True, slots=True)
class MarkedCounts:
    """Header counts as one connection read them, with where the write-ahead log stood (the
    same before and after the read: no commit in between). Any process with the file open can
    use them as the store's counts while the log still stands there and ``until`` (the first
    instant at which a row they saw becomes or stops being current; None: no such row) has
    not come: another connection need not read every row again to learn them."""

    counts: StoreCounts
    mark: object  # a ``wal_pages.WalMark``
    until: str | None


@dataclass(frozen=True, slots=True)
class SubjectSummary:
    subject: str
    current: int
    total: int


class StalenessTarget(NamedTuple):
    """A row the staleness engine should judge (pinned, or a backfill candidate).

    A NamedTuple: the pass reads one per pin (10k at a time), built straight from the row."""

    id: int
    source_ref: str
    source_commit: str | None
    source_path: str | None


@dataclass(frozen=True, slots=True)
class StalenessUpdate:
    """One verdict to write through ``Store.set_staleness_many``."""

    id: int
    freshness: str
    checked_at: str
    checked_head: str
    source_commit: str | None = None
    source_path: str | None = None


DEFAULT_KIND_HALF_LIFE_DAYS: dict[str, float] = {"episodic": 30.0, "procedural": 180.0}


@dataclass(slots=True)
class RankingSettings:
    """Recall weights (SPEC §7 defaults). The reference's camelCase names map 1:1.

    ``kind_half_life_days`` is merged over the defaults, as the reference does: a partial
    map such as ``{"episodic": 7}`` keeps procedural at 180 days.
    """

    half_life_days: float = 90.0
    rrf_k: float = 60.0
    importance_weight: float = 0.05
    importance_half_life_weight: float = 0.15
    min_half_life_factor: float = 0.05
    kind_half_life_days: dict[str, float] = field(
        default_factory=lambda: dict(DEFAULT_KIND_HALF_LIFE_DAYS)
    )
    candidate_cap: int = 256
    stale_weight: float = 0.5
    unresolved_weight: float = 0.85

    def __post_init__(self) -> None:
        self.kind_half_life_days = {**DEFAULT_KIND_HALF_LIFE_DAYS, **self.kind_half_life_days}
