"""The demo store has something real for every hygiene flag, and each fix works on it."""

from __future__ import annotations

from pathlib import Path

from memharness_tui.demo import ensure_demo
from memharness_tui.hygiene import (
    KINDS,
    apply,
    plan_merge,
    plan_pin,
    plan_refile,
    plan_split,
    scan,
    split_parts,
)
from memharness_tui.store import Store


def test_every_flag_kind_has_an_example_and_each_fix_clears_it(tmp_path: Path) -> None:
    db, _ = ensure_demo(tmp_path)
    with Store.open(str(db)) as store:
        before = scan(store)
        # the content kinds have their own stores (test_secrets, test_instructions,
        # test_contradictions); the demo holds none of them, and none is flagged in it
        content = {"secrets", "instructions", "contradictions"}
        assert {k for k, n in before.counts().items() if n} == set(KINDS) - content
        group = before.duplicates[0]
        frag = before.fragments[0]
        refile = [f.id for f in store.list_facts(limit=1000)
                  if f.subject in {s for s, _ in frag.subjects[1:]}]
        compound = before.compound[0]
        plan = (plan_merge(store, group.ids, group.facts[group.ids[0]])
                + plan_refile(store, refile, frag.canonical)
                + plan_split(store, compound.id, split_parts(compound.fact))
                + plan_pin(store, [before.code_maps[0].id], "0" * 40, "src/app.py"))
        apply(store, plan)
        after = scan(store).counts()
    assert after["near-duplicate"] == 0 and after["fragmentation"] == 0
    assert after["compound"] == 0 and after["code-map"] == 0
    assert after["over-limit"] == 1 and after["chain"] == 2  # left for a person
