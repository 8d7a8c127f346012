"""Property tests of the store against a naive replay model (SPEC §4, §6, §7).

Random sequences of remember / revise (including backdated ``valid_from``) /
forget (by id and by source_ref) / clock advances run against a ``Store`` on a
``FakeClock`` and, in parallel, against a model written independently here: a
plain list of dict rows updated per operation with the SPEC §6 rules, a model
of the fake clock (fixtures/README.md), and the SPEC §7 ``as_of`` and current
predicates evaluated in Python. After every operation current recall must equal
the model's current beliefs; at the end, at every event timestamp and ±1 ms,
``recall(as_of=T)`` membership must equal the model's.

A second property pins the Python score mirror (``ranking.score``,
``ranking.age_days``) to the SQL score of recall results within 1e-9 relative,
with and without a text query.

Number of examples
------------------
The normal suite runs 200 examples per property. Set the environment variable
``MEMHARNESS_PROPERTY_EXAMPLES`` to run more, e.g. the long run::

    MEMHARNESS_PROPERTY_EXAMPLES=10000 .venv/bin/pytest tests/store/test_property.py -q
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from memharness_tui.store import FakeClock, InvalidInput, NotFound, RankingSettings, Store
from memharness_tui.store.ranking import age_days, score

EXAMPLES = int(os.environ.get("MEMHARNESS_PROPERTY_EXAMPLES", "200"))
PROPERTY_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

BIG = 100_000
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
DAY_MS = 86_400_000
START = "2026-01-05T09:00:00.000Z"

SUBJECTS = ["alpha", "beta", "gamma"]
# Stored verbatim; forget trims what it is given, then matches exactly.
STORED_REFS = ["", "a", "b", " a "]
FORGET_REFS = ["", "   ", "\u3000", "a", " a ", "b", "c"]
JS_WS = "\t\n\x0b\x0c\r \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
JS_WS += "\u2028\u2029\u202f\u205f\u3000\ufeff"


# --- independent time helpers (not the store's timeutil) ------------------------------


def iso(ms: int) -> str:
    dt = EPOCH + timedelta(milliseconds=ms)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def iso_with_offset(ms: int, minutes: int) -> str:
    """The same instant written in a +/-HH:MM offset form (what an agent may send)."""
    tz = timezone(timedelta(minutes=minutes))
    dt = (EPOCH + timedelta(milliseconds=ms)).astimezone(tz)
    return (
        dt.strftime("%Y-%m-%dT%H:%M:%S.")
        + f"{ms % 1000:03d}"
        + dt.strftime("%z")[:3]
        + ":"
        + dt.strftime("%z")[3:]
    )


def ms_of(text: str) -> int:
    dt = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return (dt - EPOCH) // timedelta(milliseconds=1)


def js_trim(s: str) -> str:
    start, end = 0, len(s)
    while start < end and s[start] in JS_WS:
        start += 1
    while end > start and s[end - 1] in JS_WS:
        end -= 1
    return s[start:end]


# --- the model ---------------------------------------------------------------------


class ModelClock:
    """fixtures/README.md: now() returns the instant, then advances; a repeat is bumped 1 ms."""

    def __init__(self, start_ms: int, step: int) -> None:
        self.ms = start_ms
        self.step = step
        self.last = -(10**18)

    def next_issue(self) -> int:
        return self.ms if self.ms > self.last else self.last + 1

    def now(self) -> int:
        issue = self.next_issue()
        self.last = issue
        self.ms = issue + self.step
        return issue

    def advance(self, ms: int) -> None:
        self.ms += ms


@dataclass
class Model:
    clock: ModelClock
    rows: list[dict[str, Any]] = field(default_factory=list)

    def row(self, fid: int) -> dict[str, Any] | None:
        return self.rows[fid - 1] if 1 <= fid <= len(self.rows) else None

    def remember(self, subject: str, ref: str, vf_ms: int | None) -> tuple[int, int]:
        tx = self.clock.now()
        fid = len(self.rows) + 1
        self.rows.append(
            {
                "id": fid,
                "subject": subject,
                "source_ref": ref,
                "valid_from": tx if vf_ms is None else vf_ms,
                "valid_to": None,
                "tx_at": tx,
                "superseded_by": None,
                "retracted_at": None,
            }
        )
        return fid, tx

    def revise(self, old_id: int, vf_ms: int | None) -> tuple[str, int, int]:
        """('ok', new_id, tx) or ('NotFound'|'InvalidInput', 0, 0)."""
        old = self.row(old_id)
        if old is None:
            return "NotFound", 0, 0  # consumes no timestamp
        if old["superseded_by"] is not None:
            return "InvalidInput", 0, 0  # consumes no timestamp
        tx = self.clock.now()
        vf = tx if vf_ms is None else vf_ms
        if vf > tx:
            return "InvalidInput", 0, 0  # consumed one, rolled back
        if old["valid_from"] < old["tx_at"] and vf < old["valid_from"]:
            return "InvalidInput", 0, 0
        new_id = len(self.rows) + 1
        self.rows.append(
            {
                "id": new_id,
                "subject": old["subject"],
                "source_ref": "",
                "valid_from": vf,
                "valid_to": None,
                "tx_at": tx,
                "superseded_by": None,
                "retracted_at": None,
            }
        )
        old["valid_to"] = vf
        old["superseded_by"] = new_id
        return "ok", new_id, tx

    def forget_id(self, fid: int) -> list[int]:
        ts = self.clock.now()
        row = self.row(fid)
        if row is None or row["retracted_at"] is not None:
            return []
        row["retracted_at"] = ts
        return [fid]

    def forget_ref(self, ref: str) -> list[int] | None:
        ts = self.clock.now()  # consumed even when refused
        wanted = js_trim(ref)
        if wanted == "":
            return None
        out = []
        for row in self.rows:
            if row["source_ref"] == wanted and row["retracted_at"] is None:
                row["retracted_at"] = ts
                out.append(row["id"])
        return out

    def believed_at(self, t: int) -> set[int]:
        """SPEC §7 as_of predicate."""
        return {
            r["id"]
            for r in self.rows
            if r["tx_at"] <= t
            and r["valid_from"] <= t
            and (r["valid_to"] is None or r["valid_to"] > t)
            and (r["retracted_at"] is None or r["retracted_at"] > t)
        }

    def current(self, now: int) -> set[int]:
        """SPEC §7 current mode; now = later of the clock's now and MAX(tx_at)."""
        now = max([now, *(r["tx_at"] for r in self.rows)])
        return {
            r["id"]
            for r in self.rows
            if r["valid_from"] <= now
            and r["valid_to"] is None
            and r["superseded_by"] is None
            and r["retracted_at"] is None
        }

    def event_times(self) -> set[int]:
        out: set[int] = set()
        for r in self.rows:
            for key in ("valid_from", "valid_to", "tx_at", "retracted_at"):
                if r[key] is not None:
                    out.add(r[key])
        return out


# --- strategies --------------------------------------------------------------------

offset_ms = st.one_of(
    st.integers(-3, 3),
    st.integers(-2 * DAY_MS, 2 * DAY_MS),
    st.integers(-40 * DAY_MS, 3 * DAY_MS),
)
remember_vf = st.one_of(
    st.just(("none", 0)),
    st.tuples(st.sampled_from(["offset", "offset_tz", "date"]), offset_ms),
)
revise_vf = st.one_of(
    st.just(("none", 0)),
    st.tuples(st.sampled_from(["offset", "offset_tz"]), offset_ms),
    st.tuples(st.sampled_from(["old_vf"]), st.integers(-2, 2)),
)
remember_op = st.tuples(
    st.just("remember"), st.sampled_from(SUBJECTS), st.sampled_from(STORED_REFS), remember_vf
)
revise_op = st.tuples(st.just("revise"), st.integers(0, 60), revise_vf)
ops_strategy = st.lists(
    # remember and revise weighted up so that histories grow long chains
    st.one_of(
        remember_op,
        remember_op,
        remember_op,
        revise_op,
        revise_op,
        st.tuples(st.just("forget_id"), st.integers(0, 60)),
        st.tuples(st.just("forget_ref"), st.sampled_from(FORGET_REFS)),
        st.tuples(st.just("advance"), st.sampled_from([1, 999, 60_000, DAY_MS, 10 * DAY_MS])),
    ),
    min_size=25,
    max_size=80,
)


def vf_input(mode: str, amount: int, base_ms: int) -> tuple[str | None, int | None]:
    """(text given to the store, the instant the model expects it to mean)."""
    if mode == "none":
        return None, None
    t = base_ms + amount
    if mode == "offset":
        return iso(t), t
    if mode == "offset_tz":
        return iso_with_offset(t, 330 if amount % 2 else -420), t
    # "date": a bare date is midnight UTC
    day = t - (t % DAY_MS)
    return iso(day)[:10], day


def pick_id(model: Model, n: int) -> int:
    """0 and len+1 are unknown ids; everything else a real row."""
    return n % (len(model.rows) + 2)


def store_rows(store: Store) -> list[dict[str, Any]]:
    rows = store.conn.execute(
        "SELECT id, subject, source_ref, valid_from, valid_to, tx_at, superseded_by, retracted_at "
        "FROM facts ORDER BY id"
    ).fetchall()
    keys = [
        "id",
        "subject",
        "source_ref",
        "valid_from",
        "valid_to",
        "tx_at",
        "superseded_by",
        "retracted_at",
    ]
    return [dict(zip(keys, r, strict=True)) for r in rows]


def model_rows(model: Model) -> list[dict[str, Any]]:
    out = []
    for r in model.rows:
        d = dict(r)
        for key in ("valid_from", "valid_to", "tx_at", "retracted_at"):
            if d[key] is not None:
                d[key] = iso(d[key])
        out.append(d)
    return out


@PROPERTY_SETTINGS
@given(ops=ops_strategy, step=st.sampled_from([0, 1, 1000, 60_000]))
def test_recall_membership_matches_naive_replay(ops: list[tuple[Any, ...]], step: int) -> None:
    store = Store.open(":memory:", clock=FakeClock(START, step))
    model = Model(ModelClock(ms_of(START), step))
    try:
        for n, op in enumerate(ops):
            kind = op[0]
            if kind == "remember":
                _, subject, ref, (mode, amount) = op
                text, vf = vf_input(mode, amount, model.clock.next_issue())
                expected = model.remember(subject, ref, vf)
                got = store.remember(subject, f"fact {n}", source_ref=ref, valid_from=text)
                assert got == (expected[0], iso(expected[1])), op
            elif kind == "revise":
                _, pick, (mode, amount) = op
                old_id = pick_id(model, pick)
                old = model.row(old_id)
                if mode == "old_vf" and old is not None:
                    vf = old["valid_from"] + amount
                    text: str | None = iso(vf)
                else:
                    text, vf = vf_input(mode, amount, model.clock.next_issue())
                outcome, new_id, tx = model.revise(old_id, vf)
                event(f"revise {outcome}")
                if outcome == "ok":
                    assert store.revise(old_id, f"revised {n}", valid_from=text) == (
                        old_id,
                        new_id,
                        iso(tx),
                    ), op
                else:
                    error = NotFound if outcome == "NotFound" else InvalidInput
                    try:
                        store.revise(old_id, f"revised {n}", valid_from=text)
                    except error:
                        pass
                    else:
                        raise AssertionError(f"{op}: expected {outcome}")
            elif kind == "forget_id":
                fid = pick_id(model, op[1])
                ids = model.forget_id(fid)
                assert store.forget(fact_id=fid) == (len(ids), ids), op
            elif kind == "forget_ref":
                ref_ids = model.forget_ref(op[1])
                if ref_ids is None:
                    try:
                        store.forget(source_ref=op[1])
                    except InvalidInput as exc:
                        assert "source_ref" in str(exc)
                    else:
                        raise AssertionError(f"{op}: blank source_ref must be refused")
                else:
                    assert store.forget(source_ref=op[1]) == (len(ref_ids), ref_ids), op
            else:
                model.clock.advance(op[1])
                store.clock.advance(op[1])  # type: ignore[attr-defined]

            # Current recall after every op: the recall consumes one timestamp.
            expected_current = model.current(model.clock.now())
            got_current = {f.id for f in store.recall(limit=BIG).facts}
            assert got_current == expected_current, f"after op {n} {op}"

        assert store_rows(store) == model_rows(model)
        event(f"rows: {len(model.rows) // 10 * 10}+")

        for t in sorted(model.event_times()):
            for probe in (t - 1, t, t + 1):
                model.clock.now()  # as_of recall consumes one (decay "now")
                r = store.recall(as_of=iso(probe), limit=BIG)
                assert r.as_of == iso(probe)
                assert {f.id for f in r.facts} == model.believed_at(probe), f"as_of {iso(probe)}"
        assert store.clock.peek() == iso(model.clock.ms)
    finally:
        store.close()


# --- the score mirror ----------------------------------------------------------------

row_strategy = st.fixed_dictionaries(
    {
        "importance": st.integers(1, 10),
        "kind": st.sampled_from(["semantic", "episodic", "procedural"]),
        "confidence": st.one_of(st.just(0.0), st.just(1.0), st.floats(1e-6, 1.0)),
        "freshness": st.sampled_from([None, "current", "stale", "unresolved"]),
        "advance_ms": st.one_of(st.integers(0, 10_000), st.integers(0, 1500 * DAY_MS)),
        # last_accessed_at relative to the row's tx_at (a future value clamps age to 0)
        "accessed_ms": st.one_of(st.none(), st.integers(-DAY_MS, 800 * DAY_MS)),
        "hits": st.integers(1, 3),
    }
)
# Half-lives from realistic (>= 1 day) down to minutes: the mirror ages by julianday
# differences exactly as SQLite does, so even a tiny half-life (where the ~5e-10 day
# rounding of julianday() is amplified) must agree within 1e-9 — see also
# test_score_mirror_with_a_tiny_half_life below.
ranking_strategy = st.one_of(
    st.just(RankingSettings()),
    st.builds(
        RankingSettings,
        half_life_days=st.one_of(st.floats(20.0, 400.0), st.floats(0.01, 20.0)),
        rrf_k=st.floats(1.0, 100.0),
        importance_weight=st.floats(0.0, 0.1),
        importance_half_life_weight=st.floats(0.0, 0.3),
        min_half_life_factor=st.floats(0.01, 0.5),
        kind_half_life_days=st.fixed_dictionaries(
            {"episodic": st.floats(0.01, 100.0), "procedural": st.floats(0.01, 400.0)}
        ),
        stale_weight=st.floats(0.0, 1.0),
        unresolved_weight=st.floats(0.0, 1.0),
    ),
)


@PROPERTY_SETTINGS
@given(
    rows=st.lists(row_strategy, min_size=1, max_size=25),
    ranking=ranking_strategy,
    final_advance=st.integers(0, 400 * DAY_MS),
)
def test_python_score_mirror_equals_sql(
    rows: list[dict[str, Any]], ranking: RankingSettings, final_advance: int
) -> None:
    clock = FakeClock(START, 1000)
    store = Store.open(":memory:", clock=clock, ranking=ranking)
    try:
        for i, spec in enumerate(rows):
            clock.advance(spec["advance_ms"])
            # Unique length per row, so bm25 never ties and the fts rank is well defined.
            text = " ".join(["needle"] * spec["hits"] + [f"filler{j}" for j in range(i + 1)])
            fid, tx = store.remember(
                SUBJECTS[i % 3],
                text,
                confidence=spec["confidence"],
                importance=spec["importance"],
                kind=spec["kind"],
            )
            if spec["freshness"] is not None:
                store.set_staleness(fid, spec["freshness"], tx, "0" * 40)
            if spec["accessed_ms"] is not None:
                store.conn.execute(
                    "UPDATE facts SET last_accessed_at = ? WHERE id = ?",
                    (iso(ms_of(tx) + spec["accessed_ms"]), fid),
                )
        clock.advance(final_advance)

        bm25_order = [
            r[0]
            for r in store.conn.execute(
                "SELECT rowid FROM facts_fts WHERE facts_fts MATCH '\"needle\"' ORDER BY rank"
            )
        ]
        fts_rank = {fid: pos for pos, fid in enumerate(bm25_order, start=1)}

        for query in ("", "needle"):
            now = clock.peek()  # the one timestamp this recall takes
            result = store.recall(query, limit=BIG)
            assert not result.used_fallback
            assert len(result.facts) == len(rows)
            for f in result.facts:
                expected = score(
                    fts_rank=fts_rank[f.id] if query else None,
                    confidence=f.confidence,
                    importance=f.importance,
                    kind=f.kind,
                    age=age_days(now, f.last_accessed_at, f.tx_at),
                    freshness=f.freshness,
                    r=ranking,
                )
                assert f.score is not None
                assert math.isclose(f.score, expected, rel_tol=1e-9, abs_tol=0.0), (
                    f"#{f.id} query={query!r}: sql {f.score!r} != python {expected!r}"
                )
            keys = [(-(f.score or 0.0), f.tx_at, f.id) for f in result.facts]
            # score desc, then tx_at desc, id desc (ties only matter when scores are equal)
            for a, b in zip(result.facts, result.facts[1:], strict=False):
                assert (a.score, a.tx_at, a.id) >= (b.score, b.tx_at, b.id), keys
    finally:
        store.close()


def test_score_mirror_with_a_tiny_half_life() -> None:
    """Found by the 10,000-example run: half-life 0.25 days, a fact 1 s old.

    SQL ages by julianday(now) - julianday(tx_at): each julianday is a double near 2.46e6,
    so the difference is off by up to ~5e-10 days; divided by a 0.25-day half-life the
    score differs from a mirror that ages by exact milliseconds by ~1.1e-9 relative.
    A mirror that computes age the way SQLite does, (ms + 210866760000000) / 86400000.0
    per side, is bit-identical.
    """
    ranking = RankingSettings(
        half_life_days=1.0, importance_half_life_weight=0.25, min_half_life_factor=0.25
    )
    clock = FakeClock(START, 1000)
    with Store.open(":memory:", clock=clock, ranking=ranking) as store:
        clock.advance(3000)  # tx_at 09:00:03.000, recalled at 09:00:04.000
        fid, tx = store.remember("alpha", "one second old", importance=1)
        now = clock.peek()
        (fact,) = store.recall(limit=BIG).facts
        expected = score(
            fts_rank=None,
            confidence=1.0,
            importance=1,
            kind="semantic",
            age=age_days(now, None, tx),
            freshness=None,
            r=ranking,
        )
        assert fact.id == fid and fact.score is not None
        assert math.isclose(fact.score, expected, rel_tol=1e-9, abs_tol=0.0), (
            f"sql {fact.score!r} != python {expected!r}"
        )
