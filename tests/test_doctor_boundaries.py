"""``doctor``'s edges: a fully embedded store is not told "the rest are embedded…", a pin
found in any one of two configured repos is known, and vectors with no model name count as
a mix (they are not the agent's model's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.cli import main
from memharness_tui.store import FakeClock, Store
from memharness_tui.store.driver import sqlite3  # the store's own SQLite: one lock table
from memharness_tui.tui.repos import save_repos

from .staleness.staleness_helpers import Repo

MODEL = "Xenova/bge-small-en-v1.5"


def _doctor(db: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(["doctor", "--db", str(db)])
    return code, capsys.readouterr().out.splitlines()


def _store(db: Path, n: int, **kw: object) -> list[int]:
    with Store.open(str(db), clock=FakeClock()) as s:
        return [s.remember("proj", f"alpha fact {i}", **kw)[0] for i in range(n)]  # type: ignore[arg-type]


def _vectors(lines: list[str]) -> str:
    found = [x for x in lines if "vectors:" in x]
    assert len(found) == 1, lines
    return found[0]


def test_a_fully_embedded_store_is_not_told_the_rest_are_embedded_later(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.db"
    ids = _store(db, 2)
    with Store.open(str(db)) as s:
        for fid in ids:
            s.set_embedding(fid, [1.0, 0.0], MODEL)
    code, lines = _doctor(db, capsys)
    assert code == 0
    assert _vectors(lines) == (f"  [ok]   vectors: 2 of 2 facts carry a vector (100 %), all 2 "
                               f"{MODEL} (2 numbers)")


def test_a_pin_known_to_one_of_two_repos_is_not_warned_about(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = Repo.init(tmp_path / "one"), Repo.init(tmp_path / "two")
    in_first = first.commit("c1", {"x.py": "x = 1\n"})
    in_second = second.commit("c2", {"y.py": "y = 1\n"})
    db = tmp_path / "m.db"
    _store(db, 1, source_commit=in_first, source_path="x.py")
    _store(db, 1, source_commit=in_second, source_path="y.py")
    save_repos([str(first.path), str(second.path)], db=str(db))
    code, lines = _doctor(db, capsys)
    assert code == 0
    assert "  [ok]   pins: all 2 pinned facts' commits are in the configured repo(s)" in lines
    assert not [x for x in lines if "none of the configured repos has" in x]


def test_vectors_with_no_model_name_are_flagged_as_a_mix(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.db"
    ids = _store(db, 2)
    with Store.open(str(db)) as s:
        for fid in ids:
            s.set_embedding(fid, [1.0, 0.0], MODEL)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE facts SET embedding_model = NULL WHERE id = ?", (ids[1],))
    conn.commit()
    conn.close()
    code, lines = _doctor(db, capsys)
    assert code == 0
    assert _vectors(lines) == (
        f"  [warn] vectors: 2 of 2 facts carry a vector (100 %); a mix: 1 unnamed (2 numbers), "
        f"1 {MODEL} (2 numbers). `memharness-tui reembed` replaces other models' vectors with "
        f"{MODEL}'s")
