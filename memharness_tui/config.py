"""App settings of our own (theme, recent repos): the platformdirs config dir, never beside the DB.

``MEMHARNESS_TUI_CONFIG_DIR`` overrides the folder (tests point it at a temp dir).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from memharness_tui.paths import cache_dir, config_dir

__all__ = ["Settings", "cache_dir", "config_dir", "load_settings", "save_settings",
           "user_themes_dir"]

SETTINGS_FILE = "settings.json"
MAX_RECENT_REPOS = 10


def user_themes_dir(folder: Path | None = None) -> Path:
    return (folder or config_dir()) / "themes"


@dataclass
class Settings:
    theme: str | None = None
    recent_repos: list[str] = field(default_factory=list)

    def add_recent_repo(self, repo: str) -> None:
        self.recent_repos = [repo, *[r for r in self.recent_repos if r != repo]][:MAX_RECENT_REPOS]


def load_settings(folder: Path | None = None) -> Settings:
    """Read settings; a missing or unreadable file gives defaults (settings are never worth a crash)."""
    path = (folder or config_dir()) / SETTINGS_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Settings()
    if not isinstance(raw, dict):
        return Settings()
    theme = raw.get("theme")
    repos = raw.get("recent_repos")
    return Settings(
        theme=theme if isinstance(theme, str) else None,
        recent_repos=[r for r in repos if isinstance(r, str)] if isinstance(repos, list) else [],
    )


def save_settings(settings: Settings, folder: Path | None = None) -> Path:
    """Write settings atomically (temp file + rename); returns the path written."""
    target_dir = folder or config_dir()
    target_dir.mkdir(parents=True, exist_ok=True)
    path = target_dir / SETTINGS_FILE
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(asdict(settings), indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path
