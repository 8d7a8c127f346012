"""Layering (#11 bullet 11): the import-linter contracts in pyproject.toml hold."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_import_contracts_hold():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.fail("import-linter is a test dependency: pip install -e '.[test]'")
    out = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "7 kept, 0 broken" in out.stdout
