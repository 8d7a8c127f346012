"""One small error hierarchy carrying the reference implementation's codes."""

from __future__ import annotations


class MemharnessError(Exception):
    """Base error; ``code`` is the reference's machine-readable code."""

    code = "ERROR"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self)


class InvalidInput(MemharnessError):
    code = "INVALID_INPUT"


class NotFound(MemharnessError):
    code = "NOT_FOUND"


class SchemaTooNew(MemharnessError):
    code = "SCHEMA_TOO_NEW"


class StoreOpenError(MemharnessError):
    """The file cannot be opened as a memharness store (missing, corrupt, not SQLite)."""

    code = "OPEN_FAILED"


class ReadOnlyError(MemharnessError):
    """A write was attempted on a store opened read-only."""

    code = "READ_ONLY"
