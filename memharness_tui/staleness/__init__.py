"""The staleness engine: judge pinned facts against git (SPEC §8).

Only :mod:`memharness_tui.staleness.git` imports pygit2. The pure parts
(:mod:`.pins`, :mod:`.verdicts`) have no I/O; :mod:`.runner` drives a pass
through the Store; :mod:`.cli` is the headless ``memharness-tui staleness``.
"""

from .pins import Pin, parse_source_ref
from .verdicts import CURRENT, STALE, UNRESOLVED, GitFacts, Verdict, classify

__all__ = [
    "CURRENT",
    "STALE",
    "UNRESOLVED",
    "GitFacts",
    "Pin",
    "Verdict",
    "classify",
    "parse_source_ref",
]
