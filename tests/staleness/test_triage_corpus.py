"""Precision and recall of triage on a labelled corpus (a real repo built with the git CLI).

Every fact is pinned at the first commit; the second commit edits the files in
ways that do and do not affect each fact (see triage_corpus.py). The measured
numbers are asserted as floors, and every miss must be one of KNOWN_MISSES,
each with why it is missed.
"""

from __future__ import annotations

import pytest

from memharness_tui.staleness.analysis import Triager
from memharness_tui.staleness.triage import ELSEWHERE, MOVED, TOUCHES, Triage

from .staleness_helpers import Repo
from .triage_corpus import CASES, HEAD_FILES, PIN_FILES, Case

#: (path, fact) → why triage gets it wrong. A new miss fails the test.
KNOWN_MISSES: dict[tuple[str, str], str] = {
    ("auth.py", "SessionStore.expire drops sessions older than SESSION_TTL"): (
        "labelled elsewhere (the fact names SESSION_TTL but says nothing of its value), "
        "flagged touches: an identifier of the fact is on the changed line "
        "`SESSION_TTL = 15 * 60`; telling an incidental mention from a claim needs semantics"
    ),
    ("docs/recall.md", "retracted facts never appear in recall"): (
        "labelled elsewhere, flagged touches: the words `recall` and `facts` are both on the "
        "changed line `Recall returns at most 50 facts`; two plain words are enough evidence "
        "by rule, and in this document they are everywhere"
    ),
    ("limits.py", "allow() refills the bucket at RATE_LIMIT / 60 per second"): (
        "labelled elsewhere, flagged touches: only the comment on the `RATE_LIMIT = 100` line "
        "changed, but a changed line naming an identifier of the fact counts"
    ),
    ("login.py", "login only checks the password, never the account state"): (
        "labelled touches (a lockout check was inserted), flagged elsewhere: only `account` "
        "is on the inserted lines (`PermissionError(\"account locked\")`), and one plain "
        "word is not enough evidence"
    ),
}

#: Misses found by the blind batches and fixed afterwards (kept here so the report is honest):
#: ("login.py", "logout clears user.session") — the owner `user` of a dotted name counted
#: alone and matched `user.locked`; now a dotted name's owner counts alone only when it is
#: itself a compound name (SessionStore), its last part always.
#: ("login.py", "passwords must be at least eight characters") — number words were not read,
#: and a small number needed a neighbour word on the line; now "eight" is 8 and any other
#: word of the fact on the line (`password` in MIN_PASSWORD_LENGTH) is context enough.
FIXED_AFTER_BLIND_RUN = ("logout clears user.session", "passwords must be at least eight characters")

#: measured on this corpus (77 facts: 26 touches, 42 elsewhere, 7 moved, 2 deleted):
#: touches 25/28 flagged right, 25/26 found; elsewhere 39/40 right, 39/42 found.
#: (login.py and jobs.py were labelled before triage ever ran on them; jobs.py: 10/10,
#: login.py: 3/6 on the blind run, 5/6 now.) Raise them when triage improves.
FLOORS = {
    "touches_precision": 0.89,
    "touches_recall": 0.96,
    "elsewhere_precision": 0.97,
    "elsewhere_recall": 0.92,
    "moved_accuracy": 1.0,
}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Case, Triage]]:
    repo = Repo.init(tmp_path_factory.mktemp("corpus") / "repo")
    pin = repo.commit("pin", PIN_FILES)
    repo.commit("edits", HEAD_FILES)
    t = Triager([repo.path])
    return [(c, t.analyse(c.fact, pin, c.path)) for c in CASES]


def _correct(c: Case, r: Triage) -> bool:
    return r.outcome == c.expected and (c.touched is None or r.touched == c.touched)


def _pr(results: list[tuple[Case, Triage]], outcome: str) -> tuple[float, float]:
    tp = sum(1 for c, r in results if c.expected == outcome and r.outcome == outcome)
    flagged = sum(1 for _, r in results if r.outcome == outcome)
    actual = sum(1 for c, _ in results if c.expected == outcome)
    return tp / flagged, tp / actual


def test_corpus_is_big_enough_and_covers_every_kind_of_edit() -> None:
    assert len(CASES) >= 60
    kinds = {c.expected for c in CASES}
    assert kinds == {"touches", "elsewhere", "moved", "deleted"}
    assert any(c.touched for c in CASES) and any(c.touched is False for c in CASES)


def test_precision_and_recall_floors(results: list[tuple[Case, Triage]]) -> None:
    tp, tr = _pr(results, TOUCHES)
    ep, er = _pr(results, ELSEWHERE)
    moved = [(c, r) for c, r in results if c.expected == MOVED]
    moved_acc = sum(_correct(c, r) for c, r in moved) / len(moved)
    measured = {
        "touches_precision": tp,
        "touches_recall": tr,
        "elsewhere_precision": ep,
        "elsewhere_recall": er,
        "moved_accuracy": moved_acc,
    }
    print({k: round(v, 3) for k, v in measured.items()})
    for name, floor in FLOORS.items():
        assert measured[name] >= floor, (name, measured[name])


def test_every_miss_is_known_and_explained(results: list[tuple[Case, Triage]]) -> None:
    misses = {(c.path, c.fact): r.outcome for c, r in results if not _correct(c, r)}
    assert set(misses) <= set(KNOWN_MISSES), sorted(set(misses) - set(KNOWN_MISSES))
    # a known miss that got fixed should be taken off the list (and the floors raised)
    assert set(KNOWN_MISSES) <= set(misses), sorted(set(KNOWN_MISSES) - set(misses))
    fixed = [c for c, _ in results if c.fact in FIXED_AFTER_BLIND_RUN]
    assert len(fixed) == len(FIXED_AFTER_BLIND_RUN)
    assert not [c.fact for c in fixed if (c.path, c.fact) in misses]


def test_touches_evidence_names_the_term_the_line_and_both_sides(
    results: list[tuple[Case, Triage]],
) -> None:
    r = next(r for c, r in results if c.fact == "sessions expire after 30 minutes")
    assert r.outcome == TOUCHES
    assert r.evidence[0] == (
        "`30 minutes` changed on line 6: `SESSION_TTL = 30 * 60 # seconds` → "
        "`SESSION_TTL = 15 * 60 # seconds`"
    )
    first = r.hunks[0]
    assert first.matches >= 1
    removed = next(ln for ln in first.lines if ln.origin == "-" and ln.changed)
    assert any(removed.text[s.start : s.end] in ("30", "30 * 60") for s in removed.spans)


def test_moved_reports_the_new_path_similarity_and_survival(
    results: list[tuple[Case, Triage]],
) -> None:
    same = next(r for c, r in results if c.fact == "FactStore opens sqlite in WAL journal mode")
    assert (same.new_path, same.similarity, same.survived) == ("storage/store.py", 100, True)
    assert same.evidence[0] == "store.py → storage/store.py (100 %)"
    edited = next(r for c, r in results if c.fact.startswith("the LRU cache holds 128"))
    assert edited.new_path == "util/cache.py" and edited.touched
    assert edited.survived is False and "CACHE_SIZE" not in edited.missing
    assert edited.similarity is not None and 50 <= edited.similarity < 100


def test_reformatting_only_is_elsewhere_with_no_changed_lines(
    results: list[tuple[Case, Triage]],
) -> None:
    for c, r in results:
        if c.path == "ranking.py":
            assert r.outcome == ELSEWHERE
            assert r.changed_lines == 0
            assert "only whitespace or formatting changed" in r.summary

