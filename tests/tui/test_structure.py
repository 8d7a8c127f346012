"""The house kept in order (#11 bullets 4 and 9): small classes, no test hooks in production
code, one CSS convention, one modal-box style."""

from __future__ import annotations

import ast
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


def test_one_css_convention():
    for path in TUI.rglob("*.py"):
        assert "DEFAULT_CSS =" not in path.read_text(encoding="utf-8"), path.name
    from memharness_tui.tui.app import MemharnessApp

    paths = MemharnessApp.CSS_PATH
    beside_widgets = [p.name for p in (TUI / "widgets").rglob("*.tcss")]  # e.g. the Hygiene tab's
    assert sorted(p.name for p in paths) == sorted(
        [*(p.name for p in TUI.glob("*.tcss")), *beside_widgets])


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
