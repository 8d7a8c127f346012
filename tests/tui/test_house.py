"""Issue #22: the app is composed, not stacked — services held by name, no mixin towers."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

from textual.app import App

import memharness_tui
from memharness_tui.tui.app import MemharnessApp, build_app

STORE = "memharness_tui.store."
"""The Store's six mixins are the other half of issue #22 (its facade): left to that work."""


def _own_classes() -> list[type]:
    """Every class defined in the memharness_tui package outside the store (each module
    imported once)."""
    found: dict[str, type] = {}
    for mod in pkgutil.walk_packages(memharness_tui.__path__, "memharness_tui."):
        if mod.name.endswith("__main__") or mod.name.startswith(STORE):
            continue
        module = importlib.import_module(mod.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__:
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return list(found.values())


def test_the_app_is_one_class_over_textuals_app() -> None:
    assert MemharnessApp.__mro__[:2] == (MemharnessApp, App)


def test_the_apps_parts_are_held_by_name() -> None:
    from memharness_tui.tui.services.details import FactDetails
    from memharness_tui.tui.services.idle_gc import IdleCollector
    from memharness_tui.tui.services.opening import OpeningRecall
    from memharness_tui.tui.services.repo_prefs import ReposPreferences
    from memharness_tui.tui.services.theme_prefs import ThemePreferences

    app = build_app(":memory:")
    try:
        assert isinstance(app.opening, OpeningRecall)
        assert isinstance(app.details, FactDetails)
        assert isinstance(app.themes, ThemePreferences)
        assert isinstance(app.repo_prefs, ReposPreferences)
        assert isinstance(app.idle_gc, IdleCollector)
    finally:
        app.service.close()


def test_no_class_mixes_in_more_than_one_class_of_its_own() -> None:
    towers = []
    for cls in _own_classes():
        own = [b.__qualname__ for b in cls.__bases__
               if b.__module__.startswith("memharness_tui.")]
        if len(own) > 1:
            towers.append(f"{cls.__module__}.{cls.__qualname__}({', '.join(own)})")
    assert not towers, "classes that stack several of our own classes: " + "; ".join(towers)


def test_the_app_is_built_in_one_place() -> None:
    """Every app (the console script's, serve's sessions, the demo's, each test's) is built by
    ``build_app``: a second way to construct it is how a door no user takes stays green."""
    import re

    root = Path(__file__).resolve().parents[2]
    built = re.compile(r"\bMemharnessApp\s*\(")
    found = []
    for folder in ("memharness_tui", "tests", "bench", "scripts"):
        for path in sorted((root / folder).rglob("*.py")):
            if path == Path(__file__).resolve():
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if built.search(line) and not line.lstrip().startswith(("class ", "#")):
                    found.append(f"{path.relative_to(root)}:{n}")
    assert found == ["memharness_tui/tui/app.py:" + str(_build_app_line(root))], found


def _build_app_line(root: Path) -> int:
    lines = (root / "memharness_tui/tui/app.py").read_text(encoding="utf-8").splitlines()
    start = next(n for n, line in enumerate(lines, 1) if line.startswith("def build_app("))
    return next(n for n, line in enumerate(lines[start:], start + 1) if "MemharnessApp(" in line)


def test_the_package_names_no_issue_or_round() -> None:
    """History lives in the CHANGELOG: the package's code, styles and names say what the code
    is, not which issue or round brought it."""
    import re

    root = Path(__file__).resolve().parents[2]
    tag = re.compile(r"[Ii]ssue #\d+|\(#\d+[),;]|\bround \d+\b|_i\d{2}\b|_r\d+\b")
    found = [f"{path.relative_to(root)}:{n}"
             for path in sorted((root / "memharness_tui").rglob("*"))
             if path.suffix in {".py", ".tcss", ".md"}
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if tag.search(line) or tag.search(path.name)]
    assert found == [], found


def test_no_file_is_named_after_an_issue_or_a_round() -> None:
    """A test module says what it tests (``test_pass_follow``), not when it came
    (``_i26``, ``_mutants_r7``)."""
    import re

    root = Path(__file__).resolve().parents[2]
    tag = re.compile(r"_i\d{2}([a-z_]|$)|_r\d+$|_mutants_r\d")
    named = [str(p.relative_to(root)) for folder in ("memharness_tui", "tests", "bench", "scripts")
             for p in (root / folder).rglob("*")
             if tag.search(p.stem) and "__pycache__" not in p.parts]
    assert named == [], named
