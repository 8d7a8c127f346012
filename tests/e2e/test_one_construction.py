"""Tests build the app only through ``build_app``, the door the console script takes.

Pilot tests that called the app class their own way stayed green while the Staleness
tab could not run a pass on a ``--db`` launch. This reads every test module's syntax tree (so
an alias, an attribute call or a subclass counts too, not only the literal text) and lists
each place that would build the app some other way.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
NAME = "MemharnessApp"


def _is_app(node: ast.expr, aliases: set[str]) -> bool:
    """``node`` names the app class: ``MemharnessApp``, an alias of it, ``mod.MemharnessApp``."""
    if isinstance(node, ast.Name):
        return node.id in aliases
    return isinstance(node, ast.Attribute) and node.attr == NAME


def other_doors(source: str) -> list[tuple[int, str]]:
    """(line, what) for each way ``source`` builds the app besides ``build_app``."""
    tree = ast.parse(source)
    aliases = {NAME}
    for node in ast.walk(tree):  # `import … as X` and `X = MemharnessApp` make X the class
        if isinstance(node, ast.ImportFrom):
            aliases |= {a.asname for a in node.names if a.name == NAME and a.asname}
        elif isinstance(node, ast.Assign) and _is_app(node.value, aliases):
            aliases |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if _is_app(func, aliases):
                found.append((node.lineno, "calls the class"))
            elif isinstance(func, ast.Attribute) and func.attr in ("__new__", "__call__") \
                    and _is_app(func.value, aliases):
                found.append((node.lineno, f"calls {func.attr}"))
        elif isinstance(node, ast.ClassDef) and any(_is_app(b, aliases) for b in node.bases):
            found.append((node.lineno, f"subclasses it as {node.name}"))
        elif isinstance(node, ast.Assign) and _is_app(node.value, aliases):
            found.append((node.lineno, "binds the class to another name"))
    return sorted(found)


def test_no_test_module_builds_the_app_but_through_build_app() -> None:
    found = [f"{path.relative_to(TESTS.parent)}:{line}: {what}"
             for path in sorted(TESTS.rglob("*.py")) if path != Path(__file__).resolve()
             for line, what in other_doors(path.read_text(encoding="utf-8"))]
    assert not found, ("build the app with build_app (tests/tui/conftest.py make_app, "
                       "Env.app), not:\n" + "\n".join(found))


def test_each_other_door_is_seen() -> None:
    """The check itself: every form a second construction takes is reported, and what is not
    one (a type, an isinstance, build_app) is not."""
    # the class is spelled through NAME: tests/tui/test_house.py greps the text for calls
    source = f'''
from memharness_tui.tui.app import {NAME}, build_app
from memharness_tui.tui.app import {NAME} as Other
from memharness_tui.tui import app as app_mod

def fine(x: {NAME}) -> {NAME}:
    assert isinstance(x, {NAME})
    return build_app(":memory:")

a = {NAME}(":memory:")
b = app_mod.{NAME}(":memory:")
c = Other(":memory:")
d = {NAME}.__new__({NAME})
Cls = {NAME}

class Sub({NAME}):
    pass
'''
    assert other_doors(source) == [
        (10, "calls the class"), (11, "calls the class"), (12, "calls the class"),
        (13, "calls __new__"), (14, "binds the class to another name"),
        (16, "subclasses it as Sub"),
    ]
