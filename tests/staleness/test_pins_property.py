"""Properties of parse_source_ref over arbitrary text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from memharness_tui.staleness.pins import normalize_path, parse_source_ref

HEX = "0123456789abcdefABCDEF"
pieces = st.one_of(
    st.text(alphabet=HEX, min_size=1, max_size=44),
    st.text(min_size=0, max_size=12),
    st.sampled_from(["@", ":", "/", ".", " ", "repo@", "-", "#L12", "\n"]),
)
refs = st.lists(pieces, max_size=8).map("".join)


@settings(max_examples=400, deadline=None)
@given(refs)
def test_parse_is_total_and_conservative(ref: str) -> None:
    pin = parse_source_ref(ref)
    if pin is None:
        return
    assert re.fullmatch(r"[0-9a-f]{7,40}", pin.commit)
    assert pin.commit in ref.lower()
    named = re.search(r"(?<!\S)[^\s@]+@[0-9a-fA-F]{40}(?![0-9a-fA-F])", ref)
    if not named:
        # only the named form may carry a path, or come from a ref with / or .
        assert pin.path is None
        assert "/" not in ref and "." not in ref
        assert any(c.isdigit() for c in pin.commit) and any(c.isalpha() for c in pin.commit)
    if pin.path is not None:
        assert pin.path == normalize_path(pin.path)
        assert pin.path and not pin.path.startswith("/")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_normalize_path_is_idempotent(path: str) -> None:
    once = normalize_path(path)
    if once:
        assert normalize_path(once) == once
        assert "//" not in once and not once.startswith("/") and not once.endswith("/")
        assert ".." not in once.split("/") and "." not in once.split("/")
