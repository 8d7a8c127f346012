"""Triage pieces: term extraction and normalisation, reformatting, the service and re-pinning."""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.staleness.analysis import Triager, analyse, moved_ref, repin_moved
from memharness_tui.staleness.git import GitChecker
from memharness_tui.staleness.git_changes import path_change
from memharness_tui.staleness.terms import extract_terms, ident_parts, match_line, scan_line
from memharness_tui.staleness.triage import (
    DiffHunk,
    DiffLine,
    PathChange,
    code_span,
    triage,
)

from .staleness_helpers import Repo, make_store, rows


@pytest.mark.parametrize("name", ["session_ttl", "SESSION_TTL", "sessionTtl", "SessionTTL"])
def test_identifier_spellings_normalise_alike(name: str) -> None:
    assert ident_parts(name) == ("session", "ttl")
    hits = match_line(extract_terms(f"`{name}` is set at start"),
                      scan_line("SESSION_TTL_SECONDS = 5"))
    assert [(t.kind, s, e) for t, s, e in hits] == [("identifier", 0, 19)]


def test_terms_of_a_fact() -> None:
    terms = {t.text: t for t in extract_terms(
        'SessionStore.expire runs every 30 minutes on port 8000; header "X-Key"; recallQuery'
    )}
    assert terms["SessionStore.expire"].kind == "identifier"
    assert ("expire",) in terms["SessionStore.expire"].parts
    assert terms["30 minutes"].values == (30.0, 1800.0, 1_800_000.0)
    assert terms["port 8000"].values == (8000.0,)
    assert terms["X-Key"].kind == "quoted"
    assert terms["recallQuery"].parts == (("recall", "query"),)
    assert "minutes" not in terms  # the unit belongs to the number


def test_numbers_match_by_value_and_products_small_ones_need_a_neighbour() -> None:
    thirty = extract_terms("sessions last 30 minutes")
    assert [t.text for t, _, _ in match_line(thirty, scan_line("TTL = 1800"))] == ["30 minutes"]
    assert any(t.text == "30 minutes" for t, _, _ in match_line(thirty, scan_line("x = 30*60")))
    three = extract_terms("requests are retried 3 times")
    assert match_line(three, scan_line("colors = 3")) == []
    assert [t.text for t, _, _ in match_line(three, scan_line("MAX_RETRIES = 3"))][-1] == "retried 3"
    # a number inside an identifier or a hex literal is not the number
    assert match_line(extract_terms("port 8000"), scan_line("v8000 = 0x8000")) == []


def test_number_words_are_numbers() -> None:
    terms = extract_terms("passwords must be at least eight characters; no one else")
    eight = next(t for t in terms if t.text == "eight")
    assert eight.values == (8.0,)
    assert not any(t.kind == "number" and t.text == "one" for t in terms)
    # a small number counts beside another word of the fact (password in the constant)
    assert [t.text for t, _, _ in match_line(terms, scan_line("MIN_PASSWORD_LENGTH = 8"))
            if t.kind == "number"] == ["eight"]


def _change(old: list[str], new: list[str]) -> PathChange:
    lines = tuple([DiffLine("-", i + 1, None, t) for i, t in enumerate(old)]
                  + [DiffLine("+", None, i + 1, t) for i, t in enumerate(new)])
    return PathChange("a.py", "modified", (DiffHunk("a.py", "@@", lines),))


def test_rewrapping_and_quote_style_are_not_changes() -> None:
    r = triage("check_credentials is called with retries=2",
               _change(["return check_credentials(user, 'pw', retries=2)"],
                       ["return check_credentials(", "    user,", '    "pw",', "    retries=2,", ")"]))
    assert r.outcome == "elsewhere" and r.changed_lines == 0


def test_no_path_and_no_pin_are_not_analysed(tmp_path: Path) -> None:
    assert triage("anything", None).outcome == "unknown"
    repo = Repo.init(tmp_path / "r")
    pin = repo.commit("one", {"a.py": "A = 1\n"})
    t = Triager([repo.path, tmp_path / "not-a-repo"])
    assert t.errors and "not-a-repo" in t.errors[0]
    assert t.analyse("A is 1", None, "a.py").summary == "not pinned to a commit"
    assert t.analyse("A is 1", "feedface1234567", "a.py").summary == (
        "feedfac is not in any repo checked")
    assert t.analyse("A is 1", pin, "a.py").outcome == "unknown"  # unchanged: nothing to triage


def test_code_span_survives_backticks() -> None:
    assert code_span("a`b") == "``a`b``"
    assert code_span("`x`") == "`` `x` ``"


def test_path_change_for_a_folder_and_a_binary(tmp_path: Path) -> None:
    repo = Repo.init(tmp_path / "r")
    pin = repo.commit("one", {"pkg/a.py": "PORT = 8000\n", "img.bin": "\x00\x01"})
    repo.commit("two", {"pkg/a.py": "PORT = 9000\n", "img.bin": "\x00\x02"})
    ch = GitChecker(repo.path)
    folder = path_change(ch, pin, "pkg")
    assert folder.status == "modified" and folder.hunks[0].file == "pkg/a.py"
    assert triage("the server uses port 8000", folder).outcome == "touches"
    assert path_change(ch, pin, "img.bin").status == "binary"
    assert path_change(ch, pin, "nope.py").status == "error"


def test_still_true_on_a_moved_fact_repins_the_new_path(tmp_path: Path) -> None:
    repo = Repo.init(tmp_path / "r")
    body = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(10))
    pin = repo.commit("one", {"auth.py": body})
    head = repo.commit("split auth module", {"auth.py": None, "auth/session.py": body})
    db = tmp_path / "m.db"
    [fid] = make_store(db, [{"fact": "f3 adds 3", "source_commit": pin, "source_path": "auth.py",
                             "source_ref": f"repo@{pin}:auth.py", "importance": 8}])
    from memharness_tui.store import Store

    store = Store.open(str(db))
    try:
        fact = store.get(fid)
        result = analyse(repo.path, fact)
        assert (result.outcome, result.new_path, result.similarity) == ("moved", "auth/session.py", 100)
        new_id = repin_moved(store, fid, result, head, checker=GitChecker(repo.path))
    finally:
        store.close()
    r = rows(db)
    assert r[fid]["superseded_by"] == new_id
    new = r[new_id]
    assert (new["fact"], new["source_commit"], new["source_path"]) == ("f3 adds 3", head,
                                                                        "auth/session.py")
    assert new["source_ref"] == f"repo@{head}:auth/session.py"
    assert (new["freshness"], new["checked_head"], new["importance"]) == ("current", head, 8)


def test_repin_refuses_a_fact_that_did_not_move(tmp_path: Path) -> None:
    repo = Repo.init(tmp_path / "r")
    pin = repo.commit("one", {"a.py": "A = 1\n"})
    repo.commit("two", {"a.py": "A = 2\n"})
    db = tmp_path / "m.db"
    [fid] = make_store(db, [{"fact": "A is 1", "source_commit": pin, "source_path": "a.py"}])
    from memharness_tui.store import Store

    store = Store.open(str(db))
    try:
        result = Triager([repo.path]).analyse_fact(store.get(fid))
        with pytest.raises(ValueError, match="only a moved fact"):
            repin_moved(store, fid, result, repo.head())
    finally:
        store.close()
    assert rows(db)[fid]["superseded_by"] is None


def test_moved_ref_keeps_the_sha_width_and_other_refs() -> None:
    new = "b" * 40
    assert moved_ref(f"m@{'a' * 40}:auth.py", new, "auth.py", "auth/session.py") == (
        f"m@{new}:auth/session.py")
    assert moved_ref("session-41", new, "auth.py", "x.py") == "session-41"
    assert moved_ref("a1b2c3d", new, None, "x.py") == "bbbbbbb"


def test_a_hunk_too_big_to_compare_counts_every_line_as_changed() -> None:
    from memharness_tui.staleness import triage as tr

    n = tr._MAX_TOKENS // 5 + 10
    old = [f"value_{i} = compute({i}, 1)" for i in range(n)]
    new = [part for i in range(n) for part in (f"value_{i} = compute(", f"    {i}, 1)")]
    r = triage("value_7 is 7", _change(old, new))
    # conservative: without the token compare a re-wrap cannot be told from an edit
    assert r.outcome == "touches"
    small = triage("value_7 is 7", _change(old[:50], new[:100]))
    assert small.outcome == "elsewhere" and small.changed_lines == 0


def test_rank_orders_outcomes_for_a_table_sort() -> None:
    from memharness_tui.staleness.triage import Triage

    order = [Triage(o, "").rank for o in ("touches", "moved", "deleted", "elsewhere", "unknown")]
    assert order == sorted(order) and len(set(order)) == 5
