"""Load themes from TOML: the ones shipped in ``memharness_tui/themes`` and the user's own.

A theme file is a flat table of Textual ``Theme`` fields plus an optional ``[variables]`` table.
A broken file is reported (path and reason) and skipped; it never stops the app.

Every theme, ours, the user's or Textual's, is checked by :func:`theme_problem` before the app
offers or applies it: each value strictly, as the app will use it (a colour Textual and Rich can
both draw, numbers that are finite fractions, each variable parsed by Textual's CSS parser in
the role its name gives it, a name that is plain terminal text).
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import Theme

DEFAULT_THEME = "memharness-dark"
_COLOR_FIELDS = (
    "primary", "secondary", "warning", "error", "success", "accent",
    "foreground", "background", "surface", "panel", "boost",
)
_ALLOWED = {"name", "dark", "luminosity_spread", "text_alpha", "variables", *_COLOR_FIELDS}
DRAWN_FIELDS = ("success", "error", "warning", "accent")
"""Also drawn in Rich styles (``render.theme_color``), so Rich must understand them."""
MAX_NAME = 64
_VARIABLE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
_MAX_VARIABLE_VALUE = 100


def _name_problem(name: str) -> str | None:
    from memharness_tui.tui.render import clean

    if len(name) > MAX_NAME:
        return f"the name is longer than {MAX_NAME} characters"
    if clean(name, single_line=True) != name:
        return f"the name {name!r} contains control characters"
    return None


def _colour_problem(key: str, value: str, *, drawn: bool = True) -> str | None:
    """Why ``value`` cannot be the theme's ``key`` colour (None when it can); ``drawn``: also
    check that Rich can draw the fields the app uses in Rich styles."""
    try:
        colour = Color.parse(value)
    except ColorParseError:
        return f"'{key}' is not a colour: {value!r}"
    if colour.ansi is not None:
        return (f"'{key}' is the terminal's ANSI colour {value!r}, which this app cannot "
                "draw with; use a colour like '#3FB8AF'")
    if drawn and key in DRAWN_FIELDS:
        from rich.color import Color as RichColor
        from rich.color import ColorParseError as RichColorParseError

        try:
            RichColor.parse(value)
        except RichColorParseError:
            return f"'{key}' must be an opaque colour like '#3FB8AF', not {value!r}"
    return None


def _normal_colour(key: str, value: str) -> str:
    """A colour from a theme file as ``#RRGGBB`` (``#RRGGBBAA`` when translucent), so Rich
    draws what Textual parsed (``hsl(…)``, ``rgb(…)``, names); ValueError when it is none."""
    problem = _colour_problem(key, value, drawn=False)  # the ANSI check needs the text
    if problem:
        raise ValueError(problem)
    try:
        return Color.parse(value).hex
    except (ColorParseError, ValueError, OverflowError):
        raise ValueError(f"'{key}' is not a colour: {value!r}") from None


def _number_problem(key: str, value: float) -> str | None:
    if not math.isfinite(value) or not 0 <= value <= 1:
        return f"'{key}' must be a number from 0 to 1, not {value!r}"
    return None


def _variable_problem(name: str, value: str) -> str | None:
    """Why ``$name: value`` would break the app's CSS: parsed by Textual, in the role its name
    gives it (``…-style…`` a text style, anything else a colour, as Textual's own)."""
    from textual.css.stylesheet import Stylesheet

    if not _VARIABLE_NAME.fullmatch(name):
        return f"[variables] has a name that is not a CSS identifier: {name!r}"
    if len(value) > _MAX_VARIABLE_VALUE or any(c in value for c in "$;{}\n\r"):
        return f"[variables] '{name}' is not a single CSS value: {value!r}"
    styled = "style" in name.split("-")
    rule = "text-style: $v;" if styled else "color: $v; background: $v;"
    sheet = Stylesheet(variables={"v": value})
    sheet.add_source(f"Screen {{ {rule} }}", read_from=("theme", name))
    try:
        sheet.parse()
    except Exception:  # noqa: BLE001 - any parse failure is the same answer
        kind = "text style" if styled else "colour"
        return f"[variables] '{name}' is not a {kind}: {value!r}"
    return None


def theme_problem(theme: Theme) -> str | None:
    """Why the app must not offer or apply ``theme`` (one phrase), or None when it may."""
    problem = _name_problem(theme.name)
    if problem:
        return problem
    for key in _COLOR_FIELDS:
        value = getattr(theme, key, None)
        if value is not None and (problem := _colour_problem(key, str(value))):
            return problem
    for key in ("luminosity_spread", "text_alpha"):
        if problem := _number_problem(key, float(getattr(theme, key))):
            return problem
    for name, value in theme.variables.items():
        if problem := _variable_problem(str(name), str(value)):
            return problem
    return None  # finite fractions and parsed colours: Textual's colour system can be built


@dataclass(frozen=True)
class ThemeProblem:
    path: Path
    reason: str

    def __str__(self) -> str:
        return f"{self.path.name}: {self.reason}"


def shipped_theme_dirs() -> list[Path]:
    """Where the shipped themes are: ``themes/`` at the top of a source checkout (editable
    installs run from there), else the wheel's data folder ``<prefix>/share/memharness-tui``."""
    import sys
    import sysconfig

    checkout = Path(__file__).resolve().parents[2] / "themes"
    dirs = [checkout]
    for base in (sysconfig.get_path("data"), sys.prefix):
        if base:
            dirs.append(Path(base) / "share" / "memharness-tui" / "themes")
    return list(dict.fromkeys(dirs))


def shipped_theme_files() -> list[Path]:
    """The shipped theme files (the first folder that has any)."""
    for folder in shipped_theme_dirs():
        if folder.is_dir():
            found = sorted(p for p in folder.iterdir() if p.name.endswith(".toml"))
            if found:
                return found
    return []


def theme_from_mapping(data: dict[str, object], source: str) -> Theme:
    """Build a Theme from parsed TOML; raises ValueError with a short reason."""
    unknown = sorted(set(data) - _ALLOWED)
    if unknown:
        raise ValueError(f"unknown key(s): {', '.join(unknown)}")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError("missing 'name'")
    if "primary" not in data:
        raise ValueError("missing 'primary'")
    kwargs: dict[str, object] = {"name": name.strip()}
    for key in _COLOR_FIELDS:
        if key in data:
            value = data[key]
            if not isinstance(value, str):
                raise ValueError(f"'{key}' must be a colour string")
            kwargs[key] = _normal_colour(key, value)
    if "dark" in data:
        if not isinstance(data["dark"], bool):
            raise ValueError("'dark' must be true or false")
        kwargs["dark"] = data["dark"]
    for key in ("luminosity_spread", "text_alpha"):
        if key in data:
            if not isinstance(data[key], int | float) or isinstance(data[key], bool):
                raise ValueError(f"'{key}' must be a number")
            kwargs[key] = float(data[key])  # type: ignore[arg-type]
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in variables.items()
    ):
        raise ValueError("[variables] must map names to strings")
    kwargs["variables"] = dict(variables)
    theme = Theme(**kwargs)  # type: ignore[arg-type]
    problem = theme_problem(theme)
    if problem:
        raise ValueError(problem)
    return theme


def load_theme_file(path: Path) -> Theme:
    """A theme file read as data: a regular file of at most ``MAX_CONFIG_BYTES`` (never a
    FIFO or a device), parsed without recursing past Python's limit."""
    from memharness_tui.config import SettingsFileDamaged, read_config_bytes

    try:
        raw = read_config_bytes(path)
    except SettingsFileDamaged as exc:
        raise ValueError(exc.reason) from None
    if raw is None:
        raise ValueError("cannot read (No such file or directory)")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except RecursionError:
        raise ValueError("nested too deeply to read") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"not valid TOML ({exc})") from None
    return theme_from_mapping(data, str(path))


def load_themes(paths: Iterable[Path]) -> tuple[list[Theme], list[ThemeProblem]]:
    themes: list[Theme] = []
    problems: list[ThemeProblem] = []
    for path in paths:
        try:
            themes.append(load_theme_file(path))
        except ValueError as exc:
            problems.append(ThemeProblem(path, str(exc)))
    return themes, problems


def user_theme_files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.glob("*.toml") if p.is_file())
    except OSError:
        return []
