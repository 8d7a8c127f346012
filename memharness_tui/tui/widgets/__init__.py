"""Widgets, one module per pane or component."""
