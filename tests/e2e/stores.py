"""The stores the sessions open: the reference's own file, and pinned facts over a git repo."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memharness_tui.store import Store

from ..conftest import fixtures_dir
from ..tui_staleness.helpers import Shop, build_repo, shop_facts
from .terminal import cli


def reference_store(path: Path) -> Path:
    """A copy of ``v5.db``, written by the reference TypeScript core (tests/fixtures)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(fixtures_dir() / "v5.db", path)
    return path


@dataclass
class ShopStore:
    db: Path
    shop: Shop
    ids: list[int]
    """The ids of ``shop_facts`` in their order (EXPECTED's keys, minus one)."""


FRAGMENTS = [("project:shop", "The shop ships to the EU only"),
             ("project:shop", "The shop takes card payments"),
             ("project:Shop", "The shop has a dark mode")]
"""One project under two subject keys: the hygiene scan flags it for a refile."""


def shop_store(db: Path, repo: Path, *, fragments: bool = False) -> ShopStore:
    """The staleness tests' eight facts over their repo (3 stale, 2 current, 2 unresolved at
    HEAD, 1 unpinned); ``fragments`` adds a fragmented subject."""
    shop = build_repo(repo)
    db.parent.mkdir(parents=True, exist_ok=True)
    store = Store.open(str(db))
    try:
        ids = [store.remember(f.pop("subject"), f.pop("fact"), **f)[0] for f in shop_facts(shop)]
        if fragments:
            for subject, text in FRAGMENTS:
                store.remember(subject, text)
    finally:
        store.close()
    return ShopStore(db, shop, ids)


def why(env: Mapping[str, str], db: Path, fact_id: int) -> dict[str, Any]:
    """``memharness-tui --db DB why ID --json``: the fact and its chain, as the file has them."""
    out: dict[str, Any] = json.loads(cli(env, "--db", str(db), "why", str(fact_id), "--json"))
    return out


def fact(env: Mapping[str, str], db: Path, fact_id: int) -> dict[str, Any]:
    row: dict[str, Any] = why(env, db, fact_id)["fact"]
    return row


def freshness(env: Mapping[str, str], db: Path) -> dict[int, str | None]:
    """Every current belief's verdict, as ``memharness-tui recall --json`` reads the file."""
    out = json.loads(cli(env, "--db", str(db), "recall", "--json", "--limit", "200"))
    return {int(row["id"]): row["freshness"] for row in out["facts"]}
