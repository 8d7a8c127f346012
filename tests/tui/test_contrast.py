"""Issue #21: every text/background pair the shipped themes draw on the main screens reaches
WCAG AA — 4.5:1 for text, 3:1 for decorative marks (borders, rules, scrollbar glyphs, and
Textual's half-block edges: tall borders of text boxes, selects and buttons, a scrollbar
thumb's ends, the footer's separator) — in truecolor and reduced to 256 colours as Rich
reduces it (``Color.downgrade(EIGHT_BIT)``).

Measured from what is drawn: the app runs with each theme (Pilot, 120×36, a store with
stale, unresolved and current facts), and each screen's cells are read from Textual's public
``App.export_screenshot`` (Rich's SVG export: one ``<rect>`` per background run, one
``<text>`` per run of glyphs, its colour in a CSS class; a ``dim`` run's colour is already
blended toward its background there, as a terminal shows it). Run with ``-s`` to print the
table: theme, foreground on background, sample text, truecolor ratio, 256-colour ratio.
"""

from __future__ import annotations

import html
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest
from rich.color import Color, ColorSystem

from memharness_tui.tui.screens.detail import FactDetailScreen
from memharness_tui.tui.themes import load_theme_file, shipped_theme_files

from .conftest import make_app, press_burst, settle

SIZE = (120, 36)
TEXT_MIN, MARK_MIN = 4.5, 3.0
# box-drawing lines (borders, rules, the tab underline) and glyph icons: marks, 3:1
_MARK = re.compile(r"^[\u2500-\u257f\u25b2-\u25cf\u2b58 ]+$")
# block elements (U+2580–U+259F): Textual's "tall"/"wide" widget edges, a scrollbar's ends,
# the footer's group separator — marks too (3:1), listed as edges in the table
_EDGE = re.compile(r"^[\u2580-\u259f ]+$")
_CSS = re.compile(r"\.([\w-]+-r\d+) \{ ([^}]*) \}")
_RECT = re.compile(r'<rect fill="(#[0-9a-f]{6})" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"')
_TEXT = re.compile(r'<text class="([\w-]+-r\d+)" x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*)</text>')
CHAR_W, LINE_H = 12.2, 24.4  # Rich's SVG cell size


@dataclass(frozen=True)
class Run:
    fg: str
    bg: str
    text: str
    kind: str  # "text" (4.5:1), "mark" (3:1) or "edge" (a half-block mark, 3:1)


def _luminance(hex_colour: str) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def ratio(fg: str, bg: str) -> float:
    a, b = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def to_256(hex_colour: str) -> str:
    """The colour a 256-colour terminal shows for ``hex_colour`` (Rich's own reduction)."""
    reduced = Color.parse(hex_colour).downgrade(ColorSystem.EIGHT_BIT)
    r, g, b = reduced.get_truecolor()
    return f"#{r:02x}{g:02x}{b:02x}"


def runs(svg: str) -> list[Run]:
    """Every run of glyphs on screen with the colour it is drawn in and the one behind it."""
    fills = {}
    for name, css in _CSS.findall(svg):
        found = re.search(r"fill: (#[0-9a-f]{6})", css)
        fills[name] = found.group(1) if found else None
    backgrounds: dict[tuple[int, int], str] = {}
    for fill, x, y, width in _RECT.findall(svg):
        line = round((float(y) - 1.5) / LINE_H)
        start, cells = round(float(x) / CHAR_W), round(float(width) / CHAR_W)
        for col in range(start, start + cells):
            backgrounds[(line, col)] = fill
    default_bg = re.search(r'<rect fill="(#[0-9a-f]{6})"[^>]*rx="8"', svg)
    found: list[Run] = []
    for name, x, y, raw in _TEXT.findall(svg):
        text = html.unescape(raw).replace("\xa0", " ")
        line = round((float(y) - 20) / LINE_H)  # the baseline: char_height (20) below the top
        col = round(float(x) / CHAR_W)
        fg = fills.get(name)
        if fg is None or not text.strip():
            continue
        bg = backgrounds.get((line, col), default_bg.group(1) if default_bg else "#000000")
        if fg == bg:
            continue  # drawn in its own background: nothing shows
        kind = "edge" if _EDGE.match(text) else "mark" if _MARK.match(text) else "text"
        found.append(Run(fg, bg, text.strip(), kind))
    return found


Step = Callable[[object], Awaitable[None]]


async def _screens(pilot) -> list[tuple[str, str]]:
    """(screen name, SVG) for the main screens, in the order a user meets them."""
    app = pilot.app
    shots = []

    async def shot(name: str) -> None:
        await settle(pilot)
        shots.append((name, app.export_screenshot()))

    await shot("recall")
    await pilot.press("down", "down")
    await shot("recall, cursor row")
    for key, name in (("2", "subjects"), ("3", "changes"), ("4", "staleness")):
        await pilot.press(key)
        await shot(name)
        if name == "changes":  # rows since the store began, the cursor on a revised row
            app.screen.query_one("#diff-since").value = "2026-01-01"
            app.screen.query_one("#diff-run").press()
            await settle(pilot)
            app.screen.query_one("#diff-table").focus()
            await pilot.press("down")
            await shot("changes, rows")
            await press_burst(pilot, *["down"] * 16)
            await shot("changes, cursor row")
    await pilot.press("1")
    await settle(pilot)
    return shots


async def _detail(pilot, fact_id: int) -> tuple[str, str]:
    pilot.app.open_fact(fact_id)
    await settle(pilot)
    assert isinstance(pilot.app.screen, FactDetailScreen)
    svg = pilot.app.export_screenshot()
    await pilot.press("escape")
    return ("detail", svg)


def _theme_names() -> list[str]:
    return [load_theme_file(path).name for path in shipped_theme_files()]


def measured(shots: list[tuple[str, str]]) -> dict[tuple[str, str, str], tuple[str, str]]:
    """(fg, bg, kind) → (a sample text, the screen it is on), one per distinct pair."""
    pairs: dict[tuple[str, str, str], tuple[str, str]] = {}
    for screen, svg in shots:
        for run in runs(svg):
            pairs.setdefault((run.fg, run.bg, run.kind), (run.text[:24], screen))
    return pairs


def scrollbar_pairs(widget) -> dict[tuple[str, str, str], tuple[str, str]]:
    """A scrollbar thumb's ends (``▁``…``▇``, ``▉``…``▏``) are its colour on the bar's, at rest,
    hovered and dragged: read from the computed styles (no screen shows every state)."""
    st = widget.styles
    out = {}
    for state, fg, bg in (
            ("at rest", st.scrollbar_color, st.scrollbar_background),
            ("hovered", st.scrollbar_color_hover, st.scrollbar_background_hover),
            ("dragged", st.scrollbar_color_active, st.scrollbar_background_active)):
        out[((bg + fg).hex[:7].lower(), bg.hex[:7].lower(), "edge")] = (
            f"▁▇ thumb {state}", "scrollbars")
    return out


NEEDED = {"text": TEXT_MIN, "mark": MARK_MIN, "edge": MARK_MIN}


def table_rows(theme: str, pairs) -> list[tuple[str, str, str, str, float, float, float]]:
    rows = []
    for (fg, bg, kind), (sample, screen) in sorted(pairs.items()):
        rows.append((theme, f"{fg} on {bg}", sample, screen, ratio(fg, bg),
                     ratio(to_256(fg), to_256(bg)), NEEDED[kind]))
    return rows


@pytest.mark.parametrize("theme", _theme_names())
async def test_every_drawn_pair_reaches_wcag_aa(sample, config_dir, theme, capsys):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=SIZE) as pilot:
        app.theme = theme
        await settle(pilot)
        shots = await _screens(pilot)
        shots.append(await _detail(pilot, info.stale))
        app.as_of = "2026-03-15T00:00:00.000Z"  # the time-travel banner
        await settle(pilot)
        shots.append(("recall, time travel", app.export_screenshot()))
        bars = scrollbar_pairs(app.screen.query_one("#results"))
    rows = table_rows(theme, {**measured(shots), **bars})
    assert len(rows) > 10  # the reading found the screen's runs
    with capsys.disabled():
        print(f"\n{theme}: pair | sample | screen | truecolor | 256 colours | needed")
        for _, pair, sample_text, screen, true, eight, need in rows:
            flag = "" if min(true, eight) >= need else "   <-- below"
            print(f"  {pair} | {sample_text!r} | {screen} | {true:.2f} | {eight:.2f} | "
                  f"{need}{flag}")
    failing = [r for r in rows if min(r[4], r[5]) < r[6]]
    assert not failing, "\n".join(
        f"{pair} {sample_text!r} ({screen}): {true:.2f} truecolor, {eight:.2f} at 256, "
        f"needs {need}" for _, pair, sample_text, screen, true, eight, need in failing)


def test_the_ratio_and_the_reduction_are_wcag_and_rich():
    assert ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert to_256("#ff0000") == "#ff0000"
    assert to_256("#0f6e68") != "#0f6e68"  # not in the 256-colour cube: moved
