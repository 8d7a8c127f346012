"""scripts/_venv.sh: install into .venv only when pyproject.toml changed (or extras are missing).

A fake ``.venv/bin/python`` records every call, so no network and no real pip are needed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

FAKE_PYTHON = """#!/usr/bin/env bash
echo "$* | PYTHONWARNINGS=${PYTHONWARNINGS:-}" >> "$(dirname "$0")/../calls.log"
exit "${FAKE_PIP_EXIT:-0}"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("python", "memharness-tui"):
        (bin_dir / name).write_text(FAKE_PYTHON)
        (bin_dir / name).chmod(0o755)
    return tmp_path


def ensure(project: Path, extra: str = "", *, pip_exit: int = 0) -> tuple[int, list[str], str]:
    """Run ``ensure_venv EXTRA`` in ``project``; returns (exit code, pip calls, stderr)."""
    log = project / ".venv" / "calls.log"
    log.unlink(missing_ok=True)
    script = f'set -euo pipefail; . "{REPO_ROOT}/scripts/_venv.sh"; ensure_venv {extra}'
    done = subprocess.run(["bash", "-c", script], cwd=project, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "FAKE_PIP_EXIT": str(pip_exit)})
    calls = log.read_text().splitlines() if log.exists() else []
    return done.returncode, calls, done.stderr


def test_installs_once_then_not_until_pyproject_changes(project: Path) -> None:
    code, calls, err = ensure(project)
    assert code == 0
    assert calls == ["-m pip install -qq -e . | PYTHONWARNINGS=ignore:Editable installation"]
    assert err.startswith("installing memharness-tui (first run or pyproject.toml changed")

    assert ensure(project) == (0, [], "")  # later runs: no pip at all, nothing printed

    with (project / "pyproject.toml").open("a") as f:
        f.write('version = "2"\n')
    code, calls, _ = ensure(project)
    assert code == 0 and calls[0].startswith("-m pip install -qq -e . ")
    assert ensure(project) == (0, [], "")


def test_test_extras_are_installed_once_and_serve_the_plain_install(project: Path) -> None:
    ensure(project)
    code, calls, err = ensure(project, "test")
    assert code == 0 and calls[0].startswith("-m pip install -qq -e .[test] ")
    assert "with its test tools" in err
    assert ensure(project, "test") == (0, [], "")
    assert ensure(project) == (0, [], "")  # [test] includes everything the demo needs


def test_a_failed_install_leaves_no_stamp_so_the_next_run_retries(project: Path) -> None:
    code, calls, _ = ensure(project, pip_exit=1)
    assert code == 1 and len(calls) == 1
    code, calls, _ = ensure(project)
    assert code == 0 and len(calls) == 1


def test_a_venv_without_the_app_is_reinstalled(project: Path) -> None:
    ensure(project)
    (project / ".venv" / "bin" / "memharness-tui").unlink()
    code, calls, _ = ensure(project)
    assert code == 0 and len(calls) == 1
