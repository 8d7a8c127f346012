"""Plain ``memharness-tui``: the default store under HOME (``~/.memharness/memory.db``).

No ``--db``, no ``MEMHARNESS_DB``, no ``XDG_DATA_HOME``: the path the reference server uses
too. A staleness pass (the tab that once could not run on any store but the demo's) and a
hygiene fix, by keys, read back with the CLI.
"""

from __future__ import annotations

from pathlib import Path

from .conftest import Launch
from .stores import FRAGMENTS, shop_store, why
from .terminal import session_env


def test_a_pass_and_a_hygiene_fix_on_the_default_store(tmp_path: Path, launch: Launch) -> None:
    home = tmp_path / "home"
    s = shop_store(home / ".memharness" / "memory.db", tmp_path / "shop", fragments=True)
    env = session_env(tmp_path, XDG_DATA_HOME=None, MEMHARNESS_DB=None)
    term = launch([], env=env, cwd=s.shop.path)
    term.wait_for("11 total")

    term.send("4")
    term.wait_for("s: start a pass")
    term.send("s")
    done = term.match(r"pass 1 done: checked (\d+) / current (\d+) / stale (\d+) / "
                      r"unresolved (\d+)")
    assert done.groups() == ("7", "2", "3", "2")

    # the Hygiene tab flags the fragmented subject; f refiles it, after showing the rows
    term.send("5")
    term.wait_for("Fragmented")
    term.wait_for("refile into project:shop")  # the highlighted flag, in the detail below
    term.send("f")
    term.wait_for("Refile: the rows this writes")
    term.send("y")
    new = int(term.match(r"Refile: wrote 1 new fact \(#(\d+)\)").group(1))
    chain = why(env, s.db, new)
    moved = FRAGMENTS[2]
    assert (chain["fact"]["subject"], chain["fact"]["fact"]) == ("project:shop", moved[1])
    assert chain["fact"]["source_agent"] == "memharness-tui/refile"
    assert [(a["subject"], a["superseded_by"]) for a in chain["ancestors"]] == [
        (moved[0], new)]

    assert term.quit() == 0
    # nothing was created where the other rules would have looked
    assert not (tmp_path / "xdg-data").exists()
