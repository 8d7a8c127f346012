"""``z`` / ``Z``: undo and redo of the app's own writes, with new rows, read back with ``why``;
refused when an agent built on the row since; the journal survives a restart."""

from __future__ import annotations

from memharness_tui.tui.services.store import FactValues

from .conftest import make_app, settle


async def until(pilot, condition, what: str, rounds: int = 400) -> None:  # noqa: ANN001
    """Wait for a state (polling the UI; the bound only stops a broken test hanging)."""
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause(0.025)
    raise AssertionError(f"never happened: {what}")


def notes(app) -> list[str]:  # noqa: ANN001
    return [n.message for n in app._notifications]


async def _keys(pilot, *keys: str) -> None:  # noqa: ANN001
    pilot.app.screen.query_one("#results").focus()  # single-letter keys, not the search box
    await pilot.press(*keys)


async def test_undo_of_a_rewrite_revises_back_and_redo_revises_again(sample, config_dir):
    store, info = sample
    head = info.chain[2]
    app = make_app(store, config_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        new_id, _ = await app.service.rewrite(head, FactValues(fact="Sessions expire after 2h",
                                                                importance=7))
        await _keys(pilot, "z")
        await until(pilot, lambda: any(m.startswith("Undid step 1") for m in notes(app)),
                    "the undo's note")
        why = store.why(new_id)
        assert [d.fact for d in why.descendants] == ["Sessions expire after 90 minutes"]
        back = why.descendants[0]
        assert (back.source_agent, back.source_ref) == ("memharness-tui/undo", "undo:step-1")
        assert back.confidence == store.get(head).confidence and back.importance == 7
        await _keys(pilot, "Z")
        await until(pilot, lambda: any(m.startswith("Redid step 2") for m in notes(app)),
                    "the redo's note")
        again = store.why(back.id).descendants
        assert [(d.fact, d.source_agent) for d in again] == [
            ("Sessions expire after 2h", "memharness-tui/redo")]


async def test_undo_of_a_new_fact_retracts_it_and_of_a_retraction_brings_it_back(sample,
                                                                                 config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        new_id, _ = await app.service.new_fact(FactValues(fact="Staging deploys at noon",
                                                           subject="deploy"))
        await app.service.retract(info.current_pin)
        await _keys(pilot, "z")  # the retraction first: a live copy with the same text
        await until(pilot, lambda: any(m.startswith("Undid step 2") for m in notes(app)),
                    "the first undo")
        copy = store.why(info.current_pin).descendants
        assert [(d.fact, d.is_live, d.source_agent, d.source_ref) for d in copy] == [
            ("SQLite with WAL", True, "memharness-tui/undo", "undo:step-2")]
        assert copy[0].source_commit == "b" * 40  # the pin comes back with it
        await _keys(pilot, "z")  # then the new fact: retracted
        await until(pilot, lambda: any(m.startswith("Undid step 1") for m in notes(app)),
                    "the second undo")
        assert store.why(new_id).fact.retracted_at is not None


async def test_undo_refuses_when_an_agent_revised_the_row_since(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        new_id, _ = await app.service.rewrite(info.chain[2], FactValues(fact="Sessions: 2h"))
        _, agents, _ = store.revise(new_id, "Sessions: 3h", source_agent="claude")
        before = store.largest_id()
        await _keys(pilot, "z")
        await until(pilot, lambda: any(m.startswith("Not undone") for m in notes(app)),
                    "the refusal")
        said = next(m for m in notes(app) if m.startswith("Not undone"))
        assert f"now #{agents} by claude" in said and "Sessions: 3h" in said
        assert store.largest_id() == before  # nothing written
        assert store.get(agents).is_live


async def test_the_journal_survives_a_restart(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        new_id, _ = await app.service.rewrite(info.chain[2], FactValues(fact="Sessions: 4h"))
    again = make_app(store, config_dir)
    async with again.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await _keys(pilot, "z")
        await until(pilot, lambda: any(m.startswith("Undid step 1") for m in notes(again)),
                    "the undo after the restart")
    assert [d.fact for d in store.why(new_id).descendants] == [
        "Sessions expire after 90 minutes"]
