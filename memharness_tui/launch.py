"""The command line's front door: a plain launch of the app starts the store first.

``memharness-tui`` and ``memharness-tui --db PATH [--readonly]`` open the app. The full
command line (``cli.py``) imports every subcommand's module to build its parser: the store,
hygiene, doctor, serve and reembed, ~60 ms of a cold start spent before the store's early
open (``tui/app_early.py``) could begin. A launch needs none of it, so this door recognises
exactly those spellings, checks them as the full parser does (``cli_args``) and starts the
early open at once. Any other command line (a subcommand, ``--help``, ``--version``,
``--demo``, an abbreviated flag, a mistake) goes to ``cli.main`` unchanged, which parses and
reports it as it always has.

This module imports only the standard library and ``cli_args``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from .cli_args import UsageError, check_db_path, check_default_db, check_text

PROG = "memharness-tui"


def plain_launch(argv: Sequence[str]) -> tuple[str | None, bool] | None:
    """``(db, readonly)`` when ``argv`` only launches the app, else None (the full parser's).

    Accepted: ``--db PATH``, ``--db=PATH``, ``--readonly``, each any number of times (the last
    ``--db`` wins, as in argparse). A value that argparse would refuse or read otherwise (a
    missing one, one starting with ``-``) is left to the full parser and its message."""
    db: str | None = None
    readonly = False
    args = iter(argv)
    for arg in args:
        if arg == "--readonly":
            readonly = True
        elif arg == "--db":
            value = next(args, None)
            if value is None or value.startswith("-"):
                return None
            db = value
        elif arg.startswith("--db="):
            db = arg[len("--db="):]
        else:
            return None
    return db, readonly


def fail(message: str) -> int:
    """One line on stderr and exit status 2 (bad input, nothing done)."""
    from .cli_text import one_line

    print(f"{PROG}: error: {one_line(message)}", file=sys.stderr)
    return 2


def guarded(body: Callable[[], int], *, name_flags: Callable[[str], str] = str) -> int:
    """``body()``'s exit status, with every failure as one line, never a traceback: 2 for bad
    input or a store's refusal (``name_flags`` names the flag the user typed), 130 for Ctrl+C,
    0 for a closed pipe, 1 for a bug."""
    try:
        return body()
    except UsageError as exc:
        return fail(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # never a traceback for the user
        from .cli_text import one_line
        from .store.errors import MemharnessError  # loaded by now if the store raised it

        if isinstance(exc, MemharnessError):
            return fail(name_flags(str(exc)))
        print(f"{PROG}: internal error: {type(exc).__name__}: {one_line(str(exc))}",
              file=sys.stderr)
        return 1


def check_db(db: str | None, *, demo: bool = False) -> None:
    """The checks only the command line can make of where ``--db`` (or the default file)
    points, before anything is opened: raises ``UsageError``. (Its text is checked with the
    other arguments'.)"""
    if db is not None:
        check_db_path(os.path.expanduser(db))
    elif not demo:
        from .paths import default_db_path

        check_default_db(os.path.expanduser(default_db_path()))


def open_app(db: str | None, readonly: bool, *, demo: bool = False) -> int:
    """Start the store's open and the opening search, then the app (``build_app`` claims
    them). The demo's store is built first, by ``build_app``."""
    if not demo:  # the store opens and the first search runs while Textual loads
        from .tui.app_early import open_early

        open_early(db, readonly)
    from .tui.app import run_app

    return run_app(db, readonly=readonly, demo=demo)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    launch = plain_launch(args)
    if launch is None:
        from .cli import main as cli_main

        return cli_main(args)
    db, readonly = launch

    def run() -> int:
        if db is not None:
            check_text(db, "--db", path=True)
        check_db(db)
        return open_app(db, readonly)

    return guarded(run)
