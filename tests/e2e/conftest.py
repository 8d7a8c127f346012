"""Sessions of the installed app on a pty, each ended (and its pty freed) after its test."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from .terminal import Terminal

Launch = Callable[..., Terminal]


@pytest.fixture
def launch() -> Iterator[Launch]:
    """``launch(args, env=…, cwd=…)``: ``memharness-tui ARGS`` on a pty of its own."""
    started: list[Terminal] = []

    def start(args: list[str], *, env: Mapping[str, str], cwd: Path) -> Terminal:
        term = Terminal(args, env=env, cwd=cwd)
        started.append(term)
        return term

    yield start
    for term in started:
        term.close()
