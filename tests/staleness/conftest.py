"""Fixtures for the staleness tests (builders live in staleness_helpers.py)."""

from __future__ import annotations

import pytest

from .staleness_helpers import Repo, Scenario, build_scenario


@pytest.fixture(scope="session")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return build_scenario(tmp_path_factory.mktemp("scenario") / "repo")


@pytest.fixture(scope="session")
def other_repo(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    """A second, unrelated repo: one file, two commits."""
    r = Repo.init(tmp_path_factory.mktemp("other") / "repo")
    s = {"o1": r.commit("o1", {"README": "one\n"})}
    s["o2"] = r.commit("o2", {"README": "two\n"})
    s["head"] = s["o2"]
    return Scenario(r, s)

