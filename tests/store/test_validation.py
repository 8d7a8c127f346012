"""Bad input, opening failures and the text formats (SPEC §4, §6, §7, §9, §10, §11).

Each refused call must raise the specific error (``InvalidInput`` / ``NotFound`` /
``SchemaTooNew`` / ``StoreOpenError`` / ``ReadOnlyError``) with a message naming
the offending field, and leave the database exactly as it was (every table's
rows, schema and user_version compared through a separate read-only connection).

SPEC §11 deliberate differences from the reference that concern the store are
the date rejections: the reference rolls impossible dates over (``2026-02-30`` →
March 2, ``T24:00`` → next day), stores canonical-shaped impossible strings
verbatim and writes years outside 0001–9999 as ``+010000-…``; we reject all of
these as invalid input. The tests that pin this say so in their names.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memharness_tui.store import (
    FakeClock,
    InvalidInput,
    NotFound,
    ReadOnlyError,
    SchemaTooNew,
    Store,
    StoreOpenError,
    formats,
)
from memharness_tui.store.timeutil import normalize_iso
from memharness_tui.store.types import (
    DiffResult,
    Fact,
    RecallResult,
    RevisedPair,
    StalenessUpdate,
    StatsResult,
    SubjectCount,
    WhyResult,
)
from tests.conftest import fixtures_dir
from tests.store.support import db_snapshot, file_digest, open_store, populate, sidecars

# JavaScript's String.prototype.trim set (SPEC §10).
JS_TRIMMED = [
    "\t", "\n", "\x0b", "\x0c", "\r", " ", "\u00a0", "\u1680",
    *[chr(c) for c in range(0x2000, 0x200B)],
    "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff",
]  # fmt: skip
# Characters Python's str.strip (or str.isspace) treats as space but JS trim keeps.
NOT_TRIMMED = ["\u200b", "\u0085", "\x1c", "\x1d", "\x1e", "\x1f"]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def store(db: Path) -> Iterator[Store]:
    s = open_store(db)
    populate(s)
    yield s
    s.close()


def refused(
    store: Store,
    call: Callable[[], Any],
    error: type[Exception],
    *fields: str,
    consumes: int = 0,
) -> str:
    """Run a call that must fail; check the error, the named fields, the file and the clock."""
    before = db_snapshot(store.path)
    peek = store.clock.peek()
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    assert type(info.value) is error, message
    assert info.value.code == error.code  # type: ignore[attr-defined]
    assert "\n" not in message
    for name in fields:
        assert name in message, f"{name!r} not named in: {message}"
    assert db_snapshot(store.path) == before, "a refused call changed the file"
    clock = FakeClock(peek, 1000)
    for _ in range(consumes):
        clock.now()
    assert store.clock.peek() == clock.peek(), "timestamps consumed differ from the reference"
    return message


# --- remember: text fields ------------------------------------------------------------


@pytest.mark.parametrize("field", ["subject", "fact"])
@pytest.mark.parametrize(
    "blank", ["", " ", "\t\n", "\u00a0", "\u3000", "\ufeff", "".join(JS_TRIMMED)]
)
def test_remember_refuses_empty_or_js_whitespace_text(store: Store, field: str, blank: str) -> None:
    args = {"subject": "s", "fact": "f", field: blank}
    refused(store, lambda: store.remember(args["subject"], args["fact"]), InvalidInput, field)


@pytest.mark.parametrize("field", ["subject", "fact"])
@pytest.mark.parametrize("value", [None, 5, b"bytes"])
def test_remember_refuses_non_string_text(store: Store, field: str, value: object) -> None:
    args: dict[str, Any] = {"subject": "s", "fact": "f", field: value}
    refused(store, lambda: store.remember(args["subject"], args["fact"]), InvalidInput, field)


@pytest.mark.parametrize("ws", JS_TRIMMED)
def test_remember_trims_each_js_whitespace_character(store: Store, ws: str) -> None:
    fid, _ = store.remember(f"{ws}subj{ws}", f"{ws}the fact{ws}", predicate=f"{ws}p{ws}")
    f = store.get(fid)
    assert (f.subject, f.fact, f.predicate) == ("subj", "the fact", "p")


@pytest.mark.parametrize("ch", NOT_TRIMMED)
def test_remember_keeps_characters_js_trim_keeps(store: Store, ch: str) -> None:
    """U+200B, U+0085 and U+001C–U+001F are not trimmed (Python's str.strip would)."""
    fid, _ = store.remember(ch, f"{ch}fact{ch}")
    f = store.get(fid)
    assert (f.subject, f.fact) == (ch, f"{ch}fact{ch}")


def test_zero_width_space_alone_is_a_valid_subject(store: Store) -> None:
    fid, _ = store.remember("\u200b", "invisible subject")
    assert store.get(fid).subject == "\u200b"


def test_source_ref_and_agent_are_stored_verbatim(store: Store) -> None:
    fid, _ = store.remember("s", "f", source_ref="  ref \u3000", source_agent=" agent\t")
    f = store.get(fid)
    assert (f.source_ref, f.source_agent) == ("  ref \u3000", " agent\t")


# --- remember: numbers and kind -------------------------------------------------------


@pytest.mark.parametrize(
    "value", [-0.01, 1.01, -1, 2, float("nan"), float("inf"), True, False, "0.5", None]
)
def test_remember_refuses_bad_confidence(store: Store, value: object) -> None:
    refused(store, lambda: store.remember("s", "f", confidence=value), InvalidInput, "confidence")  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [0, 1, 0.0, 1.0, 0.5])
def test_remember_accepts_confidence_bounds(store: Store, value: float) -> None:
    fid, _ = store.remember("s", "f", confidence=value)
    assert store.get(fid).confidence == float(value)


@pytest.mark.parametrize(
    "value", [0, 11, -1, 5.5, 0.0, 10.5, True, False, "5", None, float("nan"), float("inf")]
)
def test_remember_refuses_bad_importance(store: Store, value: object) -> None:
    refused(store, lambda: store.remember("s", "f", importance=value), InvalidInput, "importance")  # type: ignore[arg-type]


@pytest.mark.parametrize(("value", "stored"), [(5.0, 5), (1, 1), (10, 10), (10.0, 10)])
def test_remember_accepts_integral_importance(store: Store, value: float, stored: int) -> None:
    fid, _ = store.remember("s", "f", importance=value)  # type: ignore[arg-type]
    f = store.get(fid)
    assert f.importance == stored and type(f.importance) is int
    sql_type = store.conn.execute("SELECT typeof(importance) FROM facts WHERE id = ?", (fid,))
    assert sql_type.fetchone()[0] == "integer"


@pytest.mark.parametrize("value", ["Semantic", "", "fact", None, 1])
def test_remember_refuses_bad_kind(store: Store, value: object) -> None:
    refused(store, lambda: store.remember("s", "f", kind=value), InvalidInput, "kind")  # type: ignore[arg-type]


# --- valid_from: rejected forms (SPEC §4, §11) ----------------------------------------

BAD_DATES = [
    "2026-02-30",  # reference rolls over to March 2
    "2026-02-29",  # not a leap year
    "2026-04-31",
    "2026-01-05T24:00",  # reference rolls over to the next day
    "2026-01-05T24:00:00.000Z",
    "2026-13-45T99:99:99.999Z",  # reference stores this canonical-shaped string verbatim
    "2026-01-05T10:60:00Z",
    "2026-01-05T10:00:60Z",
    "2026-00-10",
    "0000-01-01",  # year 0
    "0000-12-31T23:59:59.999Z",
    "10000-01-01",  # 5-digit year (reference writes +010000-…)
    "+010000-01-01T00:00:00.000Z",
    "-000001-01-01T00:00:00.000Z",
    "9999-12-31T23:00:00-01:00",  # converts past year 9999
    "0001-01-01T00:30:00+01:00",  # converts before year 1
    "2026-01-05T10:00:00+24:00",
    "2026-01-05T10:00:00+05:60",  # an offset's minutes stop at 59
    "2026-01-05T10:00:00-0099",
    "2026-1-5",
    "20260105",
    "2026/01/05",
    "yesterday",
    "",
    "   ",
    "2026-01-05T10",
    "2026-01-05T10:00:00ZZ",
]


@pytest.mark.parametrize("text", BAD_DATES)
def test_spec11_remember_rejects_impossible_or_malformed_valid_from(
    store: Store, text: str
) -> None:
    """SPEC §11: the reference rolls these over or stores them; we refuse them.

    A bad valid_from is detected after remember took its timestamp (consumes one).
    """
    refused(
        store, lambda: store.remember("s", "f", valid_from=text), InvalidInput, "valid_from",
        consumes=1,
    )  # fmt: skip


@pytest.mark.parametrize("value", [20260105, 1.5, True, b"2026-01-05"])
def test_remember_rejects_non_string_valid_from(store: Store, value: object) -> None:
    with pytest.raises(InvalidInput, match="valid_from"):
        store.remember("s", "f", valid_from=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", BAD_DATES)
def test_spec11_normalize_iso_rejects_what_the_reference_rolls_over(text: str) -> None:
    with pytest.raises(InvalidInput, match="when"):
        normalize_iso(text, "when")


GOOD_DATES = [
    ("2026-03-04", "2026-03-04T00:00:00.000Z"),  # bare date: midnight UTC
    ("2024-02-29", "2024-02-29T00:00:00.000Z"),  # a real leap day
    ("2026-03-04T05:06", "2026-03-04T05:06:00.000Z"),
    ("2026-03-04T05:06:07", "2026-03-04T05:06:07.000Z"),  # no offset: UTC
    ("2026-03-04T05:06:07Z", "2026-03-04T05:06:07.000Z"),
    ("2026-03-04T05:06:07.1Z", "2026-03-04T05:06:07.100Z"),
    ("2026-03-04T05:06:07.12Z", "2026-03-04T05:06:07.120Z"),
    ("2026-03-04T05:06:07.123456789Z", "2026-03-04T05:06:07.123Z"),  # dropped,
    ("2026-03-04T05:06:07.9999Z", "2026-03-04T05:06:07.999Z"),  # not rounded
    ("2026-03-04T01:00:00+02:00", "2026-03-03T23:00:00.000Z"),
    ("2026-03-04T23:30:00-05:30", "2026-03-05T05:00:00.000Z"),
    ("2026-03-04T01:00:00.5+0200", "2026-03-03T23:00:00.500Z"),
    ("2026-12-31T23:59:59.999-00:01", "2027-01-01T00:00:59.999Z"),
    ("0001-01-01", "0001-01-01T00:00:00.000Z"),  # fixed width: 4-digit year
    ("0999-05-01T12:00:00Z", "0999-05-01T12:00:00.000Z"),
    ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"),
]


@pytest.mark.parametrize(("text", "canonical"), GOOD_DATES)
def test_valid_from_is_normalized_to_canonical_utc(store: Store, text: str, canonical: str) -> None:
    fid, tx = store.remember("s", "f", valid_from=text)
    f = store.get(fid)
    assert f.valid_from == canonical
    assert f.tx_at == tx


def test_no_offset_means_utc_not_machine_local(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TZ", "America/St_Johns")  # UTC-03:30, never equal to UTC
    time.tzset()
    try:
        fid, _ = store.remember("s", "f", valid_from="2026-03-04T05:06:07")
        assert store.get(fid).valid_from == "2026-03-04T05:06:07.000Z"
        fid, _ = store.remember("s", "f", valid_from="2026-03-04")
        assert store.get(fid).valid_from == "2026-03-04T00:00:00.000Z"
    finally:
        monkeypatch.undo()  # restore the original TZ, then re-read it
        time.tzset()


def test_remember_valid_from_defaults_to_tx_at(store: Store) -> None:
    fid, tx = store.remember("s", "f")
    assert store.get(fid).valid_from == tx


# --- revise ---------------------------------------------------------------------------


def test_revise_unknown_id_is_not_found(store: Store) -> None:
    msg = refused(store, lambda: store.revise(999, "x"), NotFound, "#999")
    assert "999" in msg


@pytest.mark.parametrize("value", ["1", 1.0, True, None])
def test_revise_refuses_a_non_integer_id(store: Store, value: object) -> None:
    refused(store, lambda: store.revise(value, "x"), InvalidInput, "old_id")  # type: ignore[arg-type]


@pytest.mark.parametrize("blank", ["", "  ", "\u3000\ufeff"])
def test_revise_refuses_blank_new_fact(store: Store, blank: str) -> None:
    refused(store, lambda: store.revise(4, blank), InvalidInput, "new_fact")


@pytest.mark.parametrize("value", [1.5, -0.1, float("nan"), True, "1"])
def test_revise_refuses_bad_confidence(store: Store, value: object) -> None:
    refused(store, lambda: store.revise(4, "x", confidence=value), InvalidInput, "confidence")  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [0, 11, 5.5, True, "5"])
def test_revise_refuses_bad_importance(store: Store, value: object) -> None:
    refused(store, lambda: store.revise(4, "x", importance=value), InvalidInput, "importance")  # type: ignore[arg-type]


def test_revise_refuses_bad_kind(store: Store) -> None:
    refused(store, lambda: store.revise(4, "x", kind="opinion"), InvalidInput, "kind")


@pytest.mark.parametrize("old", [1, 2])
def test_revise_of_superseded_row_names_the_head_and_quotes_it(store: Store, old: int) -> None:
    """Chain #1 → #2 → #3: revising #1 or #2 names #3 and quotes its text."""
    msg = refused(store, lambda: store.revise(old, "sessions use opaque tokens"), InvalidInput)
    assert "#3" in msg
    assert '"sessions use JWT with rotation"' in msg


def test_revise_valid_from_in_the_future_is_refused(store: Store) -> None:
    """Consumes one timestamp (the tx_at it is compared to) and rolls back."""
    refused(
        store, lambda: store.revise(5, "x", valid_from="2027-01-01"), InvalidInput, "valid_from",
        consumes=1,
    )  # fmt: skip


def test_revise_valid_from_one_ms_after_tx_at_is_refused(store: Store) -> None:
    next_tx = store.clock.peek()
    after = next_tx[:-4] + f"{int(next_tx[-4:-1]) + 1:03d}Z"
    refused(
        store, lambda: store.revise(5, "x", valid_from=after), InvalidInput, "valid_from",
        consumes=1,
    )  # fmt: skip


def test_revise_valid_from_equal_to_tx_at_is_accepted(store: Store) -> None:
    next_tx = store.clock.peek()
    old, new, tx = store.revise(5, "replica lags by 1s", valid_from=next_tx)
    assert tx == next_tx and store.get(new).valid_from == tx and store.get(old).valid_to == tx


def test_revise_cannot_backdate_below_a_backdated_old_fact(store: Store) -> None:
    """#4 was backdated to 2025-12-01; its correction may not start before that."""
    msg = refused(
        store,
        lambda: store.revise(4, "primary is postgres 16", valid_from="2025-11-30T23:59:59.999Z"),
        InvalidInput,
        "valid_from",
        "2025-12-01T00:00:00.000Z",
        consumes=1,
    )
    assert "backdate" in msg


def test_revise_may_start_exactly_at_a_backdated_old_fact(store: Store) -> None:
    old, new, _ = store.revise(4, "primary is postgres 16", valid_from="2025-12-01")
    assert store.get(new).valid_from == "2025-12-01T00:00:00.000Z"
    assert store.get(old).valid_to == "2025-12-01T00:00:00.000Z"


def test_revise_may_backdate_below_an_old_fact_that_was_not_backdated(store: Store) -> None:
    """The reference only guards backdated old rows; keep its behaviour."""
    old, new, _ = store.revise(5, "replica lag was always 1s", valid_from="2025-06-01")
    assert store.get(new).valid_from == "2025-06-01T00:00:00.000Z"
    assert store.get(old).valid_to == "2025-06-01T00:00:00.000Z"


@pytest.mark.parametrize("text", ["2026-02-30", "2026-01-05T24:00", "soon"])
def test_spec11_revise_rejects_impossible_valid_from(store: Store, text: str) -> None:
    refused(
        store, lambda: store.revise(5, "x", valid_from=text), InvalidInput, "valid_from",
        consumes=1,
    )  # fmt: skip


def test_revise_does_not_inherit_confidence_or_pin(store: Store) -> None:
    fid, _ = store.remember(
        "s", "f", confidence=0.3, importance=8, kind="procedural",
        source_commit="a" * 40, source_path="src/x.py",
    )  # fmt: skip
    _, new, _ = store.revise(fid, "g")
    f = store.get(new)
    assert (f.confidence, f.importance, f.kind) == (1.0, 8, "procedural")
    assert (f.source_commit, f.source_path) == (None, None)


# --- forget ---------------------------------------------------------------------------


@pytest.mark.parametrize("blank", ["", " ", "\t\n", "\u3000", "\ufeff\u00a0"])
def test_forget_refuses_empty_or_blank_source_ref(store: Store, blank: str) -> None:
    """Refused (it would retract everything); like the reference, it still takes a timestamp."""
    refused(store, lambda: store.forget(source_ref=blank), InvalidInput, "source_ref", consumes=1)


def test_forget_needs_an_id_or_a_source_ref(store: Store) -> None:
    refused(store, lambda: store.forget(), InvalidInput, "fact_id", "source_ref", consumes=1)


@pytest.mark.parametrize("value", ["5", 5.0, True])
def test_forget_refuses_a_non_integer_id(store: Store, value: object) -> None:
    refused(store, lambda: store.forget(fact_id=value), InvalidInput, "fact_id", consumes=1)  # type: ignore[arg-type]


def test_forget_twice_is_a_no_op(store: Store) -> None:
    assert store.forget(fact_id=5) == (1, [5])
    first = store.get(5).retracted_at
    before = db_snapshot(store.path)
    assert store.forget(fact_id=5) == (0, [])
    assert db_snapshot(store.path) == before
    assert store.get(5).retracted_at == first


def test_forget_by_source_ref_twice_is_a_no_op(store: Store) -> None:
    assert store.forget(source_ref="session-1") == (1, [5])
    before = db_snapshot(store.path)
    assert store.forget(source_ref="session-1") == (0, [])
    assert db_snapshot(store.path) == before


def test_forget_trims_the_given_source_ref_then_matches_exactly(store: Store) -> None:
    a, _ = store.remember("s", "exact", source_ref="ref-a")
    b, _ = store.remember("s", "padded", source_ref=" ref-a ")
    assert store.forget(source_ref="\u3000ref-a\t") == (1, [a])
    assert store.get(b).retracted_at is None


# --- recall ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, -1, "8", 2.5, 8.5, True])
def test_recall_refuses_bad_limit(store: Store, value: object) -> None:
    refused(store, lambda: store.recall("jwt", limit=value), InvalidInput, "limit")  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [0, -3, "100", 1.5, False])
def test_recall_refuses_bad_max_tokens(store: Store, value: object) -> None:
    refused(store, lambda: store.recall("jwt", max_tokens=value), InvalidInput, "max_tokens")  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["2026-02-30", "2026-13-45T99:99:99.999Z", "now", "", 5])
def test_recall_refuses_bad_as_of(store: Store, value: object) -> None:
    refused(store, lambda: store.recall(as_of=value), InvalidInput, "as_of")  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["Episodic", "fact", ""])
def test_recall_refuses_bad_kind(store: Store, value: str) -> None:
    refused(store, lambda: store.recall(kind=value), InvalidInput, "kind")


@pytest.mark.parametrize("value", ["fresh", "STALE", ""])
def test_recall_refuses_bad_freshness(store: Store, value: str) -> None:
    refused(store, lambda: store.recall(freshness=value), InvalidInput, "freshness")


def test_recall_as_of_is_normalized(store: Store) -> None:
    r = store.recall(as_of="2026-01-05T11:00:00+02:00")
    assert r.as_of == "2026-01-05T09:00:00.000Z"
    assert r.facts == [] or all(f.tx_at <= r.as_of for f in r.facts)


def test_recall_never_writes_without_reinforce(store: Store) -> None:
    before = db_snapshot(store.path)
    assert store.recall("jwt").facts
    assert store.recall().facts
    store.recall(as_of="2026-01-05T09:00:05Z")
    assert db_snapshot(store.path) == before


# Facts whose words look like FTS5 syntax: each query below must be an FTS hit (never the
# substring fallback) on exactly these rows. Unquoted, FTS5 would read NOT, col:, NEAR(…),
# tea* and ( as operators, and the store's catch-all fallback would hide the syntax error.
SYNTAX_FACTS = {
    "not-tea": ("user", "drinks coffee, not tea"),
    "green-tea": ("user", "likes green tea"),
    "team": ("user", "the team meets on Monday"),
    "project": ("project:memharness", "uses SQLite full-text search"),
    "quoted": ("docs", 'the "quoted" word stays literal'),
    "open-quote": ("docs", 'she said "hi to everyone'),
    "rerun": ("ci", "a re-run of the flaky job"),
    "draft": ("docs", "the report (draft v2) is shared"),
    "near": ("travel", "the bakery near cafe Luna, by the station"),
    "cafe": ("travel", "the cafe by the station"),
}
SYNTAX_QUERIES = [
    ("NOT tea", ["not-tea"]),  # NOT is a word, not an operator
    ("coffee NOT tea", ["not-tea"]),  # not "coffee AND NOT tea" (which finds nothing here)
    ("project:memharness", ["project"]),  # not a column filter on a column "project"
    ('"quoted"', ["quoted"]),  # quotes inside a token are doubled, not phrase delimiters
    ('said "hi', ["open-quote"]),  # an unbalanced quote
    ("re-run", ["rerun"]),
    ("tea*", ["green-tea", "not-tea"]),  # the word tea, not the prefix (team)
    ("(draft", ["draft"]),  # an unbalanced parenthesis
    ("NEAR(cafe station)", ["near"]),  # the words "near cafe" and station, not a NEAR group
]


@pytest.mark.parametrize(("query", "expected"), SYNTAX_QUERIES, ids=[q for q, _ in SYNTAX_QUERIES])
def test_recall_with_any_query_text_is_never_a_syntax_error(
    db: Path, query: str, expected: list[str]
) -> None:
    with open_store(db) as s:
        ids = {name: s.remember(subj, text)[0] for name, (subj, text) in SYNTAX_FACTS.items()}
        r = s.recall(query, limit=20)
    assert not r.used_fallback, query
    assert sorted(r.ids) == sorted(ids[name] for name in expected), query


def test_recall_tries_the_words_or_ed_before_the_substring_fallback(db: Path) -> None:
    """SPEC §7: no fact holds every word, so the words are tried OR-ed (still FTS)."""
    with open_store(db) as s:
        ids = {name: s.remember(subj, text)[0] for name, (subj, text) in SYNTAX_FACTS.items()}
        r = s.recall("coffee station", limit=20)
    assert not r.used_fallback
    assert sorted(r.ids) == sorted([ids["not-tea"], ids["near"], ids["cafe"]])


@pytest.mark.parametrize("query", ['"', 'a"b', "AND OR NOT", "(", "*", "col:x", "100%_\\"])
def test_recall_of_pure_syntax_finds_nothing_and_raises_nothing(store: Store, query: str) -> None:
    """No fact holds these strings: the answer is empty, and never an error."""
    r = store.recall(query)
    assert r.ids == []


def test_like_fallback_escapes_percent_underscore_and_backslash(db: Path) -> None:
    """SPEC §7: the LIKE fallback escapes \\, % and _ — each matches only itself."""
    with open_store(db) as s:
        pct, _ = s.remember("odds", "100% sure")
        und, _ = s.remember("names", "snake_case name")
        bsl, _ = s.remember("paths", "C:\\temp dir")
        s.remember("plain", "nothing special here at all")
        for query, expected in (("%", [pct]), ("_", [und]), ("\\", [bsl]), ("0%", [pct])):
            r = s.recall(query)
            assert r.used_fallback, query
            assert r.ids == expected, query


# --- why, diff, get, staleness writer ---------------------------------------------------


def test_why_and_get_of_an_unknown_id_are_not_found(store: Store) -> None:
    refused(store, lambda: store.why(999), NotFound, "#999")
    refused(store, lambda: store.get(0), NotFound, "#0")


def test_diff_since_is_inclusive_for_learned_revised_and_retracted(db: Path) -> None:
    """SPEC §7: learned tx_at ≥ since, revised valid_to ≥ since, retracted_at ≥ since."""
    with open_store(db) as s:
        first, _ = s.remember("x", "first")
        _, second, t_revise = s.revise(first, "second")  # first's valid_to = t_revise
        temp, _ = s.remember("x", "temp")
        s.forget(fact_id=temp)
        t_forget = s.get(temp).retracted_at
        assert t_forget is not None and t_forget > t_revise
        d = s.diff(t_revise)
        assert [f.id for f in d.learned] == [second]  # temp is retracted: not learned
        assert [(p.old.id, p.new.id if p.new else None) for p in d.revised] == [(first, second)]
        assert [f.id for f in d.retracted] == [temp]
        d = s.diff(t_forget)
        assert (d.learned, d.revised, [f.id for f in d.retracted]) == ([], [], [temp])


@pytest.mark.parametrize("since", ["2026-02-30", "last week", "", None])
def test_diff_refuses_a_bad_since(store: Store, since: object) -> None:
    refused(store, lambda: store.diff(since), InvalidInput, "since")  # type: ignore[arg-type]


def test_set_staleness_refuses_bad_freshness_and_checked_at(store: Store) -> None:
    refused(
        store, lambda: store.set_staleness(5, "fresh", "2026-02-01", "b" * 40), InvalidInput,
        "freshness",
    )  # fmt: skip
    refused(
        store, lambda: store.set_staleness(5, "stale", "2026-02-30", "b" * 40), InvalidInput,
        "checked_at",
    )  # fmt: skip


def test_set_staleness_many_is_all_or_nothing(store: Store) -> None:
    """A batch with an unknown id writes none of its verdicts (one transaction)."""
    batch = [
        StalenessUpdate(5, "stale", "2026-02-01", "b" * 40),
        StalenessUpdate(999, "stale", "2026-02-01", "b" * 40),
    ]
    refused(store, lambda: store.set_staleness_many(batch), NotFound, "#999")
    assert store.get(5).freshness is None


# --- token budget ---------------------------------------------------------------------


def _one_fact_store(db: Path, subject: str, fact: str, predicate: str = "") -> Store:
    s = open_store(db)
    s.remember(subject, fact, predicate=predicate)
    return s


def test_max_tokens_counts_utf16_units_so_an_emoji_costs_two(db: Path) -> None:
    """'e 😀😀😀😀' is 10 UTF-16 units → 3 tokens (Python's len would say 6 → 2)."""
    with _one_fact_store(db, "e", "😀😀😀😀") as s:
        r = s.recall(max_tokens=2)
        assert (r.ids, r.truncated) == ([], True)
        r = s.recall(max_tokens=3)
        assert (r.ids, r.truncated) == ([1], False)


def test_max_tokens_skips_an_empty_predicate_when_joining(db: Path) -> None:
    """'abc defg' is 8 → 2 tokens; a doubled space for the empty predicate would be 3."""
    with _one_fact_store(db, "abc", "defg") as s:
        r = s.recall(max_tokens=2)
        assert (r.ids, r.truncated) == ([1], False)


def test_max_tokens_includes_a_non_empty_predicate(db: Path) -> None:
    """'ab cd ef' is 8 → 2 tokens; 'ab cd ef g' is 10 → 3."""
    with _one_fact_store(db, "ab", "ef g", predicate="cd") as s:
        assert s.recall(max_tokens=2).truncated
        assert s.recall(max_tokens=3).ids == [1]


def test_max_tokens_stops_at_the_first_fact_that_does_not_fit(db: Path) -> None:
    with open_store(db) as s:
        big, _ = s.remember("s", "x" * 40, importance=10)  # 'x'*40 + 's ' = 42 → 11 tokens
        small, _ = s.remember("s", "y", importance=1)  # 's y' → 1 token
        r = s.recall(max_tokens=10)
        assert (r.ids, r.truncated) == ([], True)
        r = s.recall(max_tokens=11)
        assert (r.ids, r.truncated) == ([big], True)
        r = s.recall(max_tokens=12)
        assert (r.ids, r.truncated) == ([big, small], False)


# --- opening ----------------------------------------------------------------------------


def assert_no_wal_content(path: Path) -> None:
    """A reader of a WAL-mode file may leave an empty -wal (and -shm) beside it; nothing more."""
    wal = Path(f"{path}-wal")
    assert not wal.exists() or wal.stat().st_size == 0, f"{wal} holds {wal.stat().st_size} bytes"


def _too_new_copy_of_v5(tmp_path: Path) -> Path:
    target = tmp_path / "v5.db"
    shutil.copyfile(fixtures_dir() / "v5.db", target)
    conn = sqlite3.connect(target)
    conn.execute("PRAGMA user_version = 6")
    conn.commit()
    conn.close()
    return target


def test_too_new_file_is_refused_and_left_byte_identical(tmp_path: Path) -> None:
    path = _too_new_copy_of_v5(tmp_path)
    digest = file_digest(path)
    with pytest.raises(SchemaTooNew) as info:
        Store.open(str(path))
    assert info.value.code == "SCHEMA_TOO_NEW"
    assert "6" in str(info.value) and "\n" not in str(info.value)
    assert file_digest(path) == digest
    assert_no_wal_content(path)


def test_too_new_file_is_refused_read_only_too(tmp_path: Path) -> None:
    path = _too_new_copy_of_v5(tmp_path)
    digest = file_digest(path)
    with pytest.raises(SchemaTooNew):
        Store.open(str(path), readonly=True)
    assert file_digest(path) == digest


def _rollback_journal_db(path: Path, version: int, *, memharness_like: bool) -> Path:
    """A file in SQLite's default rollback-journal mode (as most tools leave one)."""
    conn = sqlite3.connect(path)
    if memharness_like:
        conn.execute("CREATE TABLE facts (id INTEGER PRIMARY KEY, subject TEXT, fact TEXT)")
    else:
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        conn.execute("INSERT INTO notes (body) VALUES ('mine, not yours')")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()
    return path


def test_too_new_file_in_rollback_journal_mode_is_left_byte_identical(tmp_path: Path) -> None:
    """SPEC §3: above 5, refuse and leave the file untouched — journal mode included."""
    path = _rollback_journal_db(tmp_path / "future.db", 6, memharness_like=True)
    digest = file_digest(path)
    with pytest.raises(SchemaTooNew):
        Store.open(str(path))
    assert file_digest(path) == digest, "the refused file was rewritten (journal mode → WAL?)"


def test_foreign_sqlite_file_with_user_version_0_is_refused_untouched(tmp_path: Path) -> None:
    path = _rollback_journal_db(tmp_path / "other.db", 0, memharness_like=False)
    digest = file_digest(path)
    with pytest.raises(StoreOpenError) as info:
        Store.open(str(path))
    assert "not a memharness store" in str(info.value) and "\n" not in str(info.value)
    assert file_digest(path) == digest, "the refused file was rewritten (journal mode → WAL?)"
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["notes"]
    conn.close()


@pytest.mark.parametrize(
    "content",
    [
        os.urandom(8192),
        b"SQLite format 3\x00" + os.urandom(4080),  # right magic, garbage header
        b"hello, I am a text file\n" * 200,
        b'{"facts": []}\n',
    ],
    ids=["random-bytes", "corrupt-header", "text", "json"],
)
def test_corrupt_or_non_sqlite_file_gives_one_clear_line(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "memory.db"
    path.write_bytes(content)
    for readonly in (False, True):
        with pytest.raises(StoreOpenError) as info:
            Store.open(str(path), readonly=readonly)
        message = str(info.value)
        assert "\n" not in message and str(path) in message
        assert "Traceback" not in message
        assert path.read_bytes() == content
        assert sidecars(path) == []


@pytest.mark.parametrize("readonly", [False, True])
@pytest.mark.parametrize("leftover", [(), ("-wal",), ("-wal", "-shm")])
def test_a_damaged_header_that_says_wal_leaves_no_sidecars(
    tmp_path: Path, readonly: bool, leftover: tuple[str, ...]
) -> None:
    """A header with WAL's version bytes (18, 19 = 2) over pages of zeros: SQLite creates an
    empty -wal and -shm before it finds the file unusable. "Nothing was changed" must be
    true, so the open removes what it made, and only that (a -wal or -shm already there is
    someone's and stays; the -wal byte for byte)."""
    path = tmp_path / "memory.db"
    content = b"SQLite format 3\x00" + bytes([0x10, 0x00, 2, 2]) + bytes(4076)
    path.write_bytes(content)
    kept = {}
    for suffix in leftover:
        side = Path(f"{path}{suffix}")
        side.write_bytes(b"")
        kept[suffix] = side.read_bytes()
    with pytest.raises(StoreOpenError) as info:
        Store.open(str(path), readonly=readonly)
    assert "nothing was changed" in str(info.value)
    assert path.read_bytes() == content
    assert sidecars(path) == sorted(kept)
    if "-wal" in kept:  # (a -shm is SQLite's shared index, rewritten by every reader)
        assert Path(f"{path}-wal").read_bytes() == kept["-wal"]


def test_read_only_open_of_a_missing_path_does_not_create_it(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "memory.db"
    with pytest.raises(StoreOpenError) as info:
        Store.open(str(path), readonly=True)
    assert str(path) in str(info.value)
    assert not path.exists() and not path.parent.exists()


def test_read_only_store_refuses_every_write(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    with open_store(path) as s:
        populate(s)
    before = db_snapshot(path)
    with Store.open(str(path), clock=FakeClock("2026-02-01", 1000), readonly=True) as ro:
        calls: list[Callable[[], Any]] = [
            lambda: ro.remember("s", "f"),
            lambda: ro.revise(5, "x"),
            lambda: ro.forget(fact_id=5),
            lambda: ro.forget(source_ref="session-1"),
            lambda: ro.recall("jwt", reinforce=True),
            lambda: ro.set_staleness(5, "stale", "2026-02-01", "b" * 40),
        ]
        for call in calls:
            with pytest.raises(ReadOnlyError) as info:
                call()
            assert info.value.code == "READ_ONLY"
        assert ro.recall("jwt").ids  # reading still works
    assert db_snapshot(path) == before


def test_read_only_open_does_not_migrate_an_old_file(tmp_path: Path) -> None:
    path = tmp_path / "v4.db"
    shutil.copyfile(fixtures_dir() / "v4.db", path)
    digest = file_digest(path)
    with pytest.raises(StoreOpenError):
        Store.open(str(path), readonly=True)
    assert file_digest(path) == digest


# --- text formats (SPEC §9); every expected string is written out by hand ----------------

SHA = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"


def mk(fid: int = 1, **over: Any) -> Fact:
    base: dict[str, Any] = {
        "id": fid,
        "subject": "auth",
        "predicate": "",
        "fact": "sessions use JWT",
        "confidence": 1.0,
        "valid_from": "2026-01-02T03:04:05.000Z",
        "valid_to": None,
        "tx_at": "2026-01-05T09:00:00.000Z",
        "superseded_by": None,
        "source_agent": "",
        "source_ref": "",
        "retracted_at": None,
        "importance": 5,
        "kind": "semantic",
    }
    base.update(over)
    return Fact(**base)


FMT_FACT_CASES = [
    (mk(), False, "[#1] auth : sessions use JWT  {conf=1.00, src=unknown}"),
    (
        mk(predicate="method", source_agent="claude"),
        False,
        "[#1] auth (method) : sessions use JWT  {conf=1.00, src=claude}",
    ),
    (mk(confidence=0.125), False, "[#1] auth : sessions use JWT  {conf=0.13, src=unknown}"),
    (mk(confidence=0.375), False, "[#1] auth : sessions use JWT  {conf=0.38, src=unknown}"),
    (mk(confidence=0.625), False, "[#1] auth : sessions use JWT  {conf=0.63, src=unknown}"),
    # 0.995 and 0.045 are just below the half in binary: JS toFixed rounds them down
    (mk(confidence=0.995), False, "[#1] auth : sessions use JWT  {conf=0.99, src=unknown}"),
    (mk(confidence=0.045), False, "[#1] auth : sessions use JWT  {conf=0.04, src=unknown}"),
    (mk(confidence=0.0), False, "[#1] auth : sessions use JWT  {conf=0.00, src=unknown}"),
    (mk(confidence=0.5), False, "[#1] auth : sessions use JWT  {conf=0.50, src=unknown}"),
    (
        mk(source_ref="session-1", source_commit=SHA),
        False,
        "[#1] auth : sessions use JWT  {conf=1.00, src=unknown, ref=session-1, pin=a1b2c3d}",
    ),
    (
        mk(source_commit=SHA, source_path="src/auth.ts", freshness="stale"),
        False,
        "[#1] auth : sessions use JWT  {conf=1.00, src=unknown, pin=src/auth.ts@a1b2c3d, STALE}",
    ),
    (
        mk(source_commit=SHA, freshness="unresolved"),
        False,
        "[#1] auth : sessions use JWT  {conf=1.00, src=unknown, pin=a1b2c3d, stale?}",
    ),
    (
        mk(source_commit=SHA, freshness="current"),
        False,
        "[#1] auth : sessions use JWT  {conf=1.00, src=unknown, pin=a1b2c3d}",
    ),
    (
        mk(importance=1, kind="episodic"),
        False,
        "[#1] auth : sessions use JWT  {conf=1.00, src=unknown, imp=1, kind=episodic}",
    ),
    (
        mk(importance=5, kind="procedural"),
        False,
        "[#1] auth : sessions use JWT  {conf=1.00, src=unknown, kind=procedural}",
    ),
    (
        mk(),
        True,
        "[#1] auth : sessions use JWT  {conf=1.00, src=unknown, "
        "valid 2026-01-02 → now, learned 2026-01-05}",
    ),
    (
        mk(superseded_by=9, valid_to="2026-02-03T00:00:00.000Z"),
        False,
        "[#1] auth : sessions use JWT  {conf=1.00, src=unknown, superseded_by=#9}",
    ),
    (
        mk(retracted_at="2026-02-03T00:00:00.000Z"),
        False,
        "[#1] auth : sessions use JWT  {conf=1.00, src=unknown, RETRACTED}",
    ),
    (
        # every META item at once, in SPEC order
        mk(
            42,
            predicate="method",
            confidence=0.375,
            source_agent="claude",
            source_ref="repo@sha:src/auth.ts",
            source_commit=SHA,
            source_path="src/auth.ts",
            freshness="stale",
            importance=8,
            kind="episodic",
            valid_to="2026-02-03T10:00:00.000Z",
            superseded_by=43,
            retracted_at="2026-02-04T00:00:00.000Z",
        ),
        True,
        "[#42] auth (method) : sessions use JWT  {conf=0.38, src=claude, "
        "ref=repo@sha:src/auth.ts, pin=src/auth.ts@a1b2c3d, STALE, imp=8, kind=episodic, "
        "valid 2026-01-02 → 2026-02-03, learned 2026-01-05, superseded_by=#43, RETRACTED}",
    ),
]


@pytest.mark.parametrize(("fact", "show_time", "expected"), FMT_FACT_CASES)
def test_fmt_fact(fact: Fact, show_time: bool, expected: str) -> None:
    assert formats.fmt_fact(fact, show_time) == expected


def test_fmt_fact_defaults_to_no_times() -> None:
    assert formats.fmt_fact(mk()) == "[#1] auth : sessions use JWT  {conf=1.00, src=unknown}"


def _recall(facts: list[Fact], as_of: str | None = None, truncated: bool = False) -> RecallResult:
    return RecallResult(facts=facts, as_of=as_of, truncated=truncated, used_fallback=False)


DRIFT = (
    "(some pinned facts may have drifted — run memharness-staleness, "
    "or re-verify against current code)"
)


def test_fmt_recall_current() -> None:
    r = _recall([mk(1), mk(2, subject="db", fact="replica lags", importance=7)])
    assert formats.fmt_recall(r) == (
        "Current beliefs:\n"
        "[#1] auth : sessions use JWT  {conf=1.00, src=unknown}\n"
        "[#2] db : replica lags  {conf=1.00, src=unknown, imp=7}"
    )


def test_fmt_recall_as_of_shows_times() -> None:
    r = _recall([mk(1)], as_of="2026-01-10T00:00:00.000Z")
    assert formats.fmt_recall(r) == (
        "Beliefs as of 2026-01-10T00:00:00.000Z:\n"
        "[#1] auth : sessions use JWT  {conf=1.00, src=unknown, "
        "valid 2026-01-02 → now, learned 2026-01-05}"
    )


def test_fmt_recall_empty() -> None:
    assert formats.fmt_recall(_recall([])) == "No matching memories."
    assert (
        formats.fmt_recall(_recall([], as_of="2026-01-10T00:00:00.000Z"))
        == "No matching memories. (as of 2026-01-10T00:00:00.000Z)"
    )


def test_fmt_recall_truncated_note() -> None:
    assert formats.fmt_recall(_recall([mk(1)], truncated=True)) == (
        "Current beliefs:\n"
        "[#1] auth : sessions use JWT  {conf=1.00, src=unknown}\n"
        "(truncated to fit the token budget)"
    )


@pytest.mark.parametrize(("freshness", "flag"), [("stale", "STALE"), ("unresolved", "stale?")])
def test_fmt_recall_drift_note_after_truncation_note(freshness: str, flag: str) -> None:
    r = _recall([mk(1), mk(2, source_commit=SHA, freshness=freshness)], truncated=True)
    assert formats.fmt_recall(r) == (
        "Current beliefs:\n"
        "[#1] auth : sessions use JWT  {conf=1.00, src=unknown}\n"
        f"[#2] auth : sessions use JWT  {{conf=1.00, src=unknown, pin=a1b2c3d, {flag}}}\n"
        "(truncated to fit the token budget)\n" + DRIFT
    )


def test_fmt_recall_no_drift_note_for_current_or_unchecked() -> None:
    r = _recall([mk(1, source_commit=SHA, freshness="current"), mk(2)])
    assert DRIFT not in formats.fmt_recall(r)


def test_fmt_why_with_checked_line_and_chain() -> None:
    w = WhyResult(
        fact=mk(2, fact="v2", checked_head=SHA, checked_at="2026-01-06T10:00:00.000Z"),
        ancestors=[mk(1, fact="v1", superseded_by=2, valid_to="2026-01-03T00:00:00.000Z")],
        descendants=[mk(3, fact="v3", tx_at="2026-01-07T00:00:00.000Z")],
    )
    assert formats.fmt_why(w) == (
        "[#2] auth : v2  {conf=1.00, src=unknown, valid 2026-01-02 → now, learned 2026-01-05}\n"
        "  checked_head a1b2c3d, checked_at 2026-01-06\n"
        "  superseded ← [#1] auth : v1  {conf=1.00, src=unknown, "
        "valid 2026-01-02 → 2026-01-03, learned 2026-01-05, superseded_by=#2}\n"
        "  revised → [#3] auth : v3  {conf=1.00, src=unknown, "
        "valid 2026-01-02 → now, learned 2026-01-07}"
    )


@pytest.mark.parametrize(
    ("over", "line"),
    [
        ({"checked_head": SHA}, "  checked_head a1b2c3d"),
        ({"checked_at": "2026-01-06T10:00:00.000Z"}, "  checked_at 2026-01-06"),
        ({}, None),
    ],
)
def test_fmt_why_checked_line_parts_only_when_set(over: dict[str, Any], line: str | None) -> None:
    head = "[#1] auth : sessions use JWT  {conf=1.00, src=unknown, valid 2026-01-02 → now, learned 2026-01-05}"
    w = WhyResult(fact=mk(1, **over), ancestors=[], descendants=[])
    assert formats.fmt_why(w) == (head if line is None else f"{head}\n{line}")


def test_fmt_diff_all_none() -> None:
    d = DiffResult(since="2026-01-01T00:00:00.000Z", learned=[], revised=[], retracted=[])
    assert formats.fmt_diff(d) == (
        "Memory changes since 2026-01-01T00:00:00.000Z:\n"
        "\n"
        "LEARNED (0):\n"
        "  (none)\n"
        "\n"
        "REVISED (0):\n"
        "  (none)\n"
        "\n"
        "RETRACTED (0):\n"
        "  (none)"
    )


def test_fmt_diff_with_entries_and_a_missing_successor() -> None:
    d = DiffResult(
        since="2026-01-01T00:00:00.000Z",
        learned=[mk(3, fact="v2"), mk(5, subject="db", fact="pg 16")],
        revised=[
            RevisedPair(old=mk(1, fact="v1", superseded_by=3), new=mk(3, fact="v2")),
            RevisedPair(old=mk(2, fact="lost", superseded_by=99), new=None),
        ],
        retracted=[mk(4, fact="scratch", retracted_at="2026-01-06T00:00:00.000Z")],
    )
    assert formats.fmt_diff(d) == (
        "Memory changes since 2026-01-01T00:00:00.000Z:\n"
        "\n"
        "LEARNED (2):\n"
        "  [#3] auth : v2  {conf=1.00, src=unknown}\n"
        "  [#5] db : pg 16  {conf=1.00, src=unknown}\n"
        "\n"
        "REVISED (2):\n"
        "  was: [#1] auth : v1  {conf=1.00, src=unknown, superseded_by=#3}\n"
        "  now: [#3] auth : v2  {conf=1.00, src=unknown}\n"
        "  was: [#2] auth : lost  {conf=1.00, src=unknown, superseded_by=#99}\n"
        "  now: (missing)\n"
        "\n"
        "RETRACTED (1):\n"
        "  [#4] auth : scratch  {conf=1.00, src=unknown, RETRACTED}"
    )


def test_fmt_stats() -> None:
    s = StatsResult(
        db_path="/data/memory.db",
        total_facts=43,
        current_beliefs=30,
        top_subjects=[SubjectCount("auth", 12), SubjectCount("db", 3)],
        schema_version=5,
    )
    assert formats.fmt_stats(s) == (
        "DB: /data/memory.db\n"
        "Total facts ever: 43\n"
        "Current beliefs: 30\n"
        "Top subjects:\n"
        "  auth: 12\n"
        "  db: 3"
    )


def test_fmt_stats_without_subjects() -> None:
    s = StatsResult(
        db_path=":memory:", total_facts=0, current_beliefs=0, top_subjects=[], schema_version=5
    )
    assert formats.fmt_stats(s) == (
        "DB: :memory:\nTotal facts ever: 0\nCurrent beliefs: 0\nTop subjects:"
    )


def test_formats_of_real_store_results(store: Store) -> None:
    """End to end through the Store: recall, why and diff of the populated history."""
    r = store.recall("rotation")
    assert formats.fmt_recall(r) == (
        "Current beliefs:\n"
        "[#3] auth (method) : sessions use JWT with rotation  {conf=1.00, src=unknown}"
    )
    w = store.why(2)
    assert formats.fmt_why(w) == (
        "[#2] auth (method) : sessions use JWT  {conf=1.00, src=unknown, "
        "valid 2026-01-05 → 2026-01-05, learned 2026-01-05, superseded_by=#3}\n"
        "  superseded ← [#1] auth (method) : sessions use cookies  {conf=1.00, src=unknown, "
        "valid 2026-01-05 → 2026-01-05, learned 2026-01-05, superseded_by=#2}\n"
        "  revised → [#3] auth (method) : sessions use JWT with rotation  {conf=1.00, "
        "src=unknown, valid 2026-01-05 → now, learned 2026-01-05}"
    )
    d = store.diff("2026-01-05T09:00:04Z", subject="tmp")
    assert formats.fmt_diff(d) == (
        "Memory changes since 2026-01-05T09:00:04.000Z:\n"
        "\n"
        "LEARNED (0):\n"
        "  (none)\n"
        "\n"
        "REVISED (0):\n"
        "  (none)\n"
        "\n"
        "RETRACTED (1):\n"
        "  [#6] tmp : scratch note  {conf=1.00, src=unknown, ref=scratch, RETRACTED}"
    )
