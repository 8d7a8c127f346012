"""SVG snapshots of the session-context screen (with what changed since the last look) and the
review queue (frozen clock, fixed paths: stable run to run).

Regenerate with ``pytest tests/tui/test_context_review_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from memharness_tui.review_marks import save_mark
from memharness_tui.store import FakeClock, Store
from memharness_tui.tui.context_commands import open_context, open_review
from memharness_tui.tui.services import context as svc

from .conftest import CLOCK_START, build_sample, make_app, settle

MID = (120, 36)


@pytest.fixture
def snap_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The sample store at a relative path, so the path on screen is the same every run."""
    monkeypatch.chdir(tmp_path)
    store, info = build_sample(Path("memory.db"), FakeClock(CLOCK_START, 60_000))
    yield store, info, tmp_path / "config"
    store.close()


def app_for(store: Store, config_dir: Path):  # noqa: ANN201
    path, start = str(store.path), store.clock.peek()
    frozen = FakeClock(start, step_ms=0)
    return make_app(lambda: Store.open(path, clock=frozen), config_dir)


async def _opened(pilot: Pilot, opener) -> None:  # noqa: ANN001
    await settle(pilot)
    opener(pilot.app)
    await settle(pilot)
    await settle(pilot)


def test_context_screen_with_changes_since_the_last_look(snap_compare, snap_store):
    store, _, config_dir = snap_store
    flags = svc.ContextFlags(("auth", "db"), 300, 8)
    earlier = store.session_context(["auth", "db"], max_tokens=300).text
    lines = earlier.split("\n")
    seen = "\n".join([*lines[:3], "[#99] auth : a line the agent no longer sees", *lines[4:]])
    svc.save_seen(config_dir, str(store.path), flags, seen, "2026-05-30T10:00:00.000Z")
    app = app_for(store, config_dir)
    assert snap_compare(app, terminal_size=MID,
                        run_before=lambda pilot: _opened(pilot, open_context))


def test_review_queue(snap_compare, snap_store):
    store, info, config_dir = snap_store
    save_mark(str(store.path), store.review_head(), config_dir)
    store.remember("auth", "Tokens rotate hourly", source_agent="claude", source_ref="s-40",
                   source_commit="d" * 40, source_path="src/tokens.py")
    store.revise(info.chain[2], "Sessions expire after 2 hours", source_agent="codex")
    store.forget(fact_id=info.unresolved)
    app = app_for(store, config_dir)
    assert snap_compare(app, terminal_size=MID,
                        run_before=lambda pilot: _opened(pilot, open_review))
