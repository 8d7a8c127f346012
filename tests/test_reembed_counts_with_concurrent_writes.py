"""``reembed`` while the agent writes: facts remembered between batches are embedded too, and
the progress line counts them in its total ("embedded D of T (N written since reembed
began; …)"), so a count never exceeds its total."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memharness_tui.cli import main
from memharness_tui.store import FakeClock, Store

from .embed import tiny_model

pytest.importorskip("onnxruntime")


@pytest.fixture(autouse=True)
def _model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MEMHARNESS_TUI_MODEL_DIR", str(tiny_model.build(tmp_path / "model")))
    monkeypatch.delenv("MEMHARNESS_HYBRID", raising=False)


def test_facts_written_between_batches_are_counted_in_the_total(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.db"
    with Store.open(str(db), clock=FakeClock()) as s:
        for i in range(5):
            s.remember("proj", f"alpha cache {i}")
    real = Store.set_embeddings
    calls = {"n": 0}

    def set_embeddings(self: Store, pairs, model):  # noqa: ANN001, ANN202
        stored = real(self, pairs, model)
        calls["n"] += 1
        if calls["n"] <= 2:  # the agent writes 3 facts after each of the first two batches
            with Store.open(str(db)) as agent:
                for i in range(3):
                    agent.remember("proj", f"beta deploy {calls['n']}-{i}")
        return stored

    monkeypatch.setattr(Store, "set_embeddings", set_embeddings)
    assert main(["reembed", "--db", str(db), "--batch", "2"]) == 0
    lines = [x for x in capsys.readouterr().err.splitlines() if not x.startswith("warning: ")]
    counts = [tuple(map(int, m.groups()))
              for x in lines if (m := re.match(r"embedded (\d+) of (\d+) ", x))]
    assert counts and all(done <= total for done, total in counts), lines
    assert counts[-1] == (11, 11)
    assert lines[-2] == "embedded 11 of 11 (6 written since reembed began; 11 facts now carry " \
                        "vectors)"
    assert lines[-1] == f"reembed done: 11 fact(s) embedded with {tiny_model.NAME}."
