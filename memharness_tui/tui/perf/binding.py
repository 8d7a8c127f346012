"""Building a widget bound to a screen's reactives outside ``compose``.

``data_bind`` binds to the node whose context is active, which ``compose`` sets up; the main
screen builds the Subjects, Changes and Staleness panes after the first results are painted
(not in its ``compose``), so it enters its own context with Textual's private
``DOMNode._context()``. Worth (bench/README.md, cold start): the other tabs stay out of the
first frame — building them in ``compose`` put mounting ~51 widgets (~45 ms) before it.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from textual.dom import DOMNode


def binding_context(node: DOMNode) -> AbstractContextManager[Any]:
    """Enter ``node``'s context: widgets made inside ``data_bind`` to it."""
    return node._context()
