"""The house kept in order (#11 bullets 4 and 9): small classes, no test hooks in production
code, one CSS convention (#22: every rule beside its owner), one modal-box style."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

from memharness_tui.tui.screens.confirm import ConfirmScreen
from memharness_tui.tui.screens.repos import ReposScreen

from .conftest import make_app, settle

TUI = Path(__file__).resolve().parents[2] / "memharness_tui" / "tui"
HOOKS = ("progress_seen", "last_summary", "step_pass", "settle_inputs", "shown_params",
         "threaded=False", "reason_provider = self")


def test_no_class_over_about_300_lines_and_no_test_hooks():
    big = []
    for path in TUI.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > 340:
                big.append((path.name, node.name, node.end_lineno - node.lineno + 1))
        assert not [h for h in HOOKS if h in text], path.name
    assert big == []


def _selector_names(css: Path) -> tuple[set[str], set[str]]:
    """(#ids and .classes, TypeNames) that ``css``'s selectors name (comments dropped)."""
    text = re.sub(r"/\*.*?\*/", "", css.read_text(encoding="utf-8"), flags=re.DOTALL)
    selectors = " ".join(re.findall(r"([^{};]+)\{", text))
    return (set(re.findall(r"[#.]([A-Za-z_-][\w-]*)", selectors)),
            set(re.findall(r"(?<![\w#.-])([A-Z]\w*)", selectors)))


def _package_classes() -> dict[str, type]:
    """Every class defined in memharness_tui.tui, by name (its modules imported)."""
    found: dict[str, type] = {}
    for path in TUI.rglob("*.py"):
        name = ".".join(path.relative_to(TUI.parent.parent).with_suffix("").parts)
        module = importlib.import_module(name.removesuffix(".__init__"))
        found.update({k: v for k, v in vars(module).items()
                      if isinstance(v, type) and v.__module__ == module.__name__})
    return found


def test_one_css_convention():
    """Every rule lives beside its owner (tui/tcss.py): a screen (and the App) loads
    ``<module>.tcss`` through ``CSS_PATH = tcss.path(__file__)``, a widget reads it into
    ``DEFAULT_CSS = tcss.rules(__file__)``; no CSS in Python strings; each .tcss's ids and
    classes are spelled in its module; app.tcss styles only Textual's stock widgets and the
    one modal box."""
    from textual.app import App
    from textual.screen import Screen
    from textual.widget import Widget

    styled: dict[Path, list[str]] = {}
    for path in TUI.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            for stmt in node.body:
                targets = [t.id for t in getattr(stmt, "targets", []) if isinstance(t, ast.Name)]
                for attr in {"CSS", "CSS_PATH", "DEFAULT_CSS"} & set(targets):
                    call = ast.unparse(stmt.value)  # type: ignore[attr-defined]
                    want = {"CSS_PATH": "tcss.path(__file__)", "DEFAULT_CSS": "tcss.rules(__file__)"}
                    assert call == want.get(attr), (path.name, node.name, attr, call)
                    styled.setdefault(path, []).append(node.name)

    classes = _package_classes()
    for path, names in styled.items():
        for name in names:
            cls = classes[name]
            if "CSS_PATH" in vars(cls):
                assert issubclass(cls, Screen | App), f"{name}: only screens and the App have CSS_PATH"
            else:
                assert issubclass(cls, Widget) and not issubclass(cls, Screen), name
        widgets = [n for n in names if "DEFAULT_CSS" in vars(classes[n])]
        assert len(widgets) <= 1, f"{path.name}: one widget class with rules per module, {widgets}"
    assert classes["MemharnessApp"].CSS_PATH == TUI / "app.tcss"

    sheets = set(TUI.rglob("*.tcss"))
    assert sheets == {p.with_suffix(".tcss") for p in styled}, "a .tcss with no owner beside it"
    for css in sheets - {TUI / "app.tcss"}:
        source = css.with_suffix(".py").read_text(encoding="utf-8")
        names, types = _selector_names(css)
        assert [n for n in names if n not in source] == [], f"{css.name}: rules for another module"
        ours = {t for t in types if t in classes}
        assert [t for t in ours if t not in source] == [], f"{css.name}: another module's widget"

    names, types = _selector_names(TUI / "app.tcss")
    assert not types & set(classes), "app.tcss: only Textual's stock widgets"
    # a class or id there is the modal box's (modal-*, .danger) or one Textual itself puts on
    # its widgets (-invalid, -textual-compact, -style-default, label, …): named in its source
    import textual

    textual_source = "\n".join(p.read_text(encoding="utf-8")
                               for p in Path(textual.__file__).parent.rglob("*.py"))
    foreign = {n for n in names if not n.startswith("modal-") and "--" not in n
               and n != "danger" and f'"{n}"' not in textual_source
               and f"'{n}'" not in textual_source and f" {n}" not in textual_source
               and not (n.startswith("-") and f'"{n[1:]}"' in textual_source)}  # f"-{variant}"
    assert foreign == set(), "app.tcss: only the modal box and Textual's parts"


async def test_every_modal_uses_the_one_modal_box(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        for screen in (ConfirmScreen("Sure?", "details"), ConfirmScreen("Gone?", danger=True),
                       ReposScreen([])):
            app.push_screen(screen)
            await settle(pilot)
            boxes = list(app.screen.query(".modal-box"))
            assert len(boxes) == 1, screen
            box = boxes[0]
            assert box.styles.border_top[0] == "thick"
            app.pop_screen()
            await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert len(list(app.screen.query(".modal-box"))) == 1
