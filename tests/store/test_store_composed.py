"""The Store is a facade over named parts, not a stack of mixins (#22 item 1)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import memharness_tui
from memharness_tui.store import Store
from memharness_tui.store.rows import StorePart

PACKAGE = Path(memharness_tui.__file__).parent


def test_the_store_mixes_in_nothing() -> None:
    assert Store.__mro__ == (Store, object)


def test_no_store_class_mixes_in_more_than_one_class_of_its_own() -> None:
    """Walk store/: a class with two or more bases defined in the package is a mixin stack."""
    ours = {
        node.name
        for path in (PACKAGE / "store").glob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef)
    }
    stacked = []
    for path in (PACKAGE / "store").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                own = [b for b in node.bases if isinstance(b, ast.Name) and b.id in ours]
                if len(own) > 1:
                    stacked.append(f"{path.name}:{node.name}")
    assert stacked == []


def test_each_part_is_given_the_file_it_works_on(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "m.db"))
    try:
        parts = {k: v for k, v in vars(store).items() if isinstance(v, StorePart)}
        assert set(parts) >= {"_browse", "_recall", "_writes", "_verdicts", "_scans", "_answers"}
        files = {id(p.file) for p in parts.values()}
        assert len(files) == 1
    finally:
        store.close()


def test_every_public_method_keeps_its_parts_signature() -> None:
    """``Store.recall`` and friends show their part's signature (help(), IDEs, type checkers)."""
    from memharness_tui.store.recall import RecallReads
    from memharness_tui.store.writes import FactWrites

    for name, part in (("recall", RecallReads), ("remember", FactWrites), ("revise", FactWrites)):
        facade = inspect.signature(getattr(Store, name))
        own = inspect.signature(getattr(part, name))
        assert facade.parameters.keys() == own.parameters.keys(), name
        assert getattr(Store, name).__doc__ == getattr(part, name).__doc__


def test_the_facade_reads_and_writes_through_its_parts(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "m.db"))
    try:
        new_id, _ = store.remember("svc", "the cache holds 10 entries")
        old, newer, _ = store.revise(new_id, "the cache holds 20 entries")
        assert store.recall("cache").ids == [newer]
        assert [f.id for f in store.why(newer).ancestors] == [old]
        assert store.counts().current == 1
        assert store.get(newer).fact == "the cache holds 20 entries"
        assert store.schema_version >= 5 and store.is_new and store.on_disk  # new when opened
    finally:
        store.close()


def test_every_public_name_of_a_part_is_on_the_store(tmp_path: Path) -> None:
    """A method added to a part (say a new read in browse.py) is forwarded by the facade."""
    base = set(dir(StorePart))
    for_siblings = {"Remembered.recalled", "Remembered.remember", "Remembered.snapshot",
                    "SplitScans.split_rows", "SplitScans.scan_ranges", "SplitScans.each_chunk",
                    "AgeBound.recent_enough"}  # parts' own helpers
    store = Store.open(str(tmp_path / "m.db"))
    try:
        missing = [
            f"{type(part).__name__}.{name}"
            for part in vars(store).values() if isinstance(part, StorePart)
            for name in dir(type(part))
            if not name.startswith("_") and name not in base and not hasattr(Store, name)
        ]
    finally:
        store.close()
    assert [m for m in missing if m not in for_siblings] == []
