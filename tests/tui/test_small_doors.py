"""Issue #22's small ones: a widget asks for reembed by message, the UI does not import the
CLI for the model note, and the Store does not repeat its file's signature."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from memharness_tui.embed.notes import model_note
from memharness_tui.store import Store
from memharness_tui.store.embeddings_io import ModelShare
from memharness_tui.store.handle import StoreFile
from memharness_tui.tui.screens.reembed import ReembedScreen

from .conftest import make_app, settle
from .hybrid_helpers import FakeEmbedder, fake_service

PACKAGE = Path(__file__).resolve().parents[2] / "memharness_tui"


def _imports(path: Path) -> set[str]:
    """The modules ``path`` imports (relative imports resolved), top level or in a function."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(parts[:len(parts) - node.level]) if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            found |= {module, *(f"{module}.{a.name}" for a in node.names)}
    return found


def test_no_widget_opens_reembed_itself():
    """The Recall tab's V posts ReembedWanted; the main screen opens reembed."""
    for path in (PACKAGE / "tui" / "widgets").rglob("*.py"):
        assert "memharness_tui.tui.hybrid_commands" not in _imports(path), path.name


async def test_v_on_the_recall_tab_opens_reembed_through_its_screen(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    app.embedding = fake_service(FakeEmbedder(), requested=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        app.screen.query_one("#results").focus()
        await pilot.press("V")
        await settle(pilot)
        assert isinstance(app.screen, ReembedScreen)


def test_the_ui_never_imports_the_cli():
    """The model note lives in embed/notes.py, used by the CLI and the app alike."""
    for path in (PACKAGE / "tui").rglob("*.py"):
        cli = sorted(m for m in _imports(path) if m.startswith("memharness_tui.cli"))
        assert cli == [], (path.name, cli)
    assert "memharness_tui.embed.notes.model_note" in _imports(PACKAGE / "cli_reembed.py")


def test_the_model_note_names_other_models_and_odd_sizes():
    class Mix:
        def model_mix(self) -> list[ModelShare]:
            return [ModelShare("old-model", 384, 3), ModelShare("m", 768, 2),
                    ModelShare("m", 512, 5)]

    note = model_note(Mix(), "m", 768)
    assert note is not None and note.startswith("note: the store has vectors from another model")
    assert "3 from old-model (384 numbers)" in note and "5 vectors named m have 512 numbers" in note
    assert model_note(type("Same", (), {"model_mix": lambda self: []})(), "m", 768) is None


def test_the_store_takes_its_file_rather_than_repeating_its_signature(tmp_path: Path):
    store_args = set(inspect.signature(Store.__init__).parameters) - {"self"}
    file_args = set(inspect.signature(StoreFile.__init__).parameters) - {"self"}
    assert store_args & file_args == set(), store_args & file_args
    with Store.open(str(tmp_path / "m.db")) as store:
        store.remember("s", "A fact")
        assert store.path == str(tmp_path / "m.db") and store.recall("fact").facts
