"""A theme can no longer brick the app (issue #20, item 4): every theme is checked before it is
offered, applied or saved; a saved theme that cannot be used gives way to the default with a
notice; a bad theme file is reported in one sentence and skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.theme import BUILTIN_THEMES
from textual.widgets import OptionList

from memharness_tui.tui import themes as themes_mod
from memharness_tui.tui.screens.main import MainScreen
from memharness_tui.tui.screens.modals import ThemePicker

from .conftest import make_app, said, settle

GOOD = 'name = "my-ocean"\nprimary = "#0077BE"\ndark = true\n'
BAD_FILES = {
    "nan.toml": ('name = "t-nan"\nprimary = "#112233"\nluminosity_spread = nan\n',
                 "'luminosity_spread' must be a number from 0 to 1"),
    "huge.toml": ('name = "t-huge"\nprimary = "#112233"\nluminosity_spread = 1e308\n',
                  "'luminosity_spread' must be a number from 0 to 1"),
    "alpha.toml": ('name = "t-alpha"\nprimary = "#112233"\ntext_alpha = 1e308\n',
                   "'text_alpha' must be a number from 0 to 1"),
    "ansi.toml": ('name = "t-ansi"\nprimary = "#112233"\nsuccess = "ansi_red"\n',
                  "'success' is the terminal's ANSI colour"),
    "seethrough.toml": ('name = "t-see"\nprimary = "#112233"\nerror = "#FF000080"\n',
                        "'error' must be an opaque colour"),
    "css.toml": ('name = "t-css"\nprimary = "#112233"\n[variables]\n'
                 'footer-key-foreground = "red; } Screen { background: red"\n',
                 "[variables] 'footer-key-foreground' is not a single CSS value"),
    "ref.toml": ('name = "t-ref"\nprimary = "#112233"\n[variables]\n'
                 'footer-key-foreground = "$nope"\n',
                 "[variables] 'footer-key-foreground' is not a single CSS value"),
    "kind.toml": ('name = "t-kind"\nprimary = "#112233"\n[variables]\n'
                  'border = "bold"\n', "[variables] 'border' is not a colour"),
    "style.toml": ('name = "t-style"\nprimary = "#112233"\n[variables]\n'
                   'block-cursor-text-style = "#FFFFFF"\n',
                   "[variables] 'block-cursor-text-style' is not a text style"),
    "escape.toml": ('name = "t-\\u001b[31mred"\nprimary = "#112233"\n',
                    "contains control characters"),
    "bidi.toml": ('name = "t-\\u202eevil"\nprimary = "#112233"\n',
                  "contains control characters"),
}


def write_themes(config_dir: Path, files: dict[str, str], saved: str | None = None) -> None:
    themes = config_dir / "themes"
    themes.mkdir(parents=True, exist_ok=True)
    for name, body in files.items():
        (themes / name).write_text(body)
    if saved is not None:
        (config_dir / "settings.json").write_text(json.dumps({"theme": saved}))


def notices(told, word: str) -> list[str]:
    """The messages of the notices ``said`` kept whose title has ``word``."""
    return [n.message for n in told if word in (n.title or "").lower()]


def test_textual_themes_that_cannot_be_drawn_are_found() -> None:
    refused = {name for name, theme in BUILTIN_THEMES.items() if themes_mod.theme_problem(theme)}
    assert {"ansi-dark", "ansi-light"} <= refused
    assert "textual-dark" not in refused and "nord" not in refused and "gruvbox" not in refused
    assert refused <= {"ansi-dark", "ansi-light", "textual-ansi"}


async def test_the_picker_offers_only_themes_that_can_be_used(sample, config_dir):
    store, _ = sample
    write_themes(config_dir, {"mine.toml": GOOD, "css.toml": BAD_FILES["css.toml"][0]})
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert isinstance(app.screen, ThemePicker)
        options = app.screen.query_one("#theme-list", OptionList)
        offered = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert "ansi-dark" in app.available_themes  # registered by Textual, but not offered
        assert "ansi-dark" not in offered and "ansi-light" not in offered
        assert "t-css" not in offered and "my-ocean" in offered and "nord" in offered
        for name in ("my-ocean", "nord", "gruvbox"):  # offered themes preview
            options.highlighted = offered.index(name)
            await settle(pilot)
            assert app.theme == name
        await pilot.press("escape")
        await settle(pilot)
        assert app.theme == "memharness-dark"


@pytest.mark.parametrize("saved", ["ansi-dark", "ansi-light"])
async def test_a_saved_ansi_theme_starts_with_the_default_and_a_notice(sample, config_dir, saved):
    store, _ = sample
    write_themes(config_dir, {}, saved=saved)
    app = make_app(store, config_dir)
    told = said(app)  # a notice's toast may be gone before a loaded machine looks
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        await pilot.press("4")  # the staleness tab draws in theme colours (it crashed here)
        await settle(pilot)
        assert app.theme == "memharness-dark"
        [notice] = notices(told, "saved theme")
        assert f"'{saved}'" in notice and "cannot be used" in notice and "\n" not in notice
    # the setting is left as it was: the user may still want it back
    assert json.loads((config_dir / "settings.json").read_text()) == {"theme": saved}


@pytest.mark.parametrize("filename", sorted(BAD_FILES))
def test_each_bad_theme_file_is_one_sentence_naming_it(tmp_path: Path, filename: str) -> None:
    body, reason = BAD_FILES[filename]
    path = tmp_path / filename
    path.write_text(body)
    themes, [problem] = themes_mod.load_themes([path])
    assert themes == [] and str(problem).startswith(f"{filename}: ") and reason in str(problem)
    assert "\n" not in str(problem) and "\x1b" not in str(problem)
    assert "\u202e" not in str(problem)


async def test_bad_theme_files_are_reported_and_skipped_at_start(sample, config_dir):
    """Each file: one line of one notice; the good file beside them loads; the saved theme,
    one of the bad ones (it crashed every start), gives way to the default."""
    store, _ = sample
    files = {name: body for name, (body, _) in BAD_FILES.items()}
    write_themes(config_dir, {**files, "mine.toml": GOOD}, saved="t-nan")
    app = make_app(store, config_dir)
    told = said(app)  # a notice's toast may be gone before a loaded machine looks
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.theme == "memharness-dark" and "my-ocean" in app.available_themes
        [report] = notices(told, "skipped")
        lines = report.split("\n")
        assert sorted(line.split(":")[0] for line in lines) == sorted(BAD_FILES)
        for line in lines:
            assert BAD_FILES[line.split(":")[0]][1] in line
        assert "\x1b" not in report and "\u202e" not in report
        [notice] = notices(told, "saved theme")
        assert "'t-nan'" in notice and "not installed" in notice


async def test_a_theme_that_cannot_be_used_is_neither_applied_nor_saved(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    told = said(app)  # a notice's toast may be gone before a loaded machine looks
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.themes.choose("ansi-dark")
        await settle(pilot)
        assert app.theme == "memharness-dark"
        assert any("ansi-dark" in n.message and n.severity == "error" for n in told)
    assert not (config_dir / "settings.json").exists()


async def test_a_theme_name_is_shown_as_plain_text(sample, config_dir):
    store, _ = sample
    write_themes(config_dir, {"markup.toml": 'name = "[b]bold[/b] ocean"\nprimary = "#0077BE"\n'})
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        options = app.screen.query_one("#theme-list", OptionList)
        prompts = {options.get_option_at_index(i).id: options.get_option_at_index(i).prompt
                   for i in range(options.option_count)}
        shown = prompts["[b]bold[/b] ocean"]
        assert "[b]bold[/b] ocean" in shown.plain  # literal, not markup
        assert not any("bold" in str(span.style) and span.start > 2 for span in shown.spans)
