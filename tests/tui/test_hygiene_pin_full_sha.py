"""The Hygiene tab's pin: the commit box starts at HEAD, a short SHA is stored in full (as a
rewrite stores it), a commit git does not know is refused, and the preview shows the commit
and path it writes."""

from __future__ import annotations

import subprocess
from pathlib import Path

from textual.widgets import Input, Static

from memharness_tui.tui.screens.hygiene_edit import PinEditor
from memharness_tui.tui.screens.hygiene_preview import PlanPreview

from .conftest import settle
from .test_hygiene_tab import app_on, highlight, hyg, modal, open_tab, until  # noqa: F401


def _commit_here(root: Path) -> str:
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    (root / "src").mkdir(exist_ok=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "src/app.py"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first"], check=True)
    return subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()


def _plain(static: Static) -> str:
    return static.render().plain  # type: ignore[union-attr]


async def test_a_short_sha_is_stored_in_full_and_shown_before_writing(hyg, tmp_path: Path):  # noqa: F811
    store, _ = hyg
    head = _commit_here(tmp_path)  # the cwd: the app's repo is the one found here
    app = app_on(store, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        flag = await highlight(pilot, pane, "code-map")
        await pilot.press("p")
        editor = await modal(pilot, PinEditor)
        box = editor.query_one("#pin-commit", Input)
        assert box.value == head  # HEAD of the repo, prefilled
        box.value = "0000000"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "0000000" in _plain(editor.query_one("#edit-error", Static)),
                    "the refusal")
        assert app.screen is editor
        box.value = head[:7]
        editor.query_one("#pin-path", Input).value = "src/app.py"
        await pilot.press("ctrl+s")
        preview = await modal(pilot, PlanPreview)
        shown = _plain(preview.query_one("#preview-pin", Static))
        assert head in shown and "src/app.py" in shown, shown
        await pilot.press("y")
        await settle(pilot)
        new = store.get(store.get(flag.ids[0]).superseded_by)
        assert (new.source_commit, new.source_path) == (head, "src/app.py")
