"""The content detectors — credentials in any version, orders hidden in facts, facts that
contradict each other — run after the main scan's pass (``scan.scan`` calls ``scan_content``).

Credentials are looked for in every row, current, superseded and retracted: a revision rarely
takes back what its predecessor leaked, and the file keeps them all. The other two read the
current beliefs (or those as of ``as_of``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .secrets import find_secrets, masked_text, maybe_secret
from .types import HygieneReport, SecretFlag

if TYPE_CHECKING:
    from memharness_tui.store import Store

__all__ = ["scan_content", "secret_flags"]

#: Characters of a flagged row's masked text kept for the report.
PREVIEW_CHARS = 400


def secret_flags(store: Store, *, as_of: str | None = None) -> list[SecretFlag]:
    """Every row whose text holds a credential, grouped by chain (lowest id of the chain
    first), each with its writer."""
    rows = store.versions_where(maybe_secret, as_of=as_of)
    chains: dict[int, tuple[int, ...]] = {}
    out: list[SecretFlag] = []
    for row in rows:
        spans = find_secrets(row.fact)
        if not spans:
            continue
        chain = chains.get(row.id)
        if chain is None:
            chain = tuple(store.chain_ids(row.id))
            for i in chain:
                chains[i] = chain
        preview = masked_text(row.fact, spans)
        if len(preview) > PREVIEW_CHARS:
            preview = preview[:PREVIEW_CHARS] + "…"
        out.append(SecretFlag(row.id, row.subject, row.status, chain, row.source_agent,
                              row.source_ref, tuple(spans), preview))
    out.sort(key=lambda f: (f.chain[0], f.id))
    return out


def scan_content(store: Store, report: HygieneReport, as_of: str | None) -> None:
    """Add the content detectors' flags to ``report``."""
    report.secrets = secret_flags(store, as_of=as_of)
