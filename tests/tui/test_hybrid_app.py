"""Hybrid recall in the app (#24): the Recall tab's mode label in each state and its list as
the agent's hybrid recall ranks it; similar by meaning (detail screen, revise modal); reembed
with progress and cancel; the agent server's nudges live in the forms (#23)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from textual.widgets import Input, TextArea

from memharness_tui.hygiene.nudges import REMEMBER_SIMILAR_LIMIT, remember_note
from memharness_tui.store import Store
from memharness_tui.store.hygiene_similarity import cosine_similarity
from memharness_tui.tui.screens.detail import FactDetailScreen
from memharness_tui.tui.screens.fact_form import NewFactScreen
from memharness_tui.tui.screens.reembed import ReembedScreen
from memharness_tui.tui.screens.revise import ReviseScreen
from memharness_tui.tui.widgets.recall import RecallPane
from memharness_tui.tui.widgets.similar import NO_VECTOR, SimilarList

from .conftest import PATIENCE, make_app, said, settle, type_text
from .hybrid_helpers import MODEL, FakeEmbedder, embed_all, fake_service
from .test_flows import ids_in, type_search


def label_of(app) -> str:
    return app.screen.query_one(RecallPane).query_one("#recall-status").render().plain


async def wait_for(pilot, condition, timeout: float = PATIENCE, *,
                   then_settle: bool = True) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        if loop.time() > end:
            raise AssertionError("condition not met in time")
        await pilot.pause(0.02)
    if then_settle:
        await settle(pilot)


class Gate:
    """The embedder's gate (``FakeEmbedder.gate``): ``permits`` batches pass, the next waits
    for :meth:`release` (as long as a test waits for anything, whatever bound the embedder
    asks) with ``held`` set: a batch is in hand."""

    def __init__(self, permits: int) -> None:
        self._permits = threading.Semaphore(permits)
        self.held = threading.Event()

    def acquire(self, timeout: float | None = None) -> bool:
        if self._permits.acquire(blocking=False):
            return True
        self.held.set()
        return self._permits.acquire(timeout=PATIENCE)

    def release(self) -> None:
        self._permits.release()


# ----- the mode label ---------------------------------------------------------------------------
async def test_hybrid_list_is_the_agents_hybrid_ranking(sample, config_dir):
    store, _ = sample
    embedder = FakeEmbedder()
    embed_all(store, embedder)
    app = make_app(store, config_dir)
    app.embedding = fake_service(embedder)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.embedding.ready)
        assert "hybrid, as your agent" in label_of(app)
        await type_search(pilot, "sessions widgets")
        await wait_for(pilot, lambda: app.screen.query_one(RecallPane).last_result is not None)
        pane = app.screen.query_one(RecallPane)
        expected = store.recall("sessions widgets", limit=pane.params.limit, reinforce=False,
                                query_vector=embedder._one(
                                    "sessions widgets"))  # the agent's own call
        keyword = store.recall("sessions widgets", limit=pane.params.limit, reinforce=False)
        shown = pane.last_result
        assert [f.id for f in shown.facts] == [f.id for f in expected.facts]
        # (scores decay with the store's clock, which moved between the two reads)
        assert [f.score for f in shown.facts] == pytest.approx(
            [f.score for f in expected.facts], rel=1e-3)
        assert [f.score for f in shown.facts] != pytest.approx(
            [f.score for f in keyword.facts], rel=1e-3)
        assert ids_in(pane.query_one("#results")) == [f.id for f in expected.facts]
        assert "sessions widgets" in embedder.queries  # embedded off the UI thread
        await pilot.press("escape", "a")  # the agent view: the same hybrid call's text
        await settle(pilot)
        from memharness_tui.store import formats
        from memharness_tui.tui.render import clean

        agent = pane.query_one("#agent-text").render().plain
        hybrid_text = formats.fmt_recall(store.recall(
            "sessions widgets", limit=pane.params.limit, reinforce=False,
            query_vector=embedder._one("sessions widgets")))
        assert agent == clean(hybrid_text)
        assert hybrid_text != formats.fmt_recall(keyword)  # the order differs from keyword


async def test_label_says_no_vectors_in_this_store(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    app.embedding = fake_service()
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.screen.query_one(RecallPane).ranking.status is not None)
        assert "keyword only: no vectors in this store" in label_of(app)


async def test_label_says_the_model_is_not_installed(sample, config_dir):
    store, _ = sample
    embed_all(store, FakeEmbedder())
    app = make_app(store, config_dir)
    app.embedding = fake_service(problem="the embedding runtime is not installed")
    notes = said(app)  # a notice's toast may be gone before a loaded machine looks
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.embedding.state == "failed")
        assert "keyword only: the model is not installed" in label_of(app)
        told = [n.message for n in notes]
        assert told.count("Hybrid recall stays keyword-only: the embedding runtime is not "
                          "installed") == 1
        await type_search(pilot, "sessions")
        pane = app.screen.query_one(RecallPane)
        keyword = store.recall("sessions", limit=pane.params.limit, reinforce=False)
        assert [f.id for f in pane.last_result.facts] == [f.id for f in keyword.facts]


async def test_label_says_sqlite_vec_cannot_load(sample, config_dir, monkeypatch):
    store, _ = sample
    embed_all(store, FakeEmbedder())
    monkeypatch.setenv("MEMHARNESS_SQLITE_VEC", "off")  # the app's own connection: no vec
    app = make_app(store, config_dir)
    app.embedding = fake_service()
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.screen.query_one(RecallPane).ranking.status is not None)
        assert "keyword only: sqlite-vec cannot load here" in label_of(app)


async def test_no_label_when_hybrid_is_not_asked_for(sample, config_dir, monkeypatch):
    monkeypatch.delenv("MEMHARNESS_HYBRID", raising=False)
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert not app.embedding.requested
        text = label_of(app)
        assert "hybrid" not in text and "keyword only" not in text


async def test_env_switch_or_setting_asks_for_hybrid(sample, config_dir, monkeypatch):
    store, _ = sample
    monkeypatch.setenv("MEMHARNESS_HYBRID", "1")
    assert make_app(store, config_dir).embedding.requested
    monkeypatch.delenv("MEMHARNESS_HYBRID")
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "settings.json").write_text('{"hybrid": true}')
    assert make_app(store, config_dir).embedding.requested


async def test_typing_never_waits_for_the_embedder(sample, config_dir):
    """Every embedding is held (until the test lets go): all seven keystrokes land in the box
    while none has been embedded, and then only the last text's list is shown."""
    store, _ = sample
    embedder = FakeEmbedder()
    embed_all(store, embedder)
    held = threading.Event()
    original = embedder.embed_query

    def held_query(text: str) -> list[float]:
        held.wait(20)
        return original(text)

    embedder.embed_query = held_query  # type: ignore[method-assign]
    app = make_app(store, config_dir)
    app.embedding = fake_service(embedder)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.embedding.ready)
        box = app.screen.query_one("#search", Input)
        box.focus()
        await pilot.press(*"widgets")
        assert box.value == "widgets"
        assert embedder.queries == []  # typed while the first embedding is still held
        held.set()
        await wait_for(pilot, lambda: app.screen.query_one(RecallPane).params.query == "widgets"
                       and "widgets" in embedder.queries)
        assert len(embedder.queries) < 7  # superseded queries were never embedded
        pane = app.screen.query_one(RecallPane)
        await wait_for(pilot, lambda: pane.last_result is not None
                       and len(pane.last_result.facts) > 0)
        expected = store.recall("widgets", limit=pane.params.limit, reinforce=False,
                                query_vector=embedder._one("widgets"))
        assert [f.id for f in pane.last_result.facts] == [f.id for f in expected.facts]


# ----- similar by meaning ------------------------------------------------------------------------
def nearest_by_hand(store: Store, fact_id: int, limit: int = 8) -> list[tuple[int, float]]:
    import struct

    rows = store.conn.execute(
        "SELECT id, embedding, embedding_dim, valid_to IS NULL AND superseded_by IS NULL "
        "AND retracted_at IS NULL FROM facts WHERE embedding IS NOT NULL").fetchall()
    vecs = {i: struct.unpack(f"<{d}f", b) for i, b, d, _cur in rows}
    current = {i for i, _b, _d, cur in rows if cur}
    own = vecs[fact_id]
    sims = [(i, cosine_similarity(own, v)) for i, v in vecs.items()
            if i != fact_id and i in current and len(v) == len(own)]
    sims.sort(key=lambda t: (-t[1], t[0]))
    return sims[:limit]


async def test_similar_by_meaning_lists_and_opens(sample, config_dir):
    store, info = sample
    embed_all(store, FakeEmbedder())
    target = info.chain[-1]
    expected = nearest_by_hand(store, target)
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.open_fact(target)
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, FactDetailScreen)
        similar = detail.query_one("#similar", SimilarList)
        await wait_for(pilot, lambda: similar.neighbours is not None)
        assert similar.display
        assert similar.ids() == [i for i, _ in expected]
        assert [n.similarity for n in similar.neighbours.items] == pytest.approx(
            [s for _, s in expected], abs=1e-6)
        assert info.chain[0] not in similar.ids()  # superseded versions are not current
        text = similar.get_option_at_index(0).prompt.plain
        assert text.startswith(f"#{expected[0][0]}  {expected[0][1]:.2f}")
        await pilot.press("s")
        assert app.focused is similar
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.screen.fact_id == expected[1][0]  # the second neighbour, opened


async def test_similar_says_so_when_the_fact_has_no_vector(sample, config_dir):
    store, info = sample
    embed_all(store, FakeEmbedder())
    bare, _ = store.remember("auth", "A fact written after the reembed")
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.open_fact(bare)
        await settle(pilot)
        similar = app.screen.query_one("#similar", SimilarList)
        await wait_for(pilot, lambda: similar.neighbours is not None)
        assert similar.display and similar.option_count == 1
        assert similar.get_option_at_index(0).prompt.plain == NO_VECTOR


async def test_similar_hidden_when_the_store_has_no_vectors(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.open_fact(info.chain[-1])
        await settle(pilot)
        similar = app.screen.query_one("#similar", SimilarList)
        await wait_for(pilot, lambda: similar.neighbours is not None)
        assert not similar.display


async def test_revise_modal_lists_similar_and_opens_one(sample, config_dir):
    store, info = sample
    embed_all(store, FakeEmbedder())
    expected = nearest_by_hand(store, info.stale)
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        fact = store.get(info.stale)
        app.push_screen(ReviseScreen(fact, []))
        await settle(pilot)
        similar = app.screen.query_one("#revise-similar", SimilarList)
        await wait_for(pilot, lambda: similar.neighbours is not None)
        assert similar.ids() == [i for i, _ in expected]
        await pilot.press("s", "enter")
        await settle(pilot)
        assert isinstance(app.screen, FactDetailScreen)
        assert app.screen.fact_id == expected[0][0]
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ReviseScreen)  # back where the person was


# ----- reembed ----------------------------------------------------------------------------------
def facts_without(store: Store, model: str = MODEL) -> int:
    return store.count_embed_targets(model)


async def test_reembed_progress_to_done(sample, config_dir):
    store, _ = sample
    todo = facts_without(store)
    embedder = FakeEmbedder()
    app = make_app(store, config_dir)
    app.embedding = fake_service(embedder, requested=False)  # reembed asks for the model itself
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        app.screen.query_one("#results").focus()
        await pilot.press("V")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReembedScreen)  # V on the Recall tab
        await wait_for(pilot, lambda: screen.finished)
        assert screen.embedded == todo and embedder.batches == 1  # one batch of 64
        await pilot.press("escape")
        await settle(pilot)
        assert facts_without(store) == 0


async def test_reembed_in_batches_with_progress(sample, config_dir):
    store, _ = sample
    todo = facts_without(store)
    embedder = FakeEmbedder()
    app = make_app(store, config_dir)
    app.embedding = fake_service(embedder, requested=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        app.push_screen(ReembedScreen(batch=5))
        await settle(pilot)
        screen = app.screen
        await wait_for(pilot, lambda: screen.finished)
        assert screen.embedded == todo and embedder.batches == -(-todo // 5)
        assert screen.query_one("#reembed-progress").percentage == 1.0
        assert screen.outcome == f"Reembed done: {todo:,} fact(s) embedded with {MODEL}."
        assert facts_without(store) == 0
        assert store.embedded_count() == todo


async def test_reembed_cancel_stops_between_batches_and_counts_truly(sample, config_dir):
    store, _ = sample
    todo = facts_without(store)
    embedder = FakeEmbedder()
    gate = Gate(2)  # two batches may run; the third waits
    embedder.gate = gate  # type: ignore[assignment]
    app = make_app(store, config_dir)
    app.embedding = fake_service(embedder, requested=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        from memharness_tui.tui.screens.reembed import ReembedScreen as Screen

        app.push_screen(Screen(batch=4))
        screen = app.screen
        await wait_for(pilot, lambda: screen.embedded == 8 and gate.held.is_set(),
                       then_settle=False)
        assert not screen.finished  # the third batch is held in hand…
        await pilot.press("escape")  # …and cancelled: dropped whole, never half written
        assert "stopping after the batch in hand" in screen.query_one(
            "#reembed-status").render().plain
        gate.release()
        await wait_for(pilot, lambda: screen.finished)
        assert embedder.batches == 3
        written = store.embedded_count()
        assert written == screen.embedded == 8
        assert screen.outcome == (f"Reembed cancelled: {written:,} fact(s) embedded with "
                                  f"{MODEL}; {todo - written:,} still lack one (reembed again "
                                  "to continue).")
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, Screen)


async def test_reembed_notes_another_models_vectors(sample, config_dir):
    store, _ = sample
    embed_all(store, FakeEmbedder(), model="other/model")
    app = make_app(store, config_dir)
    app.embedding = fake_service(requested=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        app.push_screen(ReembedScreen())
        await settle(pilot)
        screen = app.screen
        await wait_for(pilot, lambda: screen.finished)
        note = screen.query_one("#reembed-note").render().plain
        assert note.startswith("note: the store has vectors from another model than the "
                               f"installed {MODEL}:")
        assert "other/model" in note


async def test_reembed_refused_on_a_readonly_store(sample, config_dir):
    store, _ = sample
    ro = Store.open(str(store.path), clock=store.clock, readonly=True)
    app = make_app(ro, config_dir)
    app.embedding = fake_service(requested=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        from memharness_tui.tui.hybrid_commands import open_reembed

        open_reembed(app)
        await settle(pilot)
        assert not isinstance(app.screen, ReembedScreen)
    ro.close()
    assert store.embedded_count() == 0


# ----- the agent server's nudges, live ---------------------------------------------------------
async def test_new_fact_form_nudges_as_the_server_and_opens_the_fact(sample, config_dir):
    store, info = sample
    subject, text = "bulk", "Bulk fact number 3 about widgets and gadgets"
    similar = store.near_duplicates(subject, text, limit=REMEMBER_SIMILAR_LIMIT)
    assert similar  # the sample holds resembling facts
    expected = remember_note(subject, text, similar, pinned=False).strip()
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        form = NewFactScreen(subject=subject)
        form.NUDGE_DELAY = 0.05
        app.push_screen(form)
        await settle(pilot)
        form.query_one("#form-fact", TextArea).focus()
        await type_text(pilot, text)
        await wait_for(pilot, lambda: form.nudges.note != "")
        assert form.nudges.note == expected
        assert f"#{similar[0].id} (sim " in form.nudges.note
        shown = form.query_one("#form-nudge").render().plain
        assert expected in shown and f"ctrl+o opens #{similar[0].id}" in shown
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert isinstance(app.screen, FactDetailScreen)
        assert app.screen.fact_id == similar[0].id
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is form
        assert form.value("fact") == text  # nothing typed was lost


COMPOUND = "The service uses a write-through cache; deploys run nightly from the main branch"


async def test_nudges_say_compound_and_clear_when_fixed(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        form = NewFactScreen(subject="fresh-subject")
        form.NUDGE_DELAY = 0.05
        app.push_screen(form)
        await settle(pilot)
        form.query_one("#form-fact", TextArea).focus()
        await type_text(pilot, COMPOUND)
        await wait_for(pilot, lambda: form.nudges.note != "")
        assert form.nudges.note == remember_note("fresh-subject", COMPOUND,
                                                 [], pinned=False).strip()
        assert not form.nudges.similar
        assert not form.check_action("open_similar", ())  # no fact to open: key hidden
        form.query_one("#form-fact", TextArea).text = "The service uses a write-through cache"
        await wait_for(pilot, lambda: form.nudges.note == "")
        assert form.query_one("#form-nudge").has_class("-empty")


async def test_rewrite_form_leaves_out_the_fact_being_rewritten(sample, config_dir):
    store, info = sample
    from memharness_tui.tui.screens.fact_form import ReviseFormScreen

    fact = store.get(info.chain[-1])
    other, _ = store.remember("auth", "Sessions expire after 45 minutes in staging")
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        form = ReviseFormScreen(fact, head=None)
        form.NUDGE_DELAY = 0.05
        app.push_screen(form)
        await settle(pilot)
        form.query_one("#form-fact", TextArea).text = "Sessions expire after 120 minutes"
        await wait_for(pilot, lambda: form.nudges.note != "")
        assert [s.id for s in form.nudges.similar] == [other]  # not #fact.id itself
        assert store.near_duplicates("auth", "Sessions expire after 120 minutes")[0].id == fact.id


async def test_palette_turns_hybrid_on_and_remembers_it(sample, config_dir, monkeypatch):
    import json

    monkeypatch.delenv("MEMHARNESS_HYBRID", raising=False)
    store, _ = sample
    embedder = FakeEmbedder()
    embed_all(store, embedder)
    app = make_app(store, config_dir)
    app.embedding = fake_service(embedder, requested=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert "hybrid" not in label_of(app)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"Hybrid recall: turn on")
        await settle(pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.embedding.ready
                       and "hybrid, as your agent" in label_of(app))
    assert json.loads((config_dir / "settings.json").read_text())["hybrid"] is True


async def test_first_load_in_the_background_with_its_progress(sample, config_dir):
    from memharness_tui.tui.services.embedding import EmbeddingService

    store, _ = sample
    embedder = FakeEmbedder()
    embed_all(store, embedder)
    release = threading.Event()

    def downloading(progress):  # noqa: ANN001, ANN202
        progress("onnx/model.onnx", 0, 200)
        progress("onnx/model.onnx", 100, 200)
        release.wait(PATIENCE)
        return embedder

    app = make_app(store, config_dir)
    app.embedding = EmbeddingService(requested=True, loader=downloading, problem=lambda: None)
    notes = said(app)  # kept past the notice's expiry, which a loaded machine outlasts
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: app.screen.query("#recall-status")
                       and "(50%)" in label_of(app), then_settle=False)
        assert "keyword only until the model loads (50%)" in label_of(app)
        # (the label and the notice come from one change, but a loaded machine can paint the
        # label a frame before the notice is posted: wait for it)
        await wait_for(pilot, lambda: any(
            n.message.startswith("Downloading the embedding model once")
            for n in notes), then_settle=False)
        box = app.screen.query_one("#search", Input)
        box.focus()
        await pilot.press(*"sessions")
        assert box.value == "sessions"  # typing goes on while the model loads
        release.set()
        await wait_for(pilot, lambda: "hybrid, as your agent" in label_of(app))
        pane = app.screen.query_one(RecallPane)
        await wait_for(pilot, lambda: "sessions" in embedder.queries)
        expected = store.recall("sessions", limit=pane.params.limit, reinforce=False,
                                query_vector=embedder._one("sessions"))
        assert [f.id for f in pane.last_result.facts] == [f.id for f in expected.facts]
