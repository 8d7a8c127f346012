"""``memharness-tui --db PATH``: a staleness pass and every revise action, by keys.

The store holds pinned facts over a small git repo (the cwd, so the app takes it as the
store's repo the first time, as it does for a user). After each write the file is read
back with the installed CLI.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from ..tui_staleness.helpers import EXPECTED
from .conftest import Launch
from .stores import fact, freshness, shop_store, why
from .terminal import CTRL_S, ENTER, F7, session_env

FLAGGED_ROW = re.compile(r"^\s*(?:●\s+)?(\d+)\s+(?:⚠ stale|\? unresolved)\s")


def flagged_ids(screen: str) -> list[int]:
    """The ids in the Staleness tab's flagged list, top to bottom, as drawn."""
    lines = screen.splitlines()
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("ID  Verdict")),
                 None)
    if start is None:
        return []
    ids: list[int] = []
    for line in lines[start + 1:]:
        if line.startswith("────"):
            break
        found = FLAGGED_ROW.match(line)
        if found:
            ids.append(int(found.group(1)))
    return ids


def shows_flagged(ids: list[int]) -> Callable[[str], bool]:
    """The flagged list shows exactly ``ids``, in this order."""
    return lambda screen: flagged_ids(screen) == ids


def test_staleness_pass_runs_on_a_db_launch(tmp_path: Path, launch: Launch) -> None:
    s = shop_store(tmp_path / "store" / "memory.db", tmp_path / "shop")
    env = session_env(tmp_path)
    term = launch(["--db", str(s.db)], env=env, cwd=s.shop.path)
    term.wait_for("8 total")
    term.send("4")
    term.wait_for("s: start a pass")
    term.send("s")
    done = term.match(r"pass 1 done: checked (\d+) / current (\d+) / stale (\d+) / "
                      r"unresolved (\d+)")
    assert done.groups() == ("7", "2", "3", "2")
    term.wait_for(shows_flagged([s.ids[i - 1] for i, verdict in sorted(EXPECTED.items())
                                 if verdict in ("stale", "unresolved")]))
    # the verdicts are in the file, as the agent's recall reads them
    assert freshness(env, s.db) == {s.ids[i - 1]: v for i, v in EXPECTED.items()}
    assert term.quit() == 0


def test_every_revise_action_writes_from_the_staleness_tab(tmp_path: Path,
                                                            launch: Launch) -> None:
    s = shop_store(tmp_path / "store" / "memory.db", tmp_path / "shop")
    env = session_env(tmp_path)
    auth, config, legacy, deploy, migrations = (s.ids[0], s.ids[2], s.ids[3], s.ids[4],
                                                s.ids[5])
    term = launch(["--db", str(s.db)], env=env, cwd=s.shop.path)
    term.wait_for("8 total")
    term.send("4")
    term.wait_for("s: start a pass")
    term.send("s")
    term.wait_for("pass 1 done:")
    term.wait_for(shows_flagged([auth, config, legacy, deploy, migrations]))

    # y: still true, re-pinned at HEAD
    term.send(ENTER)
    term.wait_for(f"Revise #{auth} ")
    term.send("y")
    term.wait_for(f"Still true at HEAD: #{auth}?")
    term.send("y")
    new = int(term.match(rf"Re-verified at HEAD: 1 fact \(#{auth} → #(\d+)\)").group(1))
    term.wait_for(shows_flagged([config, legacy, deploy, migrations]))
    chain = why(env, s.db, new)
    row = chain["fact"]
    assert row["source_agent"] == "memharness-tui/still-true"
    assert row["source_commit"] == s.shop.head and row["freshness"] == "current"
    assert row["fact"] == "Passwords are hashed with bcrypt, cost 12"
    assert [(a["id"], a["superseded_by"]) for a in chain["ancestors"]] == [(auth, new)]

    # e: rewrite
    term.send(ENTER)
    term.wait_for(f"Revise #{config} ")
    term.send("e")
    term.wait_for("was: The server listens on port 8080")
    term.send(F7)  # select the whole text, then type over it
    term.send("The server listens on port 9090")
    term.wait_for("port 9090")
    term.send(CTRL_S)
    new = int(term.match(rf"Revised #{config} → #(\d+)").group(1))
    term.wait_for(shows_flagged([legacy, deploy, migrations]))
    chain = why(env, s.db, new)
    assert chain["fact"]["fact"] == "The server listens on port 9090"
    assert chain["fact"]["source_agent"] == "memharness-tui/rewrite"
    assert [(a["id"], a["superseded_by"]) for a in chain["ancestors"]] == [(config, new)]

    # w: downgrade (the new row keeps the stale verdict, so it stays listed)
    term.send(ENTER)
    term.wait_for(f"Revise #{legacy} ")
    term.send("w")
    term.wait_for(f"Downgrade #{legacy}?")
    term.send("y")
    downgraded = int(term.match(rf"Downgraded 1 fact \(#{legacy} → #(\d+)\)").group(1))
    term.wait_for(shows_flagged([deploy, migrations, downgraded]))
    chain = why(env, s.db, downgraded)
    row = chain["fact"]
    assert row["source_agent"] == "memharness-tui/downgrade"
    assert row["confidence"] == 0.5 and row["freshness"] == "stale"
    assert [(a["id"], a["superseded_by"]) for a in chain["ancestors"]] == [(legacy, downgraded)]

    # r: retract
    term.send(ENTER)
    term.wait_for(f"Revise #{deploy} ")
    term.send("r")
    term.wait_for(f"Retract #{deploy}?")
    term.send("y")
    term.wait_for(f"Retracted #{deploy}")
    term.wait_for(shows_flagged([migrations, downgraded]))
    assert fact(env, s.db, deploy)["retracted_at"] is not None

    # bulk: Space marks and moves down, then w downgrades both in one go
    term.send(" ")
    term.wait_for("1 marked")
    term.send(" ")
    term.wait_for("2 marked")
    term.send("w")
    term.wait_for("Downgrade 2 facts?")
    term.send("y")
    bulk = term.match(rf"Downgraded 2 facts \(#{migrations} → #(\d+), #{downgraded} → #(\d+)\)")
    first, second = int(bulk.group(1)), int(bulk.group(2))
    for new, old, confidence in ((first, migrations, 0.5), (second, downgraded, 0.25)):
        chain = why(env, s.db, new)
        assert chain["fact"]["source_agent"] == "memharness-tui/downgrade"
        assert chain["fact"]["confidence"] == confidence
        assert (chain["ancestors"][0]["id"], chain["ancestors"][0]["superseded_by"]) == (old, new)

    assert term.quit() == 0
