"""Issue #22: the demo does not import the command line (once a 31-file import cycle)."""

from __future__ import annotations

import grimp


def test_the_demo_does_not_reach_the_command_line() -> None:
    graph = grimp.build_graph("memharness_tui", cache_dir=None)
    chain = graph.find_shortest_chain(importer="memharness_tui.demo",
                                      imported="memharness_tui.cli")
    assert chain is None, "memharness_tui.demo imports memharness_tui.cli via " + " → ".join(
        chain or ())
