"""Every ``source_agent`` this program writes: ``memharness-tui/<action>``, one name per kind
of write, so a row says which part of the program wrote it (and the staleness pass can tell
a downgrade it must not halve again)."""

from __future__ import annotations

from typing import Final

NEW: Final = "memharness-tui/new"
"""A fact typed into the app's new-fact form."""
REWRITE: Final = "memharness-tui/rewrite"
"""The user's own rewrite of a fact (the revise form)."""
STILL_TRUE: Final = "memharness-tui/still-true"
"""A fact re-verified at HEAD: same text, pinned at HEAD, recorded current."""
DOWNGRADE: Final = "memharness-tui/downgrade"
"""The app's downgrade: same text and pin, confidence × factor."""
STALENESS: Final = "memharness-tui/staleness"
"""A staleness pass's downgrade (``--downgrade``)."""
MERGE: Final = "memharness-tui/merge"
REFILE: Final = "memharness-tui/refile"
SPLIT: Final = "memharness-tui/split"
PIN: Final = "memharness-tui/pin"

#: The app's writes by action (the forms, the revise actions).
APP: Final = {"new": NEW, "rewrite": REWRITE, "still-true": STILL_TRUE, "downgrade": DOWNGRADE}
#: The hygiene fixes' writes by fix.
HYGIENE: Final = {"merge": MERGE, "refile": REFILE, "split": SPLIT, "pin": PIN}
#: A live row written by one of these is a downgrade already: a pass never halves it again.
DOWNGRADES: Final = (STALENESS, DOWNGRADE)
