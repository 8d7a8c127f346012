"""``memharness-tui context``: the reference's SessionStart hook's stdout, byte for byte, and
the file left as it was (the hook reinforces; the preview must not).

The cases were recorded by running the reference's ``memharness-context`` on stores the
reference wrote (bench/context_fixtures.py; tests/fixtures/context/cases.json).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from memharness_tui.cli import main
from memharness_tui.cli_context import js_number
from memharness_tui.store.driver import sqlite3

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CONTEXT = FIXTURES / "context"
CASES: list[dict[str, Any]] = json.loads((CONTEXT / "cases.json").read_text(encoding="utf-8"))


def _copy(store: str, tmp_path: Path) -> Path:
    target = tmp_path / Path(store).name
    shutil.copyfile(FIXTURES / store, target)
    return target


def _context(db: Path, now: str, flags: list[str], capfdbinary) -> tuple[int, bytes, bytes]:
    code = main(["context", "--db", str(db), "--now", now, *flags])
    out = capfdbinary.readouterr()
    return code, out.out, out.err


def _case_id(case: dict[str, Any]) -> str:
    return f"{case['store']}:{case['stdout']}"


def test_the_fixtures_cover_what_the_hook_does() -> None:
    """Every store, sections cut by the budget, "Other subjects", refused numbers, repeats."""
    stores = {c["store"] for c in CASES}
    assert stores == {"v5.db", "hybrid_parity.db", "context/long.db"}
    outs = [(CONTEXT / c["stdout"]).read_bytes() for c in CASES]
    assert sum(1 for o in outs if o) >= 30
    assert any(b"Other subjects on file: " in o for o in outs)
    assert any(c["stderr"] for c in CASES)  # the hook refused a number: it printed nothing
    assert any(o and o.count(b"\n## ") >= 3 for o in outs)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_context_prints_what_the_reference_hook_printed(case: dict[str, Any], tmp_path: Path,
                                                         capfdbinary) -> None:
    db = _copy(case["store"], tmp_path)
    expected = (CONTEXT / case["stdout"]).read_bytes()
    code, out, err = _context(db, case["now"], case["flags"], capfdbinary)
    assert out == expected
    if case["stderr"]:  # the hook's recall refused a number: one line on stderr, exit 2
        assert code == 2
        assert err.decode().count("\n") == 1 and err.strip()
    else:
        assert code == 0 and err == b""


def _file_state(db: Path) -> tuple[str, list[tuple[int, str | None]]]:
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        accessed = conn.execute("SELECT id, last_accessed_at FROM facts ORDER BY id").fetchall()
    finally:
        conn.close()
    return digest, accessed


@pytest.mark.parametrize("store", sorted({c["store"] for c in CASES}))
def test_context_never_changes_the_file(store: str, tmp_path: Path, capfdbinary) -> None:
    """Every recorded case on one copy: its bytes and every last_accessed_at as they were
    (the hook itself writes last_accessed_at for every fact it prints)."""
    db = _copy(store, tmp_path)
    before = _file_state(db)
    printed = 0
    for case in (c for c in CASES if c["store"] == store):
        code, out, _ = _context(db, case["now"], case["flags"], capfdbinary)
        assert out == (CONTEXT / case["stdout"]).read_bytes()
        printed += bool(out)
    assert printed >= 10
    assert _file_state(db) == before


def test_a_missing_file_prints_nothing_and_creates_nothing(tmp_path: Path, capfdbinary) -> None:
    db = tmp_path / "none.db"
    code, out, err = _context(db, "2026-06-01T00:00:00.000Z", [], capfdbinary)
    assert (code, out) == (0, b"")
    assert b"no store at" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("text", "value"), [
    ("600", 600.0), (" 90 ", 90.0), ("", 0.0), ("1e3", 1000.0), ("0x40", 64.0), ("0b11", 3.0),
    ("-3", -3.0), ("2.5", 2.5), (".5", 0.5), ("5.", 5.0), ("Infinity", float("inf")),
])
def test_numbers_are_read_as_javascript_reads_them(text: str, value: float) -> None:
    assert js_number(text) == value


@pytest.mark.parametrize("text", ["lots", "0x", "1e", "--", "0x-1", "inf", "1_000"])
def test_what_javascript_cannot_read_is_nan(text: str) -> None:
    n = js_number(text)
    assert n != n
