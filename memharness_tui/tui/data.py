"""Compatibility names: the gateway now lives in :mod:`memharness_tui.tui.services.gateway`."""

from memharness_tui.tui.services.gateway import (
    StoreGateway,
    StoreInfo,
    default_now,
    should_open_readonly,
)

__all__ = ["StoreGateway", "StoreInfo", "default_now", "should_open_readonly"]
