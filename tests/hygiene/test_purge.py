"""Purge (EDGE-CASES E5, follow the chain): the secrets leave every file of the database; no
row is deleted, ids and links stay, ``why`` still walks the chain."""

from __future__ import annotations

import glob
import hashlib
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from memharness_tui.cli import main
from memharness_tui.hygiene.purge import apply_purge, plan_purge
from memharness_tui.store import FakeClock, Store
from memharness_tui.store.errors import InvalidInput, NotFound, ReadOnlyError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
AWS = "AKIAIOSFODNN7EXAMPLE"
GHP = "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"
LINKS = ("SELECT id, subject, superseded_by, retracted_at, valid_from, valid_to, tx_at, "
         "source_agent, source_ref FROM facts ORDER BY id")


def files_of(path: str) -> list[str]:
    return [p for p in [path, path + "-wal", path + "-shm", *glob.glob(path + ".v*-backup-*")]
            if Path(p).exists()]


def holds(path: str, secret: str) -> list[str]:
    """The database files whose raw bytes hold ``secret`` (as written or in lower case)."""
    out = []
    for name in files_of(path):
        data = Path(name).read_bytes()
        if secret.encode() in data or secret.lower().encode() in data:
            out.append(name)
    return out


def links(path: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(LINKS).fetchall()
    finally:
        conn.close()


def why_shape(store: Store, fid: int) -> tuple[Any, ...]:
    w = store.why(fid)
    return (w.fact.id, [a.id for a in w.ancestors], [d.id for d in w.descendants])


@pytest.fixture
def leaky(tmp_path: Path) -> str:
    """A chain whose key is in two versions and whose retracted head holds a token, and an
    unrelated fact; the store stays open (a -wal with the old pages exists) until purge."""
    path = str(tmp_path / "memory.db")
    with Store.open(path, clock=FakeClock("2026-01-01T00:00:00.000Z")) as s:
        a, _ = s.remember("project:x", f"The deploy key is {AWS}", source_agent="claude")
        _, b, _ = s.revise(a, f"The deploy key is {AWS}, rotated monthly")
        _, c, _ = s.revise(b, f"Deploys push with {GHP} now")
        s.forget(fact_id=c)
        s.remember("project:y", "an unrelated fact")
    return path


def test_purge_leaves_no_byte_of_either_secret_and_keeps_every_link(
        leaky: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert holds(leaky, AWS) and holds(leaky, GHP)
    before = links(leaky)
    assert main(["purge", "--db", leaky, "--id", "2"]) == 0
    out = capsys.readouterr().out
    assert "Purged 3 row(s): #1, #2, #3" in out
    assert "in no file of the database" in out
    assert AWS not in out and GHP not in out
    assert holds(leaky, AWS) == [] and holds(leaky, GHP) == []
    assert links(leaky) == before
    with Store.open(leaky) as s:
        assert [why_shape(s, i) for i in (1, 2, 3)] == [(1, [], [2, 3]), (2, [1], [3]),
                                                        (3, [2, 1], [])]
        assert s.get(1).fact.startswith("The deploy key is [redacted by memharness-tui/purge")
        assert s.get(4).fact == "an unrelated fact"
        assert s.recall("AKIAIOSFODNN7EXAMPLE").facts == []
        s.check_integrity()


def test_whole_replaces_each_rows_text(leaky: str) -> None:
    with Store.open(leaky) as s:
        result = apply_purge(s, plan_purge(s, 3, whole=True))
        assert result.outcome.changed == [1, 2, 3] and result.leftovers == []
        texts = {s.get(i).fact for i in (1, 2, 3)}
    assert len(texts) == 1 and texts.pop().startswith("[redacted by memharness-tui/purge ")


def test_dry_run_writes_nothing(leaky: str, capsys: pytest.CaptureFixture[str]) -> None:
    with Store.open(leaky) as s:
        s.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    digest = {p: hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in files_of(leaky)}
    assert main(["purge", "--db", leaky, "--id", "1", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would redact the credentials in 3 row(s)" in out and AWS not in out
    assert {p: hashlib.sha256(Path(p).read_bytes()).hexdigest()
            for p in files_of(leaky) if p in digest} == digest


def test_bad_input_exits_2_and_changes_nothing(leaky: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    before = links(leaky)
    assert main(["purge", "--db", leaky, "--id", "99"]) == 2
    assert main(["purge", "--db", leaky, "--id", "4"]) == 2  # no credential in its chain
    err = capsys.readouterr().err
    assert "no fact with id 99" in err and "no credential found in the chain of #4" in err
    assert main(["purge", "--db", str(tmp_path / "absent.db"), "--id", "1"]) == 2
    assert links(leaky) == before and holds(leaky, AWS)


def test_refused_on_a_read_only_store(leaky: str) -> None:
    with Store.open(leaky, readonly=True) as s:
        plan = plan_purge(s, 1)
        with pytest.raises(ReadOnlyError):
            apply_purge(s, plan)
    assert holds(leaky, AWS)


def test_a_row_changed_since_the_preview_refuses_the_whole_purge(leaky: str) -> None:
    with Store.open(leaky) as s:
        stale = plan_purge(s, 1)
        apply_purge(s, plan_purge(s, 1, whole=True))
        after = s.get(2).fact
        with pytest.raises(InvalidInput, match="changed since the preview"):
            apply_purge(s, stale)
        assert s.get(2).fact == after
        with pytest.raises(NotFound):
            plan_purge(s, 1234)


def test_migration_backups_are_purged_too(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "memory.db")
    shutil.copy(FIXTURES / "v4.db", path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE facts SET fact = fact || ' key ' || ? WHERE id = 13", (AWS,))
    conn.commit()
    conn.close()
    with Store.open(path) as s:  # migrates 4 → 5, backing the v4 file up beside it
        assert s.migration_note and "backed up" in s.migration_note
    backups = glob.glob(path + ".v4-backup-*")
    assert len(backups) == 1 and holds(path, AWS)
    assert main(["purge", "--db", path, "--id", "40"]) == 0
    out = capsys.readouterr().out
    assert "also purged the backup" in out
    assert holds(path, AWS) == []
    bconn = sqlite3.connect(backups[0])
    assert "[redacted by memharness-tui/purge" in bconn.execute(
        "SELECT fact FROM facts WHERE id = 13").fetchone()[0]
    bconn.close()


def test_a_reference_written_store_reads_back_with_the_same_why(tmp_path: Path) -> None:
    path = str(tmp_path / "v5.db")
    shutil.copy(FIXTURES / "v5.db", path)
    chain = (13, 34, 40, 43)
    with Store.open(path) as s:
        shapes = [why_shape(s, i) for i in chain]
    before = links(path)
    with Store.open(path) as s:
        result = apply_purge(s, plan_purge(s, 40, whole=True))
        assert result.outcome.changed == list(chain)
        assert [why_shape(s, i) for i in chain] == shapes
        s.check_integrity()
    assert links(path) == before
