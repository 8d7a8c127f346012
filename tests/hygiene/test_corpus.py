"""Precision and recall of each detector on a labelled corpus (tests/fixtures/hygiene_corpus.json).

The labels are a person's judgement, committed before any detector ran on the corpus; they
include what the rules cannot see (paraphrases sharing few words, a duplicate filed under
another subject, a pinned code map, a subject spelled differently), so recall is not 1 by
design. The floors are the measured values rounded down; a change that loses any of it fails.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from memharness_tui.hygiene import HygieneReport, scan
from memharness_tui.store import FakeClock, Store

CORPUS = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "hygiene_corpus.json")
                    .read_text(encoding="utf-8"))

#: detector -> (precision floor, recall floor), measured on the corpus and rounded down.
#: Measured: near-duplicate 0.73 / 0.31 (pairs), fragmentation 1.00 / 0.70 (subject pairs),
#: code-map 1.00 / 0.22, compound 0.47 / 0.80 (facts).
FLOORS = {
    "near-duplicate": (0.70, 0.30),
    "fragmentation": (1.00, 0.70),
    "code-map": (1.00, 0.20),
    "compound": (0.45, 0.80),
}


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> tuple[HygieneReport, list[int]]:
    path = tmp_path_factory.mktemp("corpus") / "corpus.db"
    with Store.open(str(path), clock=FakeClock("2026-01-01T00:00:00.000Z")) as store:
        ids = [store.remember(f["subject"], f["fact"], source_commit=f.get("source_commit"))[0]
               for f in CORPUS["facts"]]
        return scan(store), ids


def _pairs(groups: list[list[object]]) -> set[frozenset[object]]:
    return {frozenset(p) for g in groups for p in itertools.combinations(g, 2)}


def _pr(predicted: set[object], labelled: set[object]) -> tuple[float, float]:
    assert predicted and labelled  # no vacuous precision: each detector flags something here
    hit = len(predicted & labelled)
    return hit / len(predicted), hit / len(labelled)


def measure(report: HygieneReport, ids: list[int]) -> dict[str, tuple[float, float]]:
    facts = CORPUS["facts"]
    by_label: dict[str, list[int]] = {}
    for fid, f in zip(ids, facts, strict=True):
        if f["dup"]:
            by_label.setdefault(f["dup"], []).append(fid)
    return {
        "near-duplicate": _pr(_pairs([g.ids for g in report.duplicates]),
                              _pairs(list(by_label.values()))),
        "fragmentation": _pr(_pairs([[s for s, _ in f.subjects] for f in report.fragments]),
                             _pairs(CORPUS["fragments"])),
        "code-map": _pr({f.id for f in report.code_maps},
                        {fid for fid, f in zip(ids, facts, strict=True) if f["code_map"]}),
        "compound": _pr({f.id for f in report.compound + report.over_limit},
                        {fid for fid, f in zip(ids, facts, strict=True) if f["compound"]}),
    }


def test_the_corpus_is_big_enough_and_has_each_kind() -> None:
    facts = CORPUS["facts"]
    assert len(facts) >= 150
    assert sum(1 for f in facts if f["dup"]) >= 40
    assert sum(f["code_map"] for f in facts) >= 10 and sum(f["compound"] for f in facts) >= 8
    assert len(CORPUS["fragments"]) >= 3


@pytest.mark.parametrize("detector", sorted(FLOORS))
def test_precision_and_recall_floors(scanned: tuple[HygieneReport, list[int]], detector: str) -> None:
    precision, recall = measure(*scanned)[detector]
    print(f"{detector}: precision {precision:.2f} recall {recall:.2f}")
    p_floor, r_floor = FLOORS[detector]
    assert precision >= p_floor and recall >= r_floor
