"""Issue #22: Textual's private internals in one room (``tui/perf``), guarded.

``test_no_private_textual_name_outside_perf`` reads every module of the package and names
the file and line of any private Textual name used outside ``memharness_tui/tui/perf``: an
import from a private Textual module, an attribute Textual's base class of ours defines
(used or overridden), or a private attribute of another object that only Textual defines.
``test_perf_relies_on_what_textual_still_has`` fails with a sentence when a Textual upgrade
removes or changes what ``perf`` leans on.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap
from functools import cache
from importlib.metadata import version
from pathlib import Path

import textual

import memharness_tui

PACKAGE = Path(memharness_tui.__file__).parent
PERF = PACKAGE / "tui" / "perf"
TEXTUAL = Path(textual.__file__).parent


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@cache
def _textual_instance_attrs() -> dict[str, set[str]]:
    """Textual class qualname → the private attributes its methods assign on ``self``."""
    out: dict[str, set[str]] = {}
    for path in TEXTUAL.rglob("*.py"):
        module = ".".join(path.relative_to(TEXTUAL.parent).with_suffix("").parts)
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            names = out.setdefault(f"{module}.{cls.name}", set())
            for node in ast.walk(cls):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                        and node.value.id == "self" and _private(node.attr):
                    attr = node.attr
                    if attr.startswith("__"):
                        attr = f"_{cls.name}{attr}"  # name mangling
                    names.add(attr)
    return out


@cache
def _textual_private_names() -> frozenset[str]:
    """Every private name a Textual class defines (class members and ``self`` attributes)."""
    names: set[str] = set()
    for attrs in _textual_instance_attrs().values():
        names |= attrs
    for mod in pkgutil.walk_packages(textual.__path__, "textual."):
        try:
            module = importlib.import_module(mod.name)
        except Exception:  # noqa: BLE001, S112 - a platform's driver: not ours to judge
            continue
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__.startswith("textual"):
                names |= {n for n in vars(cls) if _private(n)}
    return frozenset(names)


def _textual_attrs_of(cls: type) -> set[str]:
    """The private names the Textual classes in ``cls``'s MRO define."""
    found: set[str] = set()
    instance = _textual_instance_attrs()
    for base in cls.__mro__:
        if base.__module__.split(".")[0] == "textual":
            found |= {n for n in vars(base) if _private(n)}
            found |= instance.get(f"{base.__module__}.{base.__qualname__}", set())
    return found


@cache
def _parsed(path: Path) -> tuple[str, ast.Module]:
    """A module's source and tree, read once per test process (the package is scanned by
    three tests, each file twice: ~0.3 s of CPU a scan)."""
    source = path.read_text(encoding="utf-8")
    return source, ast.parse(source)


@cache
def _our_private_names() -> frozenset[str]:
    """Private names our own code defines (methods, class attributes, ``self`` attributes)."""
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        tree = _parsed(path)[1]
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                    and _private(node.name):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                    and _private(node.attr):
                names.add(node.attr)
            elif isinstance(node, (ast.AnnAssign, ast.Assign)):
                targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
                names |= {t.id for t in targets if isinstance(t, ast.Name) and _private(t.id)}
    return frozenset(names)


def private_textual_uses(root: Path, skip: Path | None = None) -> list[str]:
    """``file:line: name`` for each private Textual name used under ``root``."""
    textual_names = _textual_private_names()
    ours = _our_private_names()
    hits: list[str] = []
    for path in sorted(root.rglob("*.py")):
        if skip is not None and skip in path.parents or path.name == "__main__.py":
            continue
        inside = PACKAGE in path.parents
        rel = path.relative_to(PACKAGE.parent if inside else root)
        module_name = ".".join(rel.with_suffix("").parts).removesuffix(".__init__")
        module = importlib.import_module(module_name) if inside else None
        source, tree = _parsed(path)
        uses_textual = "textual" in source

        def hit(node: ast.AST, name: str, *, _rel: Path = rel) -> None:
            hits.append(f"{_rel}:{getattr(node, 'lineno', 0)}: {name}")

        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module \
                    and node.module.split(".")[0] == "textual" \
                    and any(_private(part) for part in node.module.split(".")):
                hit(node, f"from {node.module} import …")
        for cls_node in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            cls = getattr(module, cls_node.name, None) if module is not None else None
            if not isinstance(cls, type):
                continue
            theirs = _textual_attrs_of(cls)
            for node in ast.walk(cls_node):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                        and node.name in theirs:
                    hit(node, f"overrides {node.name}")
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                        and node.target.id in theirs:
                    hit(node, f"declares {node.target.id}")
                elif isinstance(node, ast.Attribute) and node.attr in theirs and (
                        isinstance(node.value, ast.Name) and node.value.id == "self"
                        or isinstance(node.value, ast.Call)
                        and getattr(node.value.func, "id", "") == "super"):
                    hit(node, node.attr)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr) and uses_textual \
                    and node.attr in textual_names and node.attr not in ours \
                    and not (isinstance(node.value, ast.Name) and node.value.id == "self") \
                    and not (isinstance(node.value, ast.Call)
                             and getattr(node.value.func, "id", "") == "super"):
                hit(node, node.attr)
    return sorted(set(hits))


OUTSIDE_PERF = {
    "memharness_tui/tui/app.py": {"overrides _handle_exception", "_handle_exception",
                                  "_return_code"},
}
"""The one exception, by name: Textual has no public hook for an unhandled error, and the
app's promise (one line and a crash log, never a traceback) is an override of
``App._handle_exception`` that sets ``_return_code``; it must be the App's own method
(``MemharnessApp.__mro__`` is ``MemharnessApp, App``). The guard below checks both names."""


def test_no_private_textual_name_outside_perf() -> None:
    hits = [h for h in private_textual_uses(PACKAGE, skip=PERF)
            if h.rsplit(": ", 1)[1] not in OUTSIDE_PERF.get(h.split(":", 1)[0], set())]
    assert not hits, ("private Textual names belong in memharness_tui/tui/perf (with what they "
                      "replace and buy); found elsewhere:\n" + "\n".join(hits))


TEXTUAL_VERSION = "8.2.8"
"""The Textual release perf/ was written and measured against (pinned in pyproject.toml)."""

RELIES_ON: dict[str, tuple[str, ...]] = {
    "textual.screen.Screen": ("_update_timer", "_on_timer_update", "_Screen__update_timer",
                              "_compositor", "_dirty_widgets", "_on_screen_resume"),
    "textual.app.App": ("_background_screens", "_handle_exception", "_return_code",
                        "_check_bindings", "_refresh_truecolor_filter"),
    "textual.widget.Widget": ("_scroll_update", "_size", "_layout_required",
                              "_repaint_required", "_clear_arrangement_cache",
                              "_layout_updates", "_refresh_scrollbars", "_size_updated",
                              "_horizontal_scrollbar", "_vertical_scrollbar", "_forward_event"),
    "textual.message_pump.MessagePump": ("_context", "_dispatch_message"),
    "textual.dom.DOMNode": ("_reactive_connect",),
    "textual.widgets.RichLog": ("_size_known",),
    "textual.scroll_view.ScrollView": ("_size_updated",),
    "textual.widgets.Tree": ("_on_resize", "_line_cache"),
    "textual.widgets.DataTable": ("_clear_caches", "_update_dimensions", "_row_render_cache",
                                  "_cell_render_cache", "_line_cache", "_styles_cache",
                                  "_get_styles_to_render_cell", "_on_resize"),
    "textual.widgets.Footer": ("_bindings_ready",),
    "textual.widgets._footer": ("FooterKey",),
    "textual.widgets._footer.FooterKey": ("_disabled",),
}
"""Every private Textual name ``perf/`` leans on, by where Textual defines it."""

SIGNATURES = {
    ("textual.scroll_view.ScrollView", "_size_updated"):
        ["self", "size", "virtual_size", "container_size", "layout"],
    ("textual.widget.Widget", "_scroll_update"): ["self", "virtual_size"],
    ("textual.app.App", "_handle_exception"): ["self", "error"],
    ("textual.app.App", "_check_bindings"): ["self", "key", "priority"],
    ("textual.widget.Widget", "_forward_event"): ["self", "event"],
    ("textual.message_pump.MessagePump", "_dispatch_message"): ["self", "message"],
    ("textual.screen.Screen", "_on_screen_resume"): ["self", "event"],
}
"""Private methods ``perf/`` calls or overrides with these parameters."""


def _resolve(dotted: str) -> object:
    module_name, _, attr = dotted.rpartition(".")
    try:
        return importlib.import_module(dotted)
    except ImportError:
        return getattr(importlib.import_module(module_name), attr)


def _has(owner: object, name: str) -> bool:
    if hasattr(owner, name):
        return True
    if isinstance(owner, type):  # an attribute set in __init__: look for its assignment
        return any(name in _textual_instance_attrs().get(f"{k.__module__}.{k.__qualname__}", ())
                   for k in owner.__mro__)
    return False


def test_perf_relies_on_what_textual_still_has() -> None:
    problems = []
    if version("textual") != TEXTUAL_VERSION:
        problems.append(f"Textual is {version('textual')}, but tui/perf was measured against "
                        f"{TEXTUAL_VERSION}: check each trick there still pays and update "
                        "TEXTUAL_VERSION.")
    for where, names in RELIES_ON.items():
        owner = _resolve(where)
        problems += [f"Textual's {where} no longer has {name}, which tui/perf relies on."
                     for name in names if not _has(owner, name)]
    for (where, name), params in SIGNATURES.items():
        got = list(inspect.signature(getattr(_resolve(where), name)).parameters)
        if got != params:
            problems.append(f"Textual's {where}.{name} now takes {got}, not {params}, which "
                            "tui/perf relies on.")
    assert not problems, "\n".join(problems)


def test_perf_declares_every_private_name_it_uses() -> None:
    """A new trick in perf/ says what it leans on (so the guard above checks it)."""
    declared = {name for names in RELIES_ON.values() for name in names}
    used = {line.rsplit(": ", 1)[1].removeprefix("overrides ").removeprefix("declares ")
            for line in private_textual_uses(PERF)}
    used = {u for u in used if not u.startswith("from ")}
    assert used <= declared, f"perf/ uses private Textual names not in RELIES_ON: " \
                             f"{sorted(used - declared)}"


def test_the_guard_sees_a_private_name(tmp_path: Path) -> None:
    """The scanner itself: a use of ``_compositor`` (or a private module) is named by file
    and line."""
    (tmp_path / "probe.py").write_text(textwrap.dedent('''
        from textual.screen import Screen
        from textual.widgets._footer import FooterKey


        def size(screen: Screen) -> object:
            return screen._compositor.size, FooterKey
    '''))
    hits = private_textual_uses(tmp_path)
    assert "probe.py:7: _compositor" in hits
    assert "probe.py:3: from textual.widgets._footer import …" in hits
