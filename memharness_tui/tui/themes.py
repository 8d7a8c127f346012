"""Load themes from TOML: the ones shipped in ``memharness_tui/themes`` and the user's own.

A theme file is a flat table of Textual ``Theme`` fields plus an optional ``[variables]`` table.
A broken file is reported (path and reason) and skipped; it never stops the app.
"""

from __future__ import annotations

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
            try:
                Color.parse(value)
            except ColorParseError:
                raise ValueError(f"'{key}' is not a colour: {value!r}") from None
            kwargs[key] = value
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
    return Theme(**kwargs)  # type: ignore[arg-type]


def load_theme_file(path: Path) -> Theme:
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"not valid TOML ({exc})") from None
    except OSError as exc:
        raise ValueError(f"cannot read ({exc.strerror or exc})") from None
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
