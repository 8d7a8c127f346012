"""``memharness-tui doctor`` (issue #24): one test per check; it never writes to the file."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from memharness_tui import embed
from memharness_tui.cli import main
from memharness_tui.store import FakeClock, Store, vector_ext
from memharness_tui.store.driver import sqlite3
from memharness_tui.tui.repos import save_repos

from .conftest import fixtures_dir
from .embed import tiny_model
from .staleness.staleness_helpers import Repo

MODEL = "Xenova/bge-small-en-v1.5"


@pytest.fixture(autouse=True)
def _env(monkeypatch, tmp_path: Path) -> None:
    for name in ("MEMHARNESS_HYBRID", "MEMHARNESS_TUI_MODEL_DIR", "MEMHARNESS_SQLITE_VEC"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no git repo around: no default repo for pins


def _doctor(db: Path, capsys) -> tuple[int, list[str]]:
    code = main(["doctor", "--db", str(db)])
    out = capsys.readouterr()
    assert out.err == ""
    return code, out.out.splitlines()


def _store(path: Path, n: int = 3, **kw) -> list[int]:
    with Store.open(str(path), clock=FakeClock()) as s:
        return [s.remember("proj", f"alpha fact {i}", **kw)[0] for i in range(n)]


def _line(lines: list[str], needle: str) -> str:
    found = [x for x in lines if needle in x]
    assert found, f"no line with {needle!r} in {lines}"
    return found[0]


def test_a_healthy_store_is_all_ok(tmp_path: Path, capsys) -> None:
    db = tmp_path / "m.db"
    _store(db, 3)
    code, lines = _doctor(db, capsys)
    assert code == 0
    assert lines[:2] == ["memharness doctor", f"  db: {db}"]
    assert "  [ok]   database opens (read-only here)" in lines
    assert "  [ok]   schema v5, the newest this app knows; 3 facts (3 current beliefs)" in lines
    assert "  [ok]   integrity_check: ok" in lines
    assert "  [ok]   search index (FTS5) integrity: ok" in lines
    assert not any("[warn]" in x or "[fail]" in x for x in lines)
    assert lines[-2:] == ["", "result: ok"]


def test_doctor_never_writes_to_the_file(tmp_path: Path, capsys) -> None:
    db = tmp_path / "m.db"
    _store(db, 3)
    before = (db.read_bytes(), db.stat().st_mtime_ns, sorted(os.listdir(tmp_path)))
    _doctor(db, capsys)
    assert (db.read_bytes(), db.stat().st_mtime_ns, sorted(os.listdir(tmp_path))) == before


def test_no_store_yet_is_a_warning_and_nothing_is_created(tmp_path: Path, capsys) -> None:
    db = tmp_path / "none.db"
    code, lines = _doctor(db, capsys)
    assert code == 0
    assert f"  [warn] no store at {db} yet: the agent's first remember creates it" in lines
    assert not db.exists()


def test_a_file_that_is_not_a_database_fails(tmp_path: Path, capsys) -> None:
    db = tmp_path / "junk.db"
    db.write_bytes(b"this is not a database at all " * 200)
    code, lines = _doctor(db, capsys)
    assert code == 1
    assert _line(lines, "[fail]").startswith("  [fail] cannot open the database: ")
    assert lines[-1] == "result: FAILED"


def test_a_newer_schema_fails(tmp_path: Path, capsys) -> None:
    db = tmp_path / "m.db"
    _store(db)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 9")
    conn.close()
    code, lines = _doctor(db, capsys)
    assert code == 1
    assert ("  [fail] schema v9 is newer than the newest this app knows (v5): upgrade "
            "memharness-tui") in lines


def test_an_older_schema_is_a_warning_and_is_not_migrated(tmp_path: Path, capsys) -> None:
    db = tmp_path / "v4.db"
    shutil.copyfile(fixtures_dir() / "v4.db", db)
    before = db.read_bytes()
    code, lines = _doctor(db, capsys)
    assert code == 0
    assert _line(lines, "[warn] schema v4").startswith(
        "  [warn] schema v4, older than the newest this app knows (v5); 43 facts: the next "
        "read-write open")
    assert db.read_bytes() == before


def test_an_empty_store_is_a_warning(tmp_path: Path, capsys) -> None:
    db = tmp_path / "m.db"
    _store(db, 1)
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM facts")
    conn.commit()
    conn.close()
    code, lines = _doctor(db, capsys)
    assert code == 0
    assert "  [ok]   schema v5, the newest this app knows; 0 facts (0 current beliefs)" in lines
    assert _line(lines, "store is empty").startswith("  [warn] store is empty: hand the agent")


def test_integrity_check_failure_fails(tmp_path: Path, capsys) -> None:
    db = tmp_path / "m.db"
    _store(db, 4, predicate="p")
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA writable_schema = ON")  # the index's definition no longer its content
    conn.execute("UPDATE sqlite_master SET sql = 'CREATE INDEX idx_facts_subject ON "
                 "facts(predicate)' WHERE name = 'idx_facts_subject'")
    conn.commit()
    conn.close()
    code, lines = _doctor(db, capsys)
    assert code == 1
    assert _line(lines, "] integrity_check").startswith(
        "  [fail] integrity_check: row 1 missing from index idx_facts_subject")


def test_a_search_index_out_of_step_with_the_facts_fails(tmp_path: Path, capsys) -> None:
    db = tmp_path / "m.db"
    _store(db, 4)
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER facts_au")  # an update the index never hears of
    conn.execute("UPDATE facts SET fact = 'changed behind its back' WHERE id = 2")
    conn.commit()
    conn.close()
    code, lines = _doctor(db, capsys)
    assert code == 1
    assert "  [ok]   integrity_check: ok" in lines
    assert _line(lines, "search index").startswith(
        "  [fail] the search index does not match the facts (database disk image is malformed)")


def test_vector_coverage_and_model_mix(tmp_path: Path, capsys) -> None:
    db = tmp_path / "m.db"
    ids = _store(db, 4)
    with Store.open(str(db)) as s:
        s.set_embedding(ids[0], [1.0, 0.0], MODEL)
        s.set_embedding(ids[1], [0.0, 1.0], MODEL)
    code, lines = _doctor(db, capsys)
    assert (f"  [ok]   vectors: 2 of 4 facts carry a vector (50 %), all 2 {MODEL} (2 numbers); "
            "the rest are embedded by the next hybrid recall of the agent's server or "
            "`memharness-tui reembed`") in lines
    with Store.open(str(db)) as s:
        s.set_embedding(ids[2], [1.0, 0.0, 0.0], "other/model")
    code, lines = _doctor(db, capsys)
    assert code == 0
    assert _line(lines, "vectors:") == (
        f"  [warn] vectors: 3 of 4 facts carry a vector (75 %); a mix: 2 {MODEL} (2 numbers), "
        f"1 other/model (3 numbers). `memharness-tui reembed` replaces other models' vectors "
        f"with {MODEL}'s; recall's vector leg compares only vectors of the query's length "
        "(2 vs 3 numbers here)")


def test_hybrid_not_requested_is_keyword_mode(tmp_path: Path, capsys) -> None:
    db = tmp_path / "m.db"
    _store(db)
    _, lines = _doctor(db, capsys)
    assert _line(lines, "recall:").startswith("  [ok]   recall: keyword (FTS) mode; set "
                                              "MEMHARNESS_HYBRID=1")


def test_hybrid_requested_without_sqlite_vec_warns(tmp_path: Path, monkeypatch, capsys) -> None:
    db = tmp_path / "m.db"
    _store(db)
    monkeypatch.setenv("MEMHARNESS_HYBRID", "1")
    monkeypatch.setenv("MEMHARNESS_SQLITE_VEC", "off")
    code, lines = _doctor(db, capsys)
    assert code == 0
    assert ("  [warn] MEMHARNESS_HYBRID=1 but sqlite-vec did not load here (MEMHARNESS_SQLITE_VEC "
            "turns sqlite-vec off); recall here stays keyword-only") in lines


@pytest.fixture
def vec_loads() -> None:
    conn = sqlite3.connect(":memory:")
    try:
        if not vector_ext.load_into(conn):
            pytest.skip(f"sqlite-vec cannot load here: {vector_ext.problem()}")
    finally:
        conn.close()


def test_hybrid_requested_without_the_runtime_fails(tmp_path: Path, monkeypatch, capsys,
                                                    vec_loads) -> None:
    db = tmp_path / "m.db"
    _store(db)
    monkeypatch.setenv("MEMHARNESS_HYBRID", "1")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    code, lines = _doctor(db, capsys)
    assert code == 1
    assert ("  [fail] MEMHARNESS_HYBRID=1 and sqlite-vec loaded, but the embedding runtime is "
            "not installed (onnxruntime is missing): pip install 'memharness-tui[hybrid]': "
            "recall here is silently keyword-only") in lines


def test_hybrid_requested_model_not_downloaded_yet_warns(tmp_path: Path, monkeypatch, capsys,
                                                         vec_loads) -> None:
    db = tmp_path / "m.db"
    _store(db)
    monkeypatch.setenv("MEMHARNESS_HYBRID", "1")
    code, lines = _doctor(db, capsys)
    assert code == 0
    assert _line(lines, "not downloaded").startswith(
        f"  [warn] MEMHARNESS_HYBRID=1: the model {MODEL} is not downloaded yet (")


def test_hybrid_requested_model_dir_lacking_files_fails(tmp_path: Path, monkeypatch, capsys,
                                                        vec_loads) -> None:
    db = tmp_path / "m.db"
    _store(db)
    (tmp_path / "copy").mkdir()
    monkeypatch.setenv("MEMHARNESS_HYBRID", "1")
    monkeypatch.setenv("MEMHARNESS_TUI_MODEL_DIR", str(tmp_path / "copy"))
    code, lines = _doctor(db, capsys)
    assert code == 1
    assert (f"  [fail] MEMHARNESS_HYBRID=1 but MEMHARNESS_TUI_MODEL_DIR ({tmp_path / 'copy'}) "
            "lacks tokenizer.json, tokenizer_config.json, onnx/model.onnx") in lines


def test_hybrid_requested_damaged_model_fails(tmp_path: Path, monkeypatch, capsys,
                                              vec_loads) -> None:
    db = tmp_path / "m.db"
    _store(db)
    model = tiny_model.build(tmp_path / "model")
    (model / "onnx" / "model.onnx").write_bytes(b"not onnx")
    monkeypatch.setenv("MEMHARNESS_HYBRID", "1")
    monkeypatch.setenv("MEMHARNESS_TUI_MODEL_DIR", str(model))
    code, lines = _doctor(db, capsys)
    assert code == 1
    assert _line(lines, "[fail]") == (
        f"  [fail] MEMHARNESS_HYBRID=1 but the model file {model / 'onnx' / 'model.onnx'} could "
        "not be loaded (it is damaged or not an ONNX model); delete it to download it again")


def test_hybrid_requested_and_runnable_is_ok(tmp_path: Path, monkeypatch, capsys,
                                             vec_loads) -> None:
    db = tmp_path / "m.db"
    _store(db)
    model = tiny_model.build(tmp_path / "model")
    monkeypatch.setenv("MEMHARNESS_HYBRID", "1")
    monkeypatch.setenv("MEMHARNESS_TUI_MODEL_DIR", str(model))
    code, lines = _doctor(db, capsys)
    assert code == 0
    assert _line(lines, "recall:").startswith("  [warn] recall: hybrid mode (sqlite-vec v")
    assert f"is {tiny_model.NAME} (named from its files), not {MODEL}" in _line(lines, "recall:")
    (model / embed.NAME_FILE).write_text(MODEL + "\n")  # a copy of the agent's model
    code, lines = _doctor(db, capsys)
    assert code == 0
    assert _line(lines, "recall:").startswith("  [ok]   recall: hybrid mode (sqlite-vec v")
    assert _line(lines, "recall:").endswith(f", {MODEL} in {model})")


def test_pins_with_no_configured_repo_warn(tmp_path: Path, capsys) -> None:
    db = tmp_path / "m.db"
    _store(db, 2, source_commit="a" * 40, source_path="x.py")
    code, lines = _doctor(db, capsys)
    assert code == 0
    assert ("  [warn] 2 live facts are pinned to commits, but no repo is configured for this "
            "store (the app's Staleness repos, or run from inside the repo): their staleness "
            "cannot be checked") in lines


def test_pins_whose_commits_no_configured_repo_has_warn(tmp_path: Path, capsys) -> None:
    repo = Repo.init(tmp_path / "repo")
    known = repo.commit("c1", {"x.py": "x = 1\n"})
    db = tmp_path / "m.db"
    _store(db, 2, source_commit=known, source_path="x.py")
    _store(db, 1, source_commit="b" * 40, source_path="x.py")
    save_repos([str(repo.path)], db=str(db))
    code, lines = _doctor(db, capsys)
    assert code == 0
    assert (f"  [warn] 1 of 3 pinned facts pin 1 commit(s) none of the configured repos has "
            f"(e.g. {'b' * 12}): add their repo in the app's Staleness repos") in lines
    conn = sqlite3.connect(db)
    conn.execute("UPDATE facts SET retracted_at = '2026-01-02T00:00:00.000Z' "
                 "WHERE source_commit = ?", ("b" * 40,))
    conn.commit()
    conn.close()
    code, lines = _doctor(db, capsys)
    assert "  [ok]   pins: all 2 pinned facts' commits are in the configured repo(s)" in lines


def test_settings_and_theme_files_that_do_not_load_warn(tmp_path: Path, capsys) -> None:
    from memharness_tui.paths import config_dir

    db = tmp_path / "m.db"
    _store(db)
    _, lines = _doctor(db, capsys)
    assert _line(lines, "settings and themes load").startswith("  [ok]")
    folder = config_dir()
    (folder / "themes").mkdir(parents=True)
    (folder / "settings.json").write_text("{not json")
    (folder / "staleness-repos.json").write_text(json.dumps({"x": "not a list"}))
    (folder / "themes" / "mine.toml").write_text('name = "mine"\nprimary = "not-a-colour"\n')
    code, lines = _doctor(db, capsys)
    assert code == 0
    assert _line(lines, "settings.json").startswith(
        f"  [warn] {folder / 'settings.json'} is not valid JSON (")
    assert _line(lines, "settings.json").endswith("): the app uses its defaults")
    assert (f"  [warn] {folder / 'staleness-repos.json'} has 1 entr(y/ies) that are not a list "
            "of repo paths: no saved repos are used") in lines
    assert (f"  [warn] theme file {folder / 'themes' / 'mine.toml'} does not load: 'primary' is "
            "not a colour: 'not-a-colour'") in lines


def test_demo_doctor_checks_pins_against_the_demo_repo(capsys: pytest.CaptureFixture[str]) -> None:
    """``--demo doctor`` (a README example) checks pins against the demo's own repo, as
    ``--demo staleness`` does: only the demo's deliberately unknown commit is reported."""

    main(["--demo", "doctor"])
    pins = [line for line in capsys.readouterr().out.splitlines() if "pinned facts pin" in line]
    assert len(pins) == 1 and pins[0].lstrip().startswith("[warn] 1 of "), pins
    assert "deadbeefdead" in pins[0]
