"""The store: the only code that touches the SQLite file. See API.md beside this file."""

from .clock import Clock, FakeClock, SystemClock
from .errors import (
    InvalidInput,
    MemharnessError,
    NotFound,
    ReadOnlyError,
    SchemaTooNew,
    StoreOpenError,
)
from .store import Store
from .types import Fact, RankingSettings, RecallResult

__all__ = [
    "Clock",
    "FakeClock",
    "SystemClock",
    "Store",
    "Fact",
    "RankingSettings",
    "RecallResult",
    "MemharnessError",
    "InvalidInput",
    "NotFound",
    "ReadOnlyError",
    "SchemaTooNew",
    "StoreOpenError",
]
