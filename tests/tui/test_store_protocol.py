"""The services are written against a typed store protocol the real Store satisfies (#22)."""

from __future__ import annotations

import inspect

from memharness_tui.store import Store
from memharness_tui.tui.services import gateway
from memharness_tui.tui.services.protocol import StoreProtocol


def _members(cls: type) -> list[str]:
    return [n for n in vars(cls) if not n.startswith("_")]


def test_the_store_has_every_member_of_the_protocol_with_its_parameters() -> None:
    mismatched = []
    for name in _members(StoreProtocol):
        ours = inspect.getattr_static(StoreProtocol, name)
        theirs = inspect.getattr_static(Store, name, None)
        if theirs is None:
            mismatched.append(f"{name}: missing")
        elif callable(ours) and not isinstance(ours, property):
            want = list(inspect.signature(ours).parameters)[1:]
            got = list(inspect.signature(getattr(Store, name)).parameters)[1:]
            if want != got:
                mismatched.append(f"{name}: {want} != {got}")
        elif isinstance(ours, property) and not isinstance(theirs, property):
            mismatched.append(f"{name}: not a property")
    assert mismatched == []


def test_the_gateway_holds_the_protocol_not_any() -> None:
    assert gateway.StoreLike is StoreProtocol
    hints = inspect.get_annotations(gateway.StoreGateway.call, eval_str=True)
    assert "StoreProtocol" in repr(hints["fn"])
