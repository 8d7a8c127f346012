"""The staleness engine: judge pinned facts against git (SPEC §8).

Only :mod:`memharness_tui.staleness.git` imports pygit2. The pure parts
(:mod:`.pins`, :mod:`.verdicts`) have no I/O; :mod:`.runner` drives a pass
through the Store; :mod:`.cli` is the headless ``memharness-tui staleness``. Triage of stale facts:
:mod:`.terms` and :mod:`.triage` are pure, :mod:`.analysis` is the cached service
(``Triager``), :mod:`.report` renders Markdown/JSON and :mod:`.watch` runs passes
when HEAD moves.
"""

from typing import Any

from .pins import Pin, parse_source_ref
from .verdicts import CURRENT, STALE, UNRESOLVED, GitFacts, Verdict, classify

__all__ = [
    "CURRENT",
    "STALE",
    "UNRESOLVED",
    "Drift",
    "GitChecker",
    "GitFacts",
    "PassProgress",
    "PassReport",
    "Pin",
    "RepoError",
    "StalenessPass",
    "Triage",
    "Triager",
    "Verdict",
    "analyse",
    "checker_for",
    "classify",
    "find_repo",
    "parse_source_ref",
]

_LAZY = {
    "Drift": "git",
    "GitChecker": "git",
    "RepoError": "git",
    "checker_for": "git",
    "find_repo": "git",
    "PassProgress": "runner",
    "PassReport": "runner",
    "StalenessPass": "runner",
    "Triage": "triage",
    "Triager": "analysis",
    "analyse": "analysis",
}


def __getattr__(name: str) -> Any:
    """Import the pygit2-backed parts only when asked for (the pure parts stay light)."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
