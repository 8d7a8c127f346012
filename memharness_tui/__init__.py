"""memharness-tui: the terminal home for a memharness memory store."""

__version__ = "0.1.0"
