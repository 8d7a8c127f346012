"""The reference's 100k benchmark seed, shared by the benchmarks.

``../shared/fixtures`` beside the checkout (``MEMHARNESS_FIXTURES`` overrides). The seed is
decompressed into a folder of the caller's; the fixtures folder is only read.
"""

from __future__ import annotations

import lzma
import os
import shutil
from pathlib import Path


def fixtures_dir() -> Path:
    env = os.environ.get("MEMHARNESS_FIXTURES")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "fixtures"


def decompress_seed(dest: Path) -> Path:
    """Write ``bench100k.db`` into ``dest`` (pure Python: no ``xz`` binary needed)."""
    source = fixtures_dir() / "bench100k.db.xz"
    if not source.exists():
        raise SystemExit(f"benchmark seed not found: {source} (set MEMHARNESS_FIXTURES)")
    target = dest / "bench100k.db"
    with lzma.open(source, "rb") as src, open(target, "wb") as dst:
        shutil.copyfileobj(src, dst, length=1 << 20)
    return target
