"""Checks on what the user typed, before any value reaches the store or the file system.

The store validates values (a limit is a positive integer, a confidence lies in [0, 1]); these
checks cover what only the command line sees: how a number was written (``１`` or ``١٢`` are not
accepted as ids or limits), bytes that are not UTF-8, a ``--db`` that is a folder, a FIFO or in a
folder that does not exist, and naming the flag the user typed in the store's messages.
"""

from __future__ import annotations

import argparse
import os
import re
import stat
from pathlib import Path

_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_NON_FINITE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
_MAX_DIGITS = 100  # far beyond any id or limit; keeps int() away from its 4300-digit guard

# argparse treats "-inf" as an unknown option ("expected one argument"); these are values.
NEGATIVE_VALUE = re.compile(r"^-(?:\d|\.\d|inf|nan)", re.IGNORECASE)

# The store names some values differently from the command's own argument.
_STORE_ALIASES = {"new_fact": "fact", "old_id": "id", "text": "fact"}  # the store names a fact's text "text"


class UsageError(Exception):
    """Bad command-line usage (reported as one line, exit 2)."""


def integer(text: str) -> int:
    """An argparse type: an integer written with ASCII digits (range checks stay in the store)."""
    if len(text) > _MAX_DIGITS and _INT.fullmatch(text):
        raise argparse.ArgumentTypeError(f"must be an integer, got a {len(text)}-digit number")
    if not _INT.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"must be an integer written with the digits 0-9, got {text!r}"
        )
    return int(text)


def number(text: str) -> int | float:
    """An argparse type: a decimal number in ASCII digits; inf and nan reach the store's range check."""
    if _INT.fullmatch(text):
        return integer(text)
    if _DECIMAL.fullmatch(text) or _NON_FINITE.fullmatch(text):
        return float(text)
    raise argparse.ArgumentTypeError(
        f"must be a number written with the digits 0-9, got {text!r}"
    )


def rewrite_argparse_message(message: str) -> str:
    """``argument --limit: must be …`` → ``--limit must be …`` (our type errors read as sentences)."""
    m = re.fullmatch(r"argument ([^:]+): (must be .*)", message, re.DOTALL)
    return f"{m[1]} {m[2]}" if m else message


def _names(parser: argparse.ArgumentParser) -> dict[str, str]:
    """dest → what the user types: ``max_tokens`` → ``--max-tokens``, a positional's own name."""
    names: dict[str, str] = {}
    for action in parser._actions:  # noqa: SLF001 - argparse has no public list of arguments
        if action.dest in (argparse.SUPPRESS, "help"):
            continue
        longs = [o for o in action.option_strings if o.startswith("--")]
        names[action.dest] = longs[0] if longs else (action.option_strings or [action.dest])[0]
    return names


def command_parser(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser:
    """The subparser for ``command`` (or the top-level parser)."""
    if command is not None:
        for action in parser._actions:  # noqa: SLF001
            if isinstance(action, argparse._SubParsersAction) and command in action.choices:  # noqa: SLF001
                return action.choices[command]
    return parser


def name_flags(message: str, parser: argparse.ArgumentParser) -> str:
    """Name the flag the user typed in a store message: ``max_tokens must be …`` → ``--max-tokens``."""
    m = re.match(r"([a-z][a-z_]*)\b", message)
    if m is None:
        return message
    label = m[1]
    dest = _STORE_ALIASES.get(label, label)
    shown = _names(parser).get(dest)
    if shown is None or shown == label:
        return message
    return shown + message[m.end():]


def _bad_text(value: str) -> str | None:
    """Why ``value`` is not text we can store or use as a path, or None when it is fine."""
    for ch in value:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # how Python hands over an undecodable argv byte
            return (
                f"is not valid UTF-8 text: byte 0x{code - 0xDC00:02x} cannot be decoded "
                "(it arrives as a lone surrogate)"
            )
        if 0xD800 <= code <= 0xDFFF:
            return f"is not valid Unicode text (it has a lone surrogate U+{code:04X})"
    return None


def check_text(value: str, shown: str, *, path: bool = False) -> None:
    """Refuse ``value`` (the argument ``shown``, e.g. ``--db``) when it is not valid text."""
    if why := _bad_text(value):
        hint = "; rename it or use a UTF-8 path" if path else ""
        raise UsageError(f"{shown} {why}{hint}; nothing was done")


def check_text_arguments(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Refuse undecodable bytes in any argument, naming it, before anything is opened."""
    names = _names(parser)
    for dest, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, str):
                check_text(item, names.get(dest, dest), path=dest in ("db", "repo"))


def check_db_path(db: str | None) -> None:
    """Refuse a --db that is empty, a folder, not a regular file, or in a folder that is not there.

    A FIFO would block the open forever; a missing folder is almost always a typo, and creating
    it would look like an empty memory ("all my memories are gone"). Nothing is created here.
    """
    if db is None or db == ":memory:":
        return
    if db.strip() == "":
        raise UsageError("--db is empty; give the path of a database file")
    path = Path(db)
    try:
        st = path.stat()
    except FileNotFoundError:
        parent = path.parent
        if not parent.is_dir():
            what = "is not a folder" if parent.exists() else "does not exist"
            raise UsageError(
                f"no database at {db}: the folder {parent} {what}; nothing was created "
                "(check the path, or create the folder first)"
            ) from None
        return
    except OSError as exc:
        raise UsageError(f"cannot use --db {db}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{db} is a folder, not a database file; give the path of the file")
    if not stat.S_ISREG(st.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "not a regular file"
        raise UsageError(f"{db} is {kind}, not a database file; refusing to open it")


def check_default_db(path: str) -> None:
    """The default location may be created, but never opened if it is a folder or a FIFO."""
    if os.path.exists(path):
        check_db_path(path)
