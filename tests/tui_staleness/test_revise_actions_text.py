"""The revise actions' confirmations and HEADs, one fact or many (revise_actions.py): the
modal and the bulk triage ask the same question of the same facts."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from memharness_tui.tui.widgets.staleness import revise_actions
from memharness_tui.tui.widgets.staleness.revise_actions import Downgrade, Retract, StillTrue


def _fact(fid: int, **kw: Any) -> Any:
    base = dict(id=fid, fact=f"fact {fid} says [bold]x[/]", confidence=0.9, freshness="stale",
                checked_head="h" * 40, source_commit="c" * 40, source_path="src/a.py",
                retracted_at=None, superseded_by=None)
    return SimpleNamespace(**{**base, **kw})


def _triage(outcome: str, new_path: str | None = None) -> Any:
    return SimpleNamespace(outcome=outcome, new_path=new_path)


def test_still_true_on_one_fact_warns_when_its_triage_touches_it() -> None:
    f = _fact(5)
    quiet = StillTrue([f], ["repo"], {5: _triage("elsewhere")}).ask()
    loud = StillTrue([f], ["repo"], {5: _triage("touches")}).ask()
    assert quiet.title == loud.title == "Still true at HEAD: #5?"
    assert "⚠" not in quiet.detail and "Only the file is checked" in quiet.detail
    assert revise_actions.TOUCHES_ONE in loud.detail and "⚠" in loud.detail
    moved = StillTrue([f], ["repo"], {5: _triage("moved", "src/b.py")}).ask()
    assert "on its new path src/b.py (git finds it moved)" in moved.detail


def test_still_true_on_many_names_the_facts_it_touches() -> None:
    facts = [_fact(i) for i in (3, 4, 9)]
    ask = StillTrue(facts, ["repo"], {4: _triage("touches"), 9: _triage("elsewhere")}).ask()
    assert ask.title == "Still true at HEAD: 3 facts?"
    assert "⚠ 1 of them had a changed line that mentions the fact (triage: touches it): #4." \
        in ask.detail
    elsewhere = StillTrue(facts[:1], ["repo"], elsewhere=True).ask()
    assert elsewhere.title == "Still true at HEAD: 1 fact whose file changed only elsewhere?"
    assert elsewhere.label == "Re-verify all"


def test_downgrade_and_retract_word_one_fact_and_many() -> None:
    one, two = _fact(5), [_fact(5), _fact(6)]
    assert Downgrade([one], 0.5).ask().title == "Downgrade #5?"
    assert "confidence 0.90 → 0.45; the new row keeps the stale verdict" in \
        Downgrade([one], 0.5).ask().detail
    assert Downgrade(two, 0.5).ask().title == "Downgrade 2 facts?"
    assert Retract([one]).ask().title == "Retract #5?" and Retract([one]).ask().danger
    assert Retract(two).ask().title == "Retract 2 facts?"
    assert Retract([_fact(5, retracted_at="2026-01-02T03:04:05.000Z")]).refused() == \
        "#5 was already retracted (2026-01-02 03:04)"


async def test_a_downgrade_judges_only_the_facts_whose_verdict_names_no_head(
        monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[list[int]] = []

    async def judge_facts(repos: list[str], facts: list[Any]) -> dict[int, Any]:
        asked.append([f.id for f in facts])
        return {f.id: SimpleNamespace(head="a" * 40) for f in facts}

    from memharness_tui.tui.services import git

    monkeypatch.setattr(git, "judge_facts", judge_facts)
    facts = [_fact(1), _fact(2, checked_head=""), _fact(3, checked_head=""),
             _fact(4, checked_head="", source_commit=None)]
    known = {3: SimpleNamespace(head="b" * 40)}  # the modal's own judged pin
    heads = await Downgrade(facts, 0.5, ["repo"], known).heads()
    assert asked == [[2]]  # #1 has its own head, #3 the modal's, #4 no pin to judge
    assert heads == {2: "a" * 40, 3: "b" * 40}
