"""Serve the same app to a browser on localhost through textual-serve."""

from __future__ import annotations

import shlex
import sys


def serve_command(app_args: list[str]) -> str:
    """The shell command textual-serve runs per browser session: this package's CLI, same args."""
    return shlex.join([sys.executable, "-m", "memharness_tui", *app_args])


def serve(port: int, app_args: list[str]) -> None:
    """Block serving the app at http://localhost:PORT (Ctrl+C stops)."""
    from textual_serve.server import Server

    server = Server(serve_command(app_args), host="localhost", port=port,
                    title="memharness-tui")
    server.serve()
