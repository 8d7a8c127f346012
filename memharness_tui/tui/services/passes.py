"""The UI's one door to the staleness pass: the pass itself, its process, the wrong-repo
precheck, follow mode's HEAD rule and the follow report — with the types the UI shows.

Widgets import these names from here, never from :mod:`memharness_tui.staleness` (an import
contract in pyproject.toml says so). A pass reads and writes the database on its own
connection, opened from the path ``StoreService.own_connection()`` names.

The light names (the pass process's client, verdicts, the HEAD rule) are imported with this
module; the ones that bring pygit2 and the store (the pass, the precheck, the report) only
when first used, as the UI's own lazy imports did, so starting the app imports no git.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from memharness_tui.staleness.verdicts import Verdict
from memharness_tui.staleness.watch import SettledHeads, change_line
from memharness_tui.staleness.work import WorkItem
from memharness_tui.staleness.worker import PassWorker, WorkerLost, job_for

if TYPE_CHECKING:
    from memharness_tui.staleness.git import RepoError
    from memharness_tui.staleness.precheck import PinCoverage, coverage_and_work, pin_coverage
    from memharness_tui.staleness.report import counts_line, triage_report
    from memharness_tui.staleness.runner import PassProgress, StalenessPass, summary_line

__all__ = ["PassProgress", "PassWorker", "PinCoverage", "RepoError", "SettledHeads",
           "StalenessPass", "Verdict", "WorkItem", "WorkerLost", "change_line", "counts_line",
           "coverage_and_work", "job_for", "pin_coverage", "summary_line", "triage_report"]

#: name → the staleness module that defines it, imported on first use
_LATER = {
    "RepoError": "git",
    "PinCoverage": "precheck",
    "coverage_and_work": "precheck",
    "pin_coverage": "precheck",
    "counts_line": "report",
    "triage_report": "report",
    "PassProgress": "runner",
    "StalenessPass": "runner",
    "summary_line": "runner",
}


def __getattr__(name: str) -> Any:
    module = _LATER.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"memharness_tui.staleness.{module}"), name)
