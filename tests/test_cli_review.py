"""``memharness-tui review``: agents' writes since the last review, and ``--accept``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from memharness_tui.cli import main
from memharness_tui.review_marks import load_mark
from memharness_tui.store import FakeClock, Store


def _review(db: Path, capsys, *flags: str) -> tuple[int, str]:
    code = main(["review", "--db", str(db), *flags])
    out = capsys.readouterr()
    assert out.err == ""
    return code, out.out


def _store(db: Path) -> dict[str, int]:
    with Store.open(str(db), clock=FakeClock("2026-03-01T10:00:00.000Z", 60_000)) as s:
        a = s.remember("proj:atlas", "deploys on Fridays", source_agent="claude",
                       source_ref="session-1", source_commit="a" * 40, source_path="deploy.sh")[0]
        b = s.remember("proj:atlas", "uses Postgres 15", source_agent="claude")[0]
        c = s.remember("user", "prefers tabs", source_agent="codex", source_ref="pr#7")[0]
        ours = s.remember("user", "typed in the app", source_agent="memharness-tui/new")[0]
        _, b2, _ = s.revise(b, "uses Postgres 16", source_agent="codex")
        s.forget(fact_id=c)
    return {"a": a, "b": b, "c": c, "ours": ours, "b2": b2}


def test_review_lists_agents_writes_grouped_newest_first(tmp_path: Path, capsys) -> None:
    db = tmp_path / "m.db"
    ids = _store(db)
    code, out = _review(db, capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "5 write(s) to review (never reviewed: everything on file):"
    heads = [x for x in lines if x and not x.startswith("  ") and x != lines[0]]
    # groups by their newest write: the retraction (codex, user), then the revision
    assert heads == ["user — codex (2)", "proj:atlas — codex (1)", "proj:atlas — claude (2)"]
    assert f"retracted 2026-03-01 10:05  [#{ids['c']}] user : prefers tabs" in out
    assert f"(was #{ids['b']})" in out and "revised " in out
    assert "ref=session-1, pin=deploy.sh@aaaaaaa" in out
    assert "typed in the app" not in out  # this app's own write is never in the queue


def test_accept_moves_the_mark_and_only_later_writes_wait(tmp_path: Path, capsys) -> None:
    db = tmp_path / "m.db"
    ids = _store(db)
    assert _review(db, capsys, "--fail-on-new")[0] == 1
    code, out = _review(db, capsys, "--accept")
    assert code == 0 and out.startswith("Accepted 5 write(s)")
    mark = load_mark(str(db))
    assert mark is not None and mark.last_id == ids["b2"]
    assert _review(db, capsys, "--fail-on-new") == (
        0, "Nothing to review: no agent wrote since the last review.\n")
    with Store.open(str(db), clock=FakeClock("2026-03-02T10:00:00.000Z")) as s:
        new = s.remember("ops", "pager rota changed", source_agent="cursor")[0]
        s.remember("ops", "our own", source_agent="memharness-tui/rewrite")
        s.forget(fact_id=ids["a"])
    code, out = _review(db, capsys, "--fail-on-new", "--json")
    assert code == 1
    data = json.loads(out)
    assert data["count"] == 2 and data["reviewed_before"] is True
    assert [(i["action"], i["id"]) for i in data["items"]] == [
        ("retracted", ids["a"]), ("learned", new)]
    assert data["items"][0]["source_commit"] == "a" * 40


def test_review_and_accept_never_write_the_database(tmp_path: Path, capsys) -> None:
    db = tmp_path / "m.db"
    _store(db)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    _review(db, capsys)
    _review(db, capsys, "--accept")
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_accept_with_nothing_waiting_leaves_the_mark(tmp_path: Path, capsys) -> None:
    db = tmp_path / "m.db"
    with Store.open(str(db), clock=FakeClock()) as s:
        s.remember("user", "mine", source_agent="memharness-tui/new")
    code, out = _review(db, capsys, "--accept")
    assert (code, out) == (0, "Nothing to review; the mark is where it was.\n")
    assert load_mark(str(db)) is None
