"""Entry point: no subcommand opens the app; subcommands are headless, for hooks and scripts.

Every subcommand prints the SPEC §9 text (or ``--json``), exits 0 on success and 2 on bad
input with one line on stderr — never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, is_dataclass
from typing import Any, NoReturn

from . import cli_args, launch
from .cli_args import UsageError
from .cli_context import add_parser as add_context
from .cli_context import cmd_context
from .cli_doctor import add_parser as add_doctor
from .cli_doctor import cmd_doctor
from .cli_hybrid import query_vector
from .cli_purge import add_parser as add_purge
from .cli_purge import cmd_purge
from .cli_reembed import add_parser as add_reembed
from .cli_reembed import cmd_reembed
from .cli_review import add_parser as add_review
from .cli_review import cmd_review
from .cli_serve import cmd_serve
from .cli_text import json_visible, visible_tree
from .store import FakeClock, Store
from .store import formats as fmt
from .store.timeutil import normalize_iso
from .store.types import FRESHNESS_FILTERS, KINDS, RecallResult

PROG = launch.PROG
DB_HELP = (
    "the database file (default: $MEMHARNESS_DB, else $XDG_DATA_HOME/memharness/memory.db "
    "or ~/.memharness/memory.db, as the memharness server finds it)"
)

_integer = cli_args.integer
_number = cli_args.number


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = cli_args.NEGATIVE_VALUE

    def error(self, message: str) -> NoReturn:  # one line, not usage + traceback
        raise UsageError(cli_args.rewrite_argparse_message(message))


def _common(parser: argparse.ArgumentParser, *, write: bool = False) -> None:
    # SUPPRESS: a --db given before the subcommand must not be reset to None here.
    parser.add_argument(
        "--db", metavar="PATH", default=argparse.SUPPRESS,
        help=DB_HELP,
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    parser.add_argument(
        "--now", metavar="ISO",
        # accepted by writes only to refuse it with the reason, not "unrecognized arguments"
        help=argparse.SUPPRESS if write
        else "evaluate as if the current time were ISO (audits, repeatable output)",
    )


def version_text() -> str:
    """``memharness-tui 0.1.0 (SQLite 3.45.1)``: the SQLite library the store's driver runs."""
    from . import __version__
    from .store import driver as store_driver

    driver = getattr(store_driver, "sqlite3", None)
    sqlite_version = getattr(driver, "sqlite_version", None) or "unknown"
    return f"{PROG} {__version__} (SQLite {sqlite_version})"


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=PROG,
        description="Browse, time-travel and repair a memharness memory store. "
        "With no subcommand, opens the terminal app.",
    )
    p.add_argument("--version", action="version", version=version_text())
    p.add_argument("--db", metavar="PATH", help=DB_HELP)
    p.add_argument("--readonly", action="store_true", help="open the app read-only")
    p.add_argument("--demo", action="store_true",
                   help="use the demo store (built on first use): the app, or a subcommand")
    # --demo/--reset also serve the subcommands: see demo.apply_demo_args
    p.add_argument("--reset", action="store_true",
                   help="with --demo: rebuild the demo store and repo from scratch")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    r = sub.add_parser("recall", help="what the agent would recall")
    _common(r)
    r.add_argument("query", nargs="?", default="", help="search text (optional)")
    r.add_argument("--subject", default="")
    r.add_argument("--kind", choices=KINDS)
    r.add_argument("--as-of", metavar="ISO", help="beliefs as they were at ISO")
    r.add_argument("--limit", type=_number, default=8)
    r.add_argument("--max-tokens", type=_number)
    r.add_argument("--freshness", choices=FRESHNESS_FILTERS)
    r.add_argument(
        "--reinforce", action="store_true", help="update last_accessed_at like the agent's recall"
    )

    w = sub.add_parser("why", help="a fact with its supersession chain")
    _common(w)
    w.add_argument("id", type=_integer)

    d = sub.add_parser("diff", help="learned / revised / retracted since a date")
    _common(d)
    d.add_argument("since", metavar="SINCE")
    d.add_argument("--subject")

    s = sub.add_parser("stats", help="totals and top subjects")
    _common(s)

    m = sub.add_parser("remember", help="record a new fact")
    _common(m, write=True)
    m.add_argument("subject")
    m.add_argument("fact")
    m.add_argument("--predicate", default="")
    m.add_argument("--confidence", type=_number, default=1.0)
    m.add_argument("--importance", type=_number, default=5)
    m.add_argument("--kind", default="semantic")
    _provenance(m)

    v = sub.add_parser("revise", help="supersede a fact with a corrected one")
    _common(v, write=True)
    v.add_argument("id", type=_integer)
    v.add_argument("fact", help="the new text")
    v.add_argument("--confidence", type=_number, default=1.0)
    v.add_argument("--importance", type=_number)
    v.add_argument("--kind")
    _provenance(v)

    f = sub.add_parser("forget", help="retract a fact by id or every fact with a source_ref")
    _common(f, write=True)
    group = f.add_mutually_exclusive_group(required=True)
    group.add_argument("--id", type=_integer, dest="fact_id")
    group.add_argument("--source-ref")

    try:
        from .staleness.cli import add_parser as add_staleness
    except ImportError:  # pragma: no cover - the engine ships with the package
        pass
    else:
        add_staleness(sub)

    add_reembed(sub)
    add_purge(sub)
    add_doctor(sub)
    add_context(sub)
    add_review(sub)
    from .cli_hygiene import add_parser as add_hygiene

    add_hygiene(sub, _common)

    sv = sub.add_parser("serve", help="serve the app to a browser on localhost")
    sv.add_argument("--port", type=_integer, default=8000)
    sv.add_argument("--max-sessions", type=_integer, default=4, metavar="N",
                    help="browser sessions served at once, each its own app (default 4)")
    sv.add_argument("--db", metavar="PATH", default=argparse.SUPPRESS)
    sv.add_argument("--readonly", action="store_true", default=argparse.SUPPRESS,
                    help="serve the app read-only")
    sv.add_argument("--demo", action="store_true")
    return p


def _provenance(p: argparse.ArgumentParser) -> None:
    p.add_argument("--source-ref", default="")
    p.add_argument("--source-agent", default="")
    p.add_argument("--source-commit")
    p.add_argument("--source-path")
    p.add_argument("--valid-from", metavar="ISO")


def _provenance_args(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "source_ref": args.source_ref,
        "source_agent": args.source_agent,
        "source_commit": args.source_commit,
        "source_path": args.source_path,
        "valid_from": args.valid_from,
    }


def _jsonable(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        d = asdict(value)
        if "score" in d and d["score"] is None:
            d.pop("score")
        return d
    return value


def _emit(
    args: argparse.Namespace, data: Any, render: Callable[[Any], str], result: Any = None
) -> None:
    """Print ``data`` as JSON, or ``render(result)`` (result defaults to data) as text.

    On a terminal, control characters from the database are shown as escapes (see cli_text);
    in a pipe the text is exactly what the agent's tools print.
    """
    tty = sys.stdout.isatty()
    if args.json:
        text = json.dumps(data, default=_jsonable, ensure_ascii=False, indent=2)
        print(json_visible(text) if tty else text)
        return
    shown = data if result is None else result
    print(render(visible_tree(shown) if tty else shown))


WRITE_COMMANDS = ("remember", "revise", "forget", "reembed", "purge")


def _open(args: argparse.Namespace, *, readonly: bool) -> Store:
    now = getattr(args, "now", None)
    if now is not None and not readonly:
        # A write under a faked clock would record false tx_at / retracted_at times.
        raise UsageError(
            "--now is for reads; it cannot be combined with a write (it would record false times)"
        )
    if args.command in ("revise", "forget") and args.db and not os.path.exists(args.db):
        raise UsageError(f"no database at {args.db}")
    clock = FakeClock(normalize_iso(now, "--now"), step_ms=0) if now is not None else None
    return Store.open(args.db, clock=clock, readonly=readonly, trust_clock=now is not None)


#: recall's closing advice in this CLI: the agent's text (formats.DRIFT_NOTE) names the reference's
#: own staleness tool; a user of this CLI runs this CLI's command instead.
CLI_DRIFT_NOTE = (
    "(some pinned facts may have drifted — run memharness-tui staleness, "
    "or re-verify against current code)"
)


def _fmt_recall_here(r: RecallResult) -> str:
    """The agent's recall text, its drift note (always the last line when present) made ours."""
    text = fmt.fmt_recall(r)
    if any(f.freshness in ("stale", "unresolved") for f in r.facts):
        head, _, note = text.rpartition("\n")
        if note == fmt.DRIFT_NOTE:
            return f"{head}\n{CLI_DRIFT_NOTE}"
    return text


def _cmd_recall(args: argparse.Namespace) -> int:
    with _open(args, readonly=not args.reinforce) as store:
        vector = query_vector(store, args.query)  # MEMHARNESS_HYBRID=1: as the agent's server
        r = store.recall(
            args.query,
            subject=args.subject,
            kind=args.kind,
            as_of=args.as_of,
            limit=args.limit,
            max_tokens=args.max_tokens,
            freshness=args.freshness,
            reinforce=args.reinforce,
            query_vector=vector,
        )
    data = {
        "ids": r.ids,
        "scores": r.scores,
        "as_of": r.as_of,
        "truncated": r.truncated,
        "used_fallback": r.used_fallback,
        "facts": r.facts,
    }
    _emit(args, data, _fmt_recall_here, r)
    return 0


def _cmd_why(args: argparse.Namespace) -> int:
    with _open(args, readonly=True) as store:
        w = store.why(args.id)
    _emit(args, w, fmt.fmt_why)
    return 0


def _cmd_diff(args: argparse.Namespace) -> int:
    with _open(args, readonly=True) as store:
        d = store.diff(args.since, args.subject)
    _emit(args, d, fmt.fmt_diff)
    return 0


def _cmd_stats(args: argparse.Namespace) -> int:
    with _open(args, readonly=True) as store:
        s = store.stats()
    _emit(args, s, fmt.fmt_stats)
    return 0


def _cmd_remember(args: argparse.Namespace) -> int:
    from .hygiene.nudges import REMEMBER_SIMILAR_LIMIT, remember_note, remember_text

    with _open(args, readonly=False) as store:
        # the server's dedup gate: read before the write, so the fact is not compared to itself
        similar = store.near_duplicates(args.subject, args.fact, limit=REMEMBER_SIMILAR_LIMIT)
        new_id, tx_at = store.remember(
            args.subject,
            args.fact,
            predicate=args.predicate,
            confidence=args.confidence,
            importance=args.importance,
            kind=args.kind,
            **_provenance_args(args),
        )
    note = remember_note(args.subject, args.fact, similar, pinned=args.source_commit is not None)
    data = {"id": new_id, "tx_at": tx_at, "note": note.removeprefix(" Note: ") or None}
    # the note quotes the subject: shown through _emit like any other text on a terminal
    _emit(args, data, lambda d: remember_text(d["id"], f" Note: {d['note']}" if d["note"] else ""))
    return 0


def _cmd_revise(args: argparse.Namespace) -> int:
    with _open(args, readonly=False) as store:
        old_id, new_id, tx_at = store.revise(
            args.id,
            args.fact,
            confidence=args.confidence,
            importance=args.importance,
            kind=args.kind,
            **_provenance_args(args),
        )
    data = {"old_id": old_id, "new_id": new_id, "tx_at": tx_at}
    _emit(args, data, lambda _: f"Fact #{old_id} superseded by #{new_id}.")
    return 0


def _cmd_forget(args: argparse.Namespace) -> int:
    with _open(args, readonly=False) as store:
        count, ids = store.forget(fact_id=args.fact_id, source_ref=args.source_ref)
    _emit(
        args, {"retracted_count": count, "retracted_ids": ids}, lambda _: f"Retracted {count} fact(s)."
    )
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "recall": _cmd_recall,
    "why": _cmd_why,
    "diff": _cmd_diff,
    "stats": _cmd_stats,
    "remember": _cmd_remember,
    "revise": _cmd_revise,
    "forget": _cmd_forget,
    "serve": cmd_serve,
    "reembed": cmd_reembed,
    "purge": cmd_purge,
    "doctor": cmd_doctor,
    "context": cmd_context,
    "review": cmd_review,
}


_fail = launch.fail


def _check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """What only the command line can judge, before any file is opened."""
    if args.readonly and args.command in WRITE_COMMANDS:
        raise UsageError(f"--readonly cannot be combined with {args.command}")
    cli_args.check_text_arguments(args, cli_args.command_parser(parser, args.command))
    launch.check_db(args.db, demo=getattr(args, "demo", False))


def main(argv: Sequence[str] | None = None) -> int:
    """The full command line (``launch.main`` sends everything but a plain launch here)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        _check_arguments(parser, args)
    except UsageError as exc:
        return _fail(str(exc))
    command_parser = cli_args.command_parser(parser, args.command)
    return launch.guarded(lambda: _run(args),
                          name_flags=lambda message: cli_args.name_flags(message, command_parser))


def _run(args: argparse.Namespace) -> int:
    if args.demo or args.reset:  # the demo store, built if needed (and announced)
        from .demo import apply_demo_args

        apply_demo_args(args)
    if args.command is None:
        return launch.open_app(args.db, args.readonly, demo=args.demo)
    if args.command == "hygiene":
        from .cli_hygiene import run as run_hygiene

        return run_hygiene(args, _open)
    if args.command == "staleness":
        from .staleness.cli import run as run_staleness

        return run_staleness(args)
    return COMMANDS[args.command](args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
