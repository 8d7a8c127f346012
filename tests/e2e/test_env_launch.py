"""``MEMHARNESS_DB=PATH memharness-tui`` on the reference's own file: what a person does by keys.

The store is a copy of ``tests/fixtures/v5.db``, written by the reference TypeScript core
(revise chains, a backdated revise, retractions, pins). Writes are read back with the CLI.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from .conftest import Launch
from .stores import fact, reference_store, why
from .terminal import CTRL_S, CTRL_T, CTRL_U, DELETE, DOWN, ENTER, ESC, TAB, TIMEOUT, session_env


def saved_theme(config: Path) -> str | None:
    try:
        return str(json.loads((config / "settings.json").read_text())["theme"])
    except (OSError, ValueError, KeyError):
        return None


def wait_saved_theme(config: Path, want: str) -> None:
    """Poll the settings file until it names ``want`` (the app saves it on its own time)."""
    deadline = time.monotonic() + TIMEOUT
    while saved_theme(config) != want:
        if time.monotonic() > deadline:
            raise AssertionError(f"settings.json never named {want!r} (it names "
                                 f"{saved_theme(config)!r})")
        time.sleep(0.05)


def footer(screen: str) -> str:
    return screen.splitlines()[-1] if screen else ""


def on_results(screen: str) -> bool:
    """Focus is on the results: the footer offers their keys (in the box it offers few).
    Down and Esc move focus after the keys already typed are handled, so the next key
    waits for this."""
    return "t Time travel" in footer(screen)


def detail_of(fact_id: int) -> re.Pattern[str]:
    """The fact detail screen's header for ``fact_id`` (and not for #35 when asked for #3)."""
    return re.compile(rf"memharness — fact #{fact_id}\b")


def test_recall_detail_chain_time_travel_and_writes_on_an_env_launch(
        tmp_path: Path, launch: Launch) -> None:
    db = reference_store(tmp_path / "store" / "memory.db")
    env = session_env(tmp_path, MEMHARNESS_DB=str(db))
    term = launch([], env=env, cwd=tmp_path)
    term.wait_for("43 total")
    term.wait_for("30 live")

    # search, then open the fact: the newest of a chain of three the reference wrote
    term.send("/principal engineer")
    term.wait_for("1 result  ·  for principal engineer")
    term.send(DOWN)
    term.wait_for(on_results, what="focus on the results")
    term.send(ENTER)
    term.wait_for(detail_of(41))
    term.wait_for("works at Outerport as a principal engineer leading the memory team")
    term.wait_for("3 versions")
    # walk the chain: [ older, ] newer
    term.send("[")
    term.wait_for(detail_of(35))
    term.wait_for("superseded → #41")
    term.send("[")
    term.wait_for(detail_of(3))
    term.wait_for("works at Outerport as a staff engineer")
    term.send("]")
    term.wait_for(detail_of(35))
    term.send(ESC)
    term.wait_for("1 result  ·  for principal engineer")

    # time travel: what was believed on 2026-01-06, then back to now
    term.send("/")
    term.send(CTRL_U + "Outerport")
    term.wait_for("2 results  ·  for Outerport")
    term.send(DOWN)
    term.wait_for(on_results, what="focus on the results")
    term.send("t")
    term.wait_for("Show what was believed at an instant")
    term.send("2026-01-06" + ENTER)
    term.wait_for("AS OF 2026-01-06T00:00:00.000Z")
    term.wait_for(lambda s: "as a staff" in s and "as a principal" not in s,
                  what="the fact as believed on 2026-01-06")
    term.send("T")
    term.wait_for(lambda s: "AS OF" not in s and "as a principal" in s
                  and "as a staff" not in s, what="the list back at now")

    # n: a new fact
    term.send("n")
    term.wait_for("New fact")
    # a key typed behind Tab still reaches the field Tab leaves: wait for the cursor to move
    term.wait_for(lambda _: term.cursor_in("subject"), what="the cursor in the subject")
    term.send("e2e")
    term.send(TAB)
    term.wait_for(lambda _: term.cursor_in("predicate"), what="the cursor in the predicate")
    term.send("note")
    term.send(TAB)
    term.wait_for(lambda _: term.cursor_in("fact"), what="the cursor in the fact")
    term.send("Typed into a real terminal")
    term.wait_for("Typed into a real terminal")
    term.send(CTRL_S)
    new = int(term.match(r"Remembered #(\d+)").group(1))
    row = fact(env, db, new)
    assert (row["subject"], row["predicate"], row["fact"], row["source_agent"]) == (
        "e2e", "note", "Typed into a real terminal", "memharness-tui/new")
    assert row["retracted_at"] is None

    # Delete: retract it, after the confirmation
    term.send("/")
    term.send(CTRL_U + "real terminal")
    term.wait_for("1 result  ·  for real terminal")
    term.send(DOWN)
    term.wait_for(on_results, what="focus on the results")
    term.send(DELETE)
    term.wait_for(f"Retract fact #{new}?")
    term.send("y")
    term.wait_for(f"Retracted #{new}")
    assert fact(env, db, new)["retracted_at"] is not None
    assert why(env, db, 41)["ancestors"][0]["id"] == 35  # the reference's chain untouched

    # Ctrl+T: another theme, remembered
    config = Path(env["MEMHARNESS_TUI_CONFIG_DIR"])
    term.send(CTRL_T)
    term.wait_for("● memharness-dark  memharness  (current)")
    term.send(DOWN)
    term.send(ENTER)
    term.wait_gone("(current)")
    wait_saved_theme(config, "memharness-light")
    term.send(CTRL_T)
    term.wait_for("● memharness-light  memharness  (current)")
    term.send(ESC)
    term.wait_gone("(current)")

    # ?: the keys
    term.send("?")
    term.wait_for("Retract the highlighted fact")
    term.send(ESC)
    term.wait_gone("Retract the highlighted fact")

    assert term.quit() == 0
