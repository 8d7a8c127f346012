"""The Recall tab's mode label says what the agent gets: with a stored vector of the model's
length whose blob is not that many numbers, the agent's hybrid recall fails, so the label says
so and the list is keyword recall (never an error modal); once the vector is replaced, the
label is hybrid again."""

from __future__ import annotations

from memharness_tui.store.driver import sqlite3  # the store's own SQLite: one lock table
from memharness_tui.tui.screens.modals import ErrorModal
from memharness_tui.tui.services.embedding import MODE_LABELS
from memharness_tui.tui.widgets.recall import RecallPane

from .conftest import make_app, settle
from .hybrid_helpers import MODEL, FakeEmbedder, embed_all, fake_service
from .test_flows import ids_in, type_search
from .test_hybrid_app import label_of, wait_for


async def test_a_damaged_vector_turns_the_label_to_what_the_agent_gets(
        sample, config_dir) -> None:
    store, _ = sample
    if not store.vec_enabled:
        import pytest

        pytest.skip("sqlite-vec cannot load here")
    embedder = FakeEmbedder()
    embed_all(store, embedder)
    victim = store.recall("", limit=1).facts[0].id
    raw = sqlite3.connect(store.path)
    raw.execute("UPDATE facts SET embedding = zeroblob(64) WHERE id = ?", (victim,))  # 16 floats
    raw.commit()
    raw.close()
    app = make_app(store, config_dir)
    app.embedding = fake_service(embedder)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.embedding.ready)
        await wait_for(pilot, lambda: MODE_LABELS["damaged"] in label_of(app))
        await type_search(pilot, "sessions widgets")
        pane = app.screen.query_one(RecallPane)
        await wait_for(pilot, lambda: pane.last_result is not None)
        assert not isinstance(app.screen, ErrorModal)
        keyword = store.recall("sessions widgets", limit=pane.params.limit, reinforce=False)
        assert ids_in(pane.query_one("#results")) == [f.id for f in keyword.facts]
        assert not any("internal error" in n.message for n in app._notifications)
        store.set_embedding(victim, embedder.embed_documents(["x"])[0], MODEL)  # reembed's fix
        pane.store_revision += 1  # as the app's watch does when the file changes
        await wait_for(pilot, lambda: "hybrid, as your agent" in label_of(app))
