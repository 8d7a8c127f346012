"""The contradictions kind: current facts of one subject stating different values of one
thing, told apart from agreeing near-duplicates; a labelled set of pairs with floors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memharness_tui.hygiene import scan
from memharness_tui.hygiene.contradictions import disagreement
from memharness_tui.store import FakeClock, Store

PAIRS = json.loads((Path(__file__).parent / "contradictions_pairs.json").read_text("utf-8"))
PAIRS = PAIRS["pairs"]


def test_the_labelled_set_has_both_kinds() -> None:
    assert len(PAIRS) >= 200 and {p["contradicts"] for p in PAIRS} == {True, False}


def test_precision_and_recall_floors_on_the_labelled_pairs() -> None:
    tp = sum(1 for p in PAIRS if p["contradicts"] and disagreement(p["a"], p["b"]))
    fp = sum(1 for p in PAIRS if not p["contradicts"] and disagreement(p["a"], p["b"]))
    positives = sum(1 for p in PAIRS if p["contradicts"])
    assert fp == 0
    assert tp / positives >= 0.9


@pytest.mark.parametrize(("a", "b", "topic", "values"), [
    ("The API listens on port 8080", "The API listens on port 9090", "port", ("8080", "9090")),
    ("The service runs on Python 3.11", "The service runs on Python 3.12", "python",
     ("3.11", "3.12")),
    ("The billing service is owned by Alice", "The billing service is owned by Bob", "by",
     ("alice", "bob")),
])
def test_what_disagrees_is_named(a: str, b: str, topic: str, values: tuple[str, str]) -> None:
    d = disagreement(a, b)
    assert d is not None and (d.topic, (d.a, d.b)) == (topic, values)


def test_agreeing_and_unrelated_facts_are_not_contradictions() -> None:
    assert disagreement("The API listens on port 8080", "The API listens on port 8080 today") \
        is None
    assert disagreement("Backups are kept for 14 days", "Tokens expire after 30 days") is None


def test_the_scan_lists_current_contradictions_by_subject(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "m.db"), clock=FakeClock("2026-01-01T00:00:00.000Z")) as s:
        a, _ = s.remember("project:api", "The API listens on port 8080")
        b, _ = s.remember("project:api", "The API listens on port 9090")
        s.remember("project:web", "The API listens on port 7070")  # another subject
        old, _ = s.remember("project:api", "The service runs on Python 3.10")
        s.revise(old, "The service runs on Python 3.12")  # a revision is not a contradiction
        r = scan(s)
    assert [(c.ids, c.topic, c.values) for c in r.contradictions] == [
        ((a, b), "port", ("8080", "9090"))]
    assert r.to_dict()["contradictions"][0]["ids"] == [a, b]


def test_numbered_items_are_different_items_not_a_disagreement() -> None:
    assert disagreement("Bulk fact number 1 about widgets",
                        "Bulk fact number 2 about widgets") is None
    assert disagreement("Step 2 of the setup installs the tools",
                        "Step 3 of the setup installs the tools") is None
