"""Memory hygiene: find the ways a memory rots — near-duplicates, fragmented
subjects, code maps, compound and over-long facts, broken chains, stale pins — and fix them
as store writes that keep history. Store-side: no Textual; a UI calls ``scan_path`` from a
worker thread and ``plan_*`` / ``apply`` on the thread that owns its Store.
"""

from __future__ import annotations

from .fixes import (
    AGENTS,
    Applied,
    Plan,
    PlannedRow,
    apply,
    plan_merge,
    plan_pin,
    plan_refile,
    plan_retract,
    plan_split,
    split_parts,
)
from .scan import ScanCancelled, scan, scan_path
from .types import KINDS, HygieneReport

__all__ = [
    "AGENTS",
    "KINDS",
    "Applied",
    "HygieneReport",
    "Plan",
    "PlannedRow",
    "ScanCancelled",
    "apply",
    "plan_merge",
    "plan_pin",
    "plan_refile",
    "plan_retract",
    "plan_split",
    "scan",
    "scan_path",
    "split_parts",
]
