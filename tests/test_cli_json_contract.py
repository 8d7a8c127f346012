"""``recall --json``'s exact shape: the keys a hook reads, with their values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memharness_tui.cli import main
from memharness_tui.store import FakeClock, Store

RESULT_KEYS = {"ids", "scores", "as_of", "truncated", "used_fallback", "facts"}
FACT_KEYS = {
    "id", "subject", "predicate", "fact", "confidence", "valid_from", "valid_to", "tx_at",
    "superseded_by", "source_agent", "source_ref", "retracted_at", "importance", "kind",
    "last_accessed_at", "embedding_dim", "embedding_model", "source_commit", "source_path",
    "freshness", "checked_at", "checked_head", "score",
}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "m.db"
    s = Store.open(str(path), clock=FakeClock("2026-03-01T09:00:00.000Z"))
    s.remember("deploy", "Releases ship on Tuesdays", predicate="day")
    s.close()
    return path


def recall_json(capsys: pytest.CaptureFixture[str], db: Path, *argv: str) -> dict:
    assert main(["recall", *argv, "--db", str(db), "--json",
                 "--now", "2026-03-02T09:00:00Z"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    ("query", "fallback"),
    [("tuesdays", False), ("esday", True)],  # a token; then only a substring (the LIKE scan)
)
def test_recall_json_shape(db: Path, capsys: pytest.CaptureFixture[str], query: str,
                           fallback: bool) -> None:
    data = recall_json(capsys, db, query)
    assert set(data) == RESULT_KEYS
    assert (data["ids"], data["as_of"], data["truncated"], data["used_fallback"]) == (
        [1], None, False, fallback)
    assert len(data["scores"]) == 1 and data["scores"][0] == data["facts"][0]["score"] > 0
    [fact] = data["facts"]
    assert set(fact) == FACT_KEYS
    assert (fact["id"], fact["subject"], fact["predicate"], fact["fact"]) == (
        1, "deploy", "day", "Releases ship on Tuesdays")


def test_recall_json_as_of_and_truncated(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = recall_json(capsys, db, "tuesdays", "--as-of", "2026-03-01T10:00:00Z")
    assert (data["as_of"], data["used_fallback"], data["ids"]) == (
        "2026-03-01T10:00:00.000Z", False, [1])
    data = recall_json(capsys, db, "tuesdays", "--max-tokens", "1")
    assert set(data) == RESULT_KEYS
    assert (data["ids"], data["truncated"], data["facts"]) == ([], True, [])
