"""An empty fact text on the command line is refused naming the argument typed (``fact``),
not the store's own word for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_cli import dump_facts, run, v5  # noqa: F401


@pytest.mark.parametrize("argv", [["remember", "svc", ""], ["remember", "svc", "   "],
                                  ["revise", "1", ""]])
def test_an_empty_fact_names_the_fact_argument(v5: Path, capsys, argv: list[str]) -> None:  # noqa: F811
    before = dump_facts(v5)
    code, out, err = run(capsys, *argv, "--db", str(v5))
    assert (code, out) == (2, "")
    assert err == "memharness-tui: error: fact must be a non-empty string\n", err
    assert dump_facts(v5) == before
