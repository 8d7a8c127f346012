"""``memharness-tui review``: what agents wrote since the last review, and accepting it.

The queue is every row agents wrote after the mark saved for this database (in the app's
settings, never in the file; review_marks.py): learned, revised and retracted facts, grouped
by subject and agent, newest first, each with its agent, source_ref and pin (the agent's
own one-line format). Rows this app wrote (``memharness-tui/…``) are never listed.
``--fail-on-new`` exits 1 while something waits (for a hook or CI); ``--accept`` moves the
mark past the newest row listed. Never writes to the database.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from .cli_text import visible

ACTION_WIDTH = len("retracted")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("review", help="what agents wrote since the last review (--accept "
                       "marks it reviewed); never writes to the database")
    p.add_argument("--db", metavar="PATH", default=argparse.SUPPRESS,
                   help="the database file (default: as the server finds it)")
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    p.add_argument("--fail-on-new", action="store_true",
                   help="exit 1 when something waits for review")
    p.add_argument("--accept", action="store_true",
                   help="mark everything listed as reviewed (the mark moves to the newest row)")


def _groups(items: list[Any]) -> list[tuple[tuple[str, str], list[Any]]]:
    """Items by (subject, agent), each group newest first, groups by their newest item."""
    groups: dict[tuple[str, str], list[Any]] = {}
    for item in items:  # already newest first
        groups.setdefault((item.fact.subject, item.fact.source_agent), []).append(item)
    return list(groups.items())


def _line(item: Any) -> str:
    from .store import formats

    was = f" (was #{item.old_id})" if item.old_id is not None else ""
    return f"  {item.action:<{ACTION_WIDTH}} {item.at[:16].replace('T', ' ')}  " \
           f"{formats.fmt_fact(item.fact)}{was}"


def review_text(items: list[Any], reviewed_before: bool) -> str:
    if not items:
        return "Nothing to review: no agent wrote since the last review." if reviewed_before \
            else "Nothing to review: no agent has written to this store."
    since = "since the last review" if reviewed_before else "(never reviewed: everything on file)"
    out = [f"{len(items)} write(s) to review {since}:"]
    for (subject, agent), group in _groups(items):
        out.append("")
        out.append(f"{subject} — {agent or 'unknown'} ({len(group)})")
        out.extend(_line(i) for i in group)
    return "\n".join(out)


def _item_json(item: Any) -> dict[str, Any]:
    f = item.fact
    return {"action": item.action, "at": item.at, "id": f.id, "old_id": item.old_id,
            "subject": f.subject, "source_agent": f.source_agent, "source_ref": f.source_ref,
            "source_commit": f.source_commit, "source_path": f.source_path,
            "predicate": f.predicate, "fact": f.fact}


def cmd_review(args: argparse.Namespace) -> int:
    from .paths import default_db_path
    from .review_marks import load_mark, save_mark
    from .store import Store
    from .store.review_reads import ReviewMark

    db = getattr(args, "db", None)
    path = os.path.expanduser(db if db else default_db_path())
    mark = load_mark(path)
    with Store.open(path, readonly=True) as store:
        items = store.review_queue(mark or ReviewMark())
    tty = sys.stdout.isatty()
    if args.accept:
        if items:
            save_mark(path, (mark or ReviewMark()).after(items))
        text = (f"Accepted {len(items)} write(s); the next review lists what agents write "
                "after them." if items else "Nothing to review; the mark is where it was.")
        data: dict[str, Any] = {"accepted": len(items)}
        print(json.dumps(data) if args.json else text)
        return 0
    if args.json:
        dumped = json.dumps({"reviewed_before": mark is not None, "count": len(items),
                             "items": [_item_json(i) for i in items]},
                            ensure_ascii=False, indent=2)
        print(visible(dumped) if tty else dumped)
    else:
        text = review_text(items, mark is not None)
        print("\n".join(visible(line) for line in text.split("\n")) if tty else text)
    return 1 if args.fail_on_new and items else 0
