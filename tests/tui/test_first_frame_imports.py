"""What the Recall tab's first frame imports (issue #26's cold start): the app, its main screen
and the Recall pane load none of the modules only other tabs, subcommands or the hybrid
recall use. Each one here cost 10-40 ms of a cold start before it was kept out."""

from __future__ import annotations

import subprocess
import sys

NOT_AT_START = (
    "pygit2",  # the staleness engine: a pass, the Staleness tab
    "numpy",  # sqlite-vec's package (its path is found without it), the embedder
    "rich.pretty",  # RichLog's module (the verdict log), and attrs with it
    "memharness_tui.cli",  # the full command line's parser and its subcommands
    "memharness_tui.staleness.git",
    "memharness_tui.hygiene",
)


def test_the_first_frames_modules_leave_the_others_out() -> None:
    code = (
        "import sys\n"
        "import memharness_tui.launch, memharness_tui.tui.app_early\n"
        "import memharness_tui.tui.app, memharness_tui.tui.screens.main\n"
        "import memharness_tui.tui.widgets.recall, memharness_tui.store\n"
        f"print(sorted(m for m in {NOT_AT_START!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.strip() == "[]", out.stdout
