"""``memharness-tui serve``: the app in a browser on localhost, after checking what would
otherwise fail inside every browser session (the port, the database)."""

from __future__ import annotations

import argparse
import errno
import os
import socket

from .cli_args import UsageError
from .store import Store

__all__ = ["cmd_serve"]


def _check_port(port: int) -> None:
    """Refuse a port we cannot listen on before serving (textual-serve would announce the URL
    and then fail with a traceback-shaped internal error)."""
    if not 1 <= port <= 65535:
        raise UsageError(f"--port must be between 1 and 65535, got {port}")
    for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
        try:
            sock = socket.socket(family, socket.SOCK_STREAM)
        except OSError:  # no IPv6 on this machine
            continue
        with sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((host, port))
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise UsageError(
                        f"port {port} is already in use on localhost; "
                        "stop what is using it or choose another with --port"
                    ) from None
                if exc.errno == errno.EACCES:
                    raise UsageError(
                        f"not allowed to listen on port {port}; choose one above 1023 with --port"
                    ) from None
                if exc.errno == errno.EADDRNOTAVAIL:  # e.g. IPv6 configured off
                    continue
                raise UsageError(f"cannot listen on localhost:{port}: {exc.strerror}") from None


def _check_serve_db(db: str | None, *, readonly: bool) -> None:
    """Look at an existing database once, as each browser session's app will open it: a file
    it cannot use (foreign, corrupt, too new; read-only and in need of migrating) is one line
    now, not an error in every session. The look never writes: migrating (and its backup) is
    the served app's to do, and only when it may write."""
    from .paths import default_db_path

    path = os.path.expanduser(db if db is not None else default_db_path())
    if not os.path.exists(path):
        return
    if readonly:  # exactly the open each session makes, and a read-only open writes nothing
        with Store.open(path, readonly=True):
            pass
        return
    from .store.recognise import check_ours

    check_ours(path)  # read-only connections only


def cmd_serve(args: argparse.Namespace) -> int:
    from .tui.serve import serve

    max_sessions = getattr(args, "max_sessions", 4)
    if max_sessions < 1:
        raise UsageError(f"--max-sessions must be at least 1, got {max_sessions}")
    if not args.demo:
        _check_serve_db(args.db, readonly=args.readonly)
    _check_port(args.port)

    app_args: list[str] = []
    if args.db:
        app_args += ["--db", args.db]
    if args.readonly:
        app_args.append("--readonly")
    if args.demo:
        app_args.append("--demo")
    serve(args.port, app_args, max_sessions=max_sessions)
    return 0
