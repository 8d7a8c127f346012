"""``memharness-tui staleness``: the headless pass, for git hooks and scripts.

Prints ``checked N / current C / stale S / unresolved U`` (``/ backfilled B``
when non-zero) and then ``stale ids: #4, #7`` to stderr, as the reference bin
does; ``--json`` prints the whole report to stdout. Exit codes: 0 ran; 1 ran and
found stale facts, only with ``--fail-on-stale``; 2 bad input or unusable repo or
database (nothing written), or an unexpected error (one line; batches already
written stay whole). Never 1 for an error: 1 means "stale found" to a hook.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the engine (and pygit2) load when a pass runs, not with the parser:
    # the app's launch builds this parser and never runs a pass before its first results
    from .runner import PassReport, StalenessPass

__all__ = ["add_parser", "build_parser", "main", "run"]

PROG = "memharness-tui"


class _UsageError(Exception):
    pass


def add_parser(subparsers: Any) -> None:
    """Add the ``staleness`` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser(
        "staleness",
        help="judge pinned facts against git (current / stale / unresolved)",
        description=(
            "Judge every live pinned fact against git HEAD and record the verdicts. "
            "Summary and stale ids go to stderr. Exit 0 ran, 1 stale found "
            "(only with --fail-on-stale), 2 bad input or unusable repo (nothing written)."
        ),
    )
    configure_parser(p)


def configure_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        metavar="PATH",
        # SUPPRESS: never overwrite a --db given before the subcommand
        default=argparse.SUPPRESS,
        help=(
            "the memharness database (default: $MEMHARNESS_DB, else "
            "$XDG_DATA_HOME/memharness/memory.db or ~/.memharness/memory.db)"
        ),
    )
    p.add_argument(
        "--repo",
        metavar="PATH",
        action="append",
        default=None,
        help="a git repo to check against; repeat for several (default: the repo around .)",
    )
    p.add_argument("--check", action="store_true", help="check only: compute, write nothing")
    p.add_argument(
        "--downgrade",
        action="store_true",
        help=(
            "revise every stale fact (not one a downgrade wrote) with confidence x FACTOR "
            "(never retracts)"
        ),
    )
    # parsed in run() so a bad value is one clear line, not a usage dump
    p.add_argument("--factor", metavar="F", default=None, help="downgrade factor in (0, 1], default 0.5")
    p.add_argument("--json", action="store_true", help="print a JSON report to stdout")
    p.add_argument(
        "--fail-on-stale", action="store_true", help="exit 1 when any fact is stale"
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="write even when fewer than half of the pins are in the repos (wrong repo?)",
    )
    p.add_argument("--batch-size", type=int, default=500, help=argparse.SUPPRESS)
    p.add_argument(
        "--format",
        choices=("text", "json", "markdown"),
        default="text",
        help=(
            "json / markdown: also print the stale facts grouped by triage (touches it, "
            "moved, deleted, elsewhere) with evidence, to stdout"
        ),
    )
    p.add_argument(
        "--watch",
        action="store_true",
        help="watch the repos' HEADs; run a pass a few seconds after each change (Ctrl+C stops)",
    )
    p.add_argument("--settle", type=float, default=3.0, help=argparse.SUPPRESS)
    p.add_argument("--poll", type=float, default=1.0, help=argparse.SUPPRESS)
    p.add_argument("--max-polls", type=int, default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def build_parser() -> argparse.ArgumentParser:
    """A standalone parser (``memharness-tui staleness …``) for tests and scripts."""
    parser = argparse.ArgumentParser(prog=PROG)
    sub = parser.add_subparsers(dest="command", required=True)
    add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(args)


def _error(message: str) -> int:
    from memharness_tui.cli_text import one_line

    # one line, whatever the message quotes (a path or fact text may hold a newline or ESC)
    print(f"{PROG}: error: {one_line(message)}", file=sys.stderr)
    return 2


def _factor(args: argparse.Namespace) -> float:
    raw = getattr(args, "factor", None)
    if raw is None:
        return 0.5
    if not getattr(args, "downgrade", False):
        raise _UsageError("--factor only makes sense with --downgrade")
    from memharness_tui.cli_args import number

    try:
        f = float(number(raw))  # ASCII digits only: "٠.٥" is refused, not read as 0.5
    except (TypeError, ValueError, argparse.ArgumentTypeError):
        raise _UsageError(f"--factor must be a number in (0, 1], got {raw!r}") from None
    if not math.isfinite(f) or not 0 < f <= 1:
        raise _UsageError(f"--factor must be a number in (0, 1], got {raw!r}")
    return f


def _db_path(args: argparse.Namespace) -> str:
    raw = getattr(args, "db", None)
    if raw is None:
        from memharness_tui.paths import default_db_path

        raw = default_db_path()
    if raw == ":memory:":
        raise _UsageError("an in-memory database (:memory:) has no facts to check; use --db PATH")
    path = Path(raw).expanduser()
    if path.is_dir():
        raise _UsageError(f"{path} is a folder, not a database file")
    if not path.exists():
        raise _UsageError(f"no database at {path} (use --db PATH or set MEMHARNESS_DB)")
    return str(path)


def _repos(args: argparse.Namespace) -> list[Path]:
    given = getattr(args, "repo", None)
    if given:
        return [Path(r).expanduser() for r in given]
    from .git import find_repo

    here = find_repo(Path.cwd())
    if here is None:
        raise _UsageError(f"{os.getcwd()} is not inside a git repository; use --repo PATH")
    return [here]


def run(args: argparse.Namespace) -> int:
    """Run the headless pass from parsed arguments; returns the exit code."""
    from memharness_tui.store.errors import MemharnessError

    from .git import RepoError
    from .runner import StalenessPass

    try:
        if args.check and args.downgrade:
            raise _UsageError("--check and --downgrade cannot be combined")
        fmt = getattr(args, "format", "text")
        if args.json and fmt == "markdown":
            raise _UsageError("--json and --format markdown cannot be combined")
        factor = _factor(args)
        batch = getattr(args, "batch_size", 500)
        if not isinstance(batch, int) or batch < 1:
            raise _UsageError("--batch-size must be a positive integer")
        repos = _repos(args)
        db = _db_path(args)
        work = None  # the precheck's read of the pins, handed to the pass (read once)
        if not args.check and not getattr(args, "force", False):
            from .precheck import coverage_and_work

            cov, work = coverage_and_work(db, repos)
            if cov.wrong_repo:
                raise _UsageError(cov.sentence([str(r) for r in repos])
                                  + " Nothing was written; --force writes anyway, "
                                  "--repo PATH names the right repo")
        spass = StalenessPass(
            db,
            repos,
            check_only=args.check,
            downgrade=args.downgrade,
            factor=factor,
            batch_size=batch,
            # --watch passes run later, on a HEAD change: they read the pins then
            work=None if getattr(args, "watch", False) else work,
        )
        if getattr(args, "watch", False):
            return _watch(args, spass, db, repos)
        report = spass.run()
        triaged = _triaged(report, db, repos) if fmt != "text" else None
    except _UsageError as e:
        return _error(str(e))
    except RepoError as e:
        return _error(str(e))
    except MemharnessError as e:
        return _error(e.message)
    except (OSError, ValueError) as e:
        return _error(str(e))
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # a bug or a git/SQLite surprise: one line, exit 2, never 1
        return _error(f"staleness pass failed: {type(e).__name__}: {_one_line(e)}")
    _print(report, as_json=args.json and triaged is None)
    if triaged is not None:
        _print_triage(report, triaged, fmt)
    if report.repo_errors:  # a damaged repo is an error, never a verdict
        noun = "pin was" if report.unjudged == 1 else "pins were"
        for message in report.repo_errors:
            _error(message)
        return _error(f"{report.unjudged} {noun} not judged: the git objects they need are "
                      "damaged; their verdicts are unchanged")
    if args.fail_on_stale and report.stale:
        return 1
    return 0


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or "(no message)"


def _print(report: PassReport, *, as_json: bool) -> None:
    from .runner import stale_ids_line

    err = sys.stderr
    print(report.summary_line(), file=err)
    if report.stale_ids:
        print(stale_ids_line(report.stale_ids), file=err)
    if report.downgraded:
        pairs = " ".join(f"#{o}->#{n}" for o, n in report.downgraded)
        print(f"downgraded: {pairs}", file=err)
    if report.skipped:
        print(
            "skipped (changed by another writer during the pass): "
            + " ".join(f"#{i}" for i in report.skipped),
            file=err,
        )
    for _, why in report.left:
        print(why, file=err)
    if as_json:
        try:
            json.dump(report.to_dict(), sys.stdout, indent=2)
            sys.stdout.write("\n")
            sys.stdout.flush()
        except BrokenPipeError:  # `… --json | head`: the reader left; not our error
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())


def _triaged(report: PassReport, db: str, repos: list[Path]) -> list[Any]:
    from .report import triage_report

    return triage_report(report, db, repos)


def _print_triage(report: PassReport, triaged: list[Any], fmt: str) -> None:
    from .report import to_json, to_markdown

    if fmt == "markdown":
        text = to_markdown(report, triaged)
    else:
        text = json.dumps(to_json(report, triaged), indent=2, ensure_ascii=False) + "\n"
    try:
        sys.stdout.write(_for_terminal(text, json_text=fmt != "markdown"))
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _for_terminal(text: str, *, json_text: bool = False) -> str:
    """``recall``'s rule: on a terminal, controls and bidi characters in git or database text
    are shown as escapes (JSON: ``\\uXXXX``, the same value); piped output is left as is."""
    if not sys.stdout.isatty():
        return text
    from memharness_tui.cli_text import json_visible, visible

    if json_text:
        return json_visible(text)
    return "\n".join(visible(line) for line in text.split("\n"))


def _watch(args: argparse.Namespace, spass: StalenessPass, db: str, repos: list[Path]) -> int:
    """``--watch``: one summary line per settled HEAD change, until Ctrl+C (exit 0)."""
    from .git_head import HeadProbe
    from .report import counts_line
    from .watch import StopWatching, watch

    if args.poll <= 0 or args.settle < 0:
        raise _UsageError("--poll must be positive and --settle not negative")
    probes = [HeadProbe(r) for r in repos]
    spass.open_checkers()  # an unusable repo fails now, with the usual one line

    def one_pass() -> str:
        if not Path(db).is_file():  # a pass would open (create) an empty file: "0 stale"
            raise StopWatching(f"the database {db} is gone (deleted or moved); stopped watching")
        report = spass.run()
        return counts_line(report, _triaged(report, db, repos))

    def out(line: str) -> None:
        print(_for_terminal(line), flush=True)

    heads = ", ".join((p.read() or "no HEAD")[:7] for p in probes)
    noun = "repo" if len(probes) == 1 else "repos"
    try:  # from the first line on, Ctrl+C is the normal way out
        print(f"watching {len(probes)} {noun} (HEAD {heads}); Ctrl+C to stop",
              file=sys.stderr, flush=True)
        watch(probes, one_pass, out, poll=args.poll, settle=args.settle,
              max_polls=args.max_polls)
    except KeyboardInterrupt:
        print("stopped watching", file=sys.stderr)
    except StopWatching as e:
        return _error(str(e))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
