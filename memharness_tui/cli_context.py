"""``memharness-tui context``: what the agent's SessionStart hook injects, without writing.

Prints, byte for byte, what the reference's ``memharness-context`` prints for the same
``--subject`` / ``--max-tokens`` / ``--limit`` on the same file (store/session_context.py),
but never changes the file: the hook's recalls reinforce, this preview's do not. The hook
reads its numbers as JavaScript's ``Number()`` does (``0x20``, ``1e3``, `` 8 ``); so does this.
A file that does not exist prints nothing, as the hook does (a note on stderr says so).
The hook's MEMHARNESS_DEBUG usage log is not written either.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from typing import Any

from .cli_text import visible

_JS_SPACE = " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008" \
            "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)")
_RADIX = re.compile(r"0([xXoObB])([0-9a-zA-Z]+)")
_BASES = {"x": 16, "o": 8, "b": 2}


def js_number(text: str) -> float:
    """``Number(text)`` as JavaScript reads a string: NaN for what it cannot read."""
    s = text.strip(_JS_SPACE)
    if s == "":
        return 0.0
    if s in ("Infinity", "+Infinity"):
        return math.inf
    if s == "-Infinity":
        return -math.inf
    radix = _RADIX.fullmatch(s)
    if radix:
        try:
            return float(int(radix.group(2), _BASES[radix.group(1).lower()]))
        except ValueError:
            return math.nan
    if _DECIMAL.fullmatch(s):
        return float(s)
    return math.nan


def _count(value: float) -> float:
    """A whole number as an int (so the store's checks and messages read naturally)."""
    return int(value) if math.isfinite(value) and value.is_integer() else value


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "context",
        help="what the agent's SessionStart hook (memharness-context) injects; never writes",
        description="Print exactly what the reference's memharness-context hook prints for "
        "these flags on this file, without reinforcing (the file is not changed).",
    )
    p.add_argument("--db", metavar="PATH", default=argparse.SUPPRESS,
                   help="the database file (default: as the hook finds it)")
    p.add_argument("--subject", action="append", default=[], metavar="S",
                   help="a subject's section, in order (repeatable; default: user)")
    p.add_argument("--max-tokens", type=js_number, default=600.0, metavar="N",
                   help="the token budget of all sections (default 600)")
    p.add_argument("--limit", type=js_number, default=8.0, metavar="N",
                   help="facts per subject (default 8)")
    p.add_argument("--now", metavar="ISO",
                   help="evaluate as if the current time were ISO (repeatable output)")


def cmd_context(args: argparse.Namespace) -> int:
    from .paths import default_db_path
    from .store import FakeClock, Store
    from .store.timeutil import normalize_iso

    db = getattr(args, "db", None)
    path = os.path.expanduser(db if db else default_db_path())
    if not os.path.exists(path):
        print(f"no store at {visible(path)}: the hook prints nothing", file=sys.stderr)
        return 0
    clock = FakeClock(normalize_iso(args.now, "--now"), step_ms=0) if args.now else None
    with Store.open(path, readonly=True, clock=clock, trust_clock=clock is not None) as store:
        ctx = store.session_context(args.subject, max_tokens=_count(args.max_tokens),
                                    limit=_count(args.limit))
    text = ctx.text
    if sys.stdout.isatty():
        text = "\n".join(visible(line) for line in text.split("\n"))
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()
    return 0
