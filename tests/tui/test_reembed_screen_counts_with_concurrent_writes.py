"""The app's reembed while the agent writes: the facts remembered between batches are embedded
too and counted in the total, so "embedded D of T" never has D above T."""

from __future__ import annotations

import re

from memharness_tui.tui.screens.reembed import ReembedScreen

from .conftest import make_app, settle
from .hybrid_helpers import FakeEmbedder, fake_service
from .test_hybrid_app import facts_without, wait_for


async def test_facts_written_between_batches_are_counted_in_the_total(
        sample, config_dir, monkeypatch) -> None:
    store, _ = sample
    todo = facts_without(store)
    said: list[str] = []
    real_say = ReembedScreen.say

    def say(self: ReembedScreen, line: str, style: str = "") -> None:
        said.append(line)
        real_say(self, line, style)

    monkeypatch.setattr(ReembedScreen, "say", say)
    embedder = FakeEmbedder()
    real_embed = embedder.embed_documents

    def embed_documents(texts):  # noqa: ANN001, ANN202 - the agent writes during two batches
        if embedder.batches < 2:
            for i in range(3):
                store.remember("agent", f"written meanwhile {embedder.batches}-{i}")
        return real_embed(texts)

    embedder.embed_documents = embed_documents  # type: ignore[method-assign]
    app = make_app(store, config_dir)
    app.embedding = fake_service(embedder, requested=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        app.push_screen(ReembedScreen(batch=5))
        await settle(pilot)
        screen = app.screen
        await wait_for(pilot, lambda: screen.finished)
        counts = [tuple(map(int, m.groups())) for line in said
                  if (m := re.match(r"embedded (\d+) of (\d+)", line.replace(",", "")))]
        assert counts and all(done <= total for done, total in counts), said
        assert counts[-1] == (todo + 6, todo + 6)
        assert said[-2] == f"embedded {todo + 6:,} of {todo + 6:,} (6 written since reembed began)"
        assert screen.query_one("#reembed-progress").percentage == 1.0
        assert facts_without(store) == 0
