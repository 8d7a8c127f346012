"""``memharness-tui purge --id N [--whole] [--dry-run]``: take credentials out of a fact's whole
chain, in place (hygiene/purge.py). Prints the ids changed; then says whether the secrets'
bytes are in any file of the database (the file, -wal, -shm, migration backups).

Exit 0 purged (or, with ``--dry-run``, what would change), 1 when a secret's bytes are still
in a file afterwards (another process held the -wal; the message says what to do), 2 bad input.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from .cli_args import UsageError, integer
from .cli_text import visible

__all__ = ["add_parser", "cmd_purge"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser("purge", help="redact the credentials in a fact's whole chain, in "
                       "place (every version; ids and links kept)")
    p.add_argument("--db", metavar="PATH", default=argparse.SUPPRESS,
                   help="the database file (default: as the server finds it)")
    p.add_argument("--id", type=integer, dest="fact_id", required=True,
                   help="a fact of the chain to purge")
    p.add_argument("--whole", action="store_true",
                   help="replace each row's whole text, not only the credentials found")
    p.add_argument("--dry-run", action="store_true",
                   help="print what would change; write nothing")
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")


def cmd_purge(args: argparse.Namespace) -> int:
    import os

    from .hygiene.purge import apply_purge, plan_purge
    from .store import Store

    if args.db and args.db != ":memory:" and not os.path.exists(args.db):
        raise UsageError(f"no database at {args.db}")
    with Store.open(args.db, readonly=args.dry_run) as store:
        if not args.dry_run and store.readonly:
            store.check_file()
        plan = plan_purge(store, args.fact_id, whole=args.whole)
        if args.dry_run:
            if args.json:
                print(json.dumps({**plan.to_dict(), "dry_run": True}, ensure_ascii=False))
            else:
                print(f"would {plan.confirmation()[len('purge: '):]}")
                for r in plan.rows:
                    print(f"  #{r.id} ({r.status}) {visible(r.before)}")
                    print(f"     → {visible(r.after)}")
                print("nothing was written (--dry-run)")
            return 0
        result = apply_purge(store, plan)
    changed = result.outcome.changed
    if args.json:
        print(json.dumps({**plan.to_dict(), "changed": changed,
                          "backups_purged": result.outcome.backups_purged,
                          "notes": result.outcome.notes,
                          "leftovers": [{"file": f, "secret": m} for f, m in result.leftovers]},
                         ensure_ascii=False))
    else:
        print(f"Purged {len(changed)} row(s): {', '.join(f'#{i}' for i in changed)} "
              f"(chain {' '.join(f'#{i}' for i in plan.chain)}; ids and links unchanged)")
        for b in result.outcome.backups_purged:
            print(f"  also purged the backup {visible(b)}")
        for note in result.outcome.notes:
            print(f"  warning: {visible(note)}")
        if result.leftovers:
            for f, m in result.leftovers:
                print(f"  still in {visible(f)}: {m}")
        elif plan._strings:
            print("  checked: the credentials' bytes are in no file of the database "
                  "(the file, -wal, -shm, backups)")
    return 1 if result.leftovers else 0
