"""``memharness-tui hygiene``: every hygiene flag, for a person, a SessionStart hook or CI.

Quiet and exit 0 when there is nothing to say (text and Markdown print nothing, as the
reference's gardener does, also when there is no store file yet); ``--fail-on KIND[,KIND]`` exits 1 when any flag of those kinds
is found (a gate); bad input exits 2 with one line, as every subcommand does.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from .cli_text import json_visible
from .hygiene.types import KINDS, HygieneReport
from .store.timeutil import normalize_iso

__all__ = ["add_parser", "fail_on", "run"]


def fail_on(text: str) -> tuple[str, ...]:
    """An argparse type: ``KIND[,KIND]`` (or ``any``) → the kinds."""
    kinds = tuple(k.strip() for k in text.split(",") if k.strip())
    if kinds == ("any",):
        return KINDS
    bad = [k for k in kinds if k not in KINDS]
    if bad or not kinds:
        raise argparse.ArgumentTypeError(
            f"must be a comma-separated list of {', '.join(KINDS)} (or any), got {text!r}")
    return kinds


def add_parser(sub: argparse._SubParsersAction, common: object) -> None:  # type: ignore[type-arg]
    """Register the subcommand (``common`` adds --db, --json and --now like the others)."""
    h = sub.add_parser("hygiene", help="near-duplicates, fragmented subjects, code maps, "
                       "compound facts, broken chains and stale pins")
    common(h)  # type: ignore[operator]
    h.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                   help="text (default; quiet when clean), markdown, or json (--json)")
    h.add_argument("--as-of", metavar="ISO", help="the beliefs as they were at ISO")
    h.add_argument("--fail-on", metavar="KIND[,KIND]", type=fail_on, default=(),
                   help=f"exit 1 when any flag of these kinds is found: {', '.join(KINDS)}, "
                   "or any")


def _no_store_yet(db: str | None) -> bool:
    """No file at the store's path: nothing to garden (the gardener stays silent too)."""
    from .paths import default_db_path

    path = os.path.expanduser(db) if db else os.path.expanduser(default_db_path())
    return path != ":memory:" and not os.path.exists(path)


def run(args: argparse.Namespace, open_store: object) -> int:
    """Scan, print, and pick the exit code (1 when a ``--fail-on`` kind was flagged)."""
    from .hygiene import scan
    from .hygiene.render import to_markdown, to_text

    fmt = "json" if args.json else args.format
    if _no_store_yet(args.db):
        report = HygieneReport(as_of=normalize_iso(args.as_of, "--as-of") if args.as_of else None)
    else:
        with open_store(args, readonly=True) as store:  # type: ignore[operator]
            store.without_memory_map()  # one pass over the file: keep RSS to what we hold
            report = scan(store, as_of=args.as_of)
    if fmt == "json":
        text = json.dumps(report.to_dict(), ensure_ascii=False, indent=2)
        print(json_visible(text) if sys.stdout.isatty() else text)
    else:
        text = to_markdown(report) if fmt == "markdown" else to_text(report)
        if text:
            print(text, end="" if text.endswith("\n") else "\n")
    counts = report.counts()
    return 1 if any(counts[k] for k in args.fail_on) else 0
