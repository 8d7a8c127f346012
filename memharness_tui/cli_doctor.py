"""``memharness-tui doctor``: is this install and this store healthy?

The reference's ``memharness-doctor`` checks (the file opens, schema and counts, an empty
store, hybrid recall requested vs runnable) and what a person also needs to know: the schema
version against the newest this app knows, ``integrity_check`` and the search index's own
check, facts whose text is not valid UTF-8, vector coverage, the model mix and damaged vectors,
the installed model's name, pins whose repos are not configured, settings and theme files that
fail to load. One ``[ok]`` / ``[warn]`` / ``[fail]`` line each, then
``result: ok`` or ``result: FAILED`` (exit 1), as the reference prints. Never writes to the
store (store/health.py reads through a read-only connection).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .cli_text import visible

OK, WARN, FAIL = "ok", "warn", "fail"


class Report:
    """The lines so far; ``failed`` once any check failed."""

    def __init__(self) -> None:
        self.lines: list[str] = ["memharness doctor"]
        self.failed = False
        self._tty = sys.stdout.isatty()

    def text(self, value: object) -> str:
        """A value from the file, the settings or the environment: control characters shown
        as escapes on a terminal (never able to drive it)."""
        return visible(str(value)) if self._tty else str(value)

    def add(self, level: str, message: str) -> None:
        pad = {OK: "  [ok]   ", WARN: "  [warn] ", FAIL: "  [fail] "}[level]
        self.lines.append(pad + message)
        self.failed = self.failed or level == FAIL

    def note(self, message: str) -> None:
        self.lines.append("         " + message)


def add_parser(sub: Any) -> None:
    p = sub.add_parser("doctor", help="check the store and the install ([ok]/[warn]/[fail]; "
                       "exit 1 on a failure); never writes")
    p.add_argument("--db", metavar="PATH", default=argparse.SUPPRESS,
                   help="the database file (default: as the server finds it)")
    p.add_argument("--repo", action="append", metavar="DIR",
                   help="a repo the pins are checked against, as for staleness (repeatable; "
                        "default: the app's saved repos for this store, else the repo here)")


def _db_path(args: argparse.Namespace) -> str:
    from .paths import default_db_path

    return os.path.expanduser(args.db if getattr(args, "db", None) else default_db_path())


def check_store(report: Report, path: str) -> dict[str, Any] | None:
    """The file opens, its schema, counts, integrity; what later checks need, or None."""
    from .store import MemharnessError, Store, health, row_checks
    from .store.schema import SCHEMA_VERSION

    shown = report.text(path)
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        report.add(WARN, f"no store at {shown} yet: the agent's first remember creates it")
        return None
    try:
        with health.read_only(path) as conn:
            version = health.schema_version(conn)
            if version > SCHEMA_VERSION:
                report.add(FAIL, f"schema v{version} is newer than the newest this app knows "
                           f"(v{SCHEMA_VERSION}): upgrade memharness-tui")
                return None
            total, embedded = health.counts(conn)
            found = health.integrity(conn)
            pins = health.live_pins(conn) if version >= 5 else []  # pins came with m005
            bad_text = row_checks.undecodable_text(conn)
            bad_vectors = row_checks.bad_vectors(conn)
    except Exception as exc:  # the driver's DatabaseError, an OSError: one line, no traceback
        report.add(FAIL, f"cannot open the database: {report.text(exc)}")
        return None
    current: int | None = None
    if version == SCHEMA_VERSION:
        try:
            with Store.open(path, readonly=True) as store:
                stats = store.stats()
                mix = store.model_mix()
            current = stats.current_beliefs
        except MemharnessError as exc:
            report.add(FAIL, f"cannot open the database: {report.text(exc)}")
            return None
        report.add(OK, "database opens (read-only here)")
        report.add(OK, f"schema v{version}, the newest this app knows; {total:,} facts "
                   f"({current:,} current beliefs)")
    else:
        report.add(OK, "database opens (read-only here)")
        report.add(WARN, f"schema v{version}, older than the newest this app knows "
                   f"(v{SCHEMA_VERSION}); {total:,} facts: the next read-write open (the app, "
                   "or the agent's server) migrates it, after taking a backup")
        mix = []
    if total == 0:
        report.add(WARN, "store is empty: hand the agent a durable fact, then ask it to "
                   "recall, to confirm the round-trip")
    if found.database:
        report.add(FAIL, "integrity_check: " + report.text("; ".join(found.database)))
        report.note("restore a backup (the app keeps one before each migration) or run "
                    "sqlite3's .recover on a copy")
    else:
        report.add(OK, "integrity_check: ok")
    if bad_text:
        n = len(bad_text)
        report.add(WARN, f"{n:,} fact{'s' if n != 1 else ''} hold{'' if n != 1 else 's'} text "
                   f"that is not valid UTF-8: {row_checks.some_ids(bad_text)}")
        report.note("recall, the app and every report show U+FFFD in place of the bad bytes; "
                    "the rows are left as they are (revise a fact to replace its text)")
    if found.search_index:
        report.add(FAIL, "the search index does not match the facts ("
                   + report.text("; ".join(found.search_index)) + "): keyword recall misses "
                   "or mis-ranks facts")
        report.note("rebuild it, with the agents stopped: sqlite3 FILE \"INSERT INTO "
                    "facts_fts(facts_fts) VALUES('rebuild')\"")
    else:
        report.add(OK, "search index (FTS5) integrity: ok")
    return {"total": total, "embedded": embedded, "mix": mix, "pins": pins,
            "bad_vectors": bad_vectors}


def check_vectors(report: Report, info: dict[str, Any] | None) -> None:
    from .embed.files import MODEL_NAME

    if info is None or info["total"] == 0:
        return
    total, embedded, mix = info["total"], info["embedded"], info["mix"]
    _damaged_vectors(report, info.get("bad_vectors", []))
    if embedded == 0:
        report.add(OK, "vectors: none (keyword recall; `memharness-tui reembed` adds them)")
        return
    share = f"{embedded:,} of {total:,} facts carry a vector ({100 * embedded / total:.0f} %)"
    parts = ", ".join(f"{m.count:,} {report.text(m.model or 'unnamed')} ({m.dim} numbers)"
                      for m in mix)
    others = [m for m in mix if m.model != MODEL_NAME]
    dims = sorted({m.dim for m in mix if m.dim is not None})
    if others or len(dims) > 1:
        advice = []
        if others:
            advice.append(f"`memharness-tui reembed` replaces other models' vectors with "
                          f"{MODEL_NAME}'s")
        if len(dims) > 1:
            advice.append("recall's vector leg compares only vectors of the query's length ("
                          + " vs ".join(str(d) for d in dims) + " numbers here)")
        report.add(WARN, f"vectors: {share}; a mix: {parts}. " + "; ".join(advice))
    elif embedded < total:
        report.add(OK, f"vectors: {share}, all {parts}; the rest are embedded by the next "
                   "hybrid recall of the agent's server or `memharness-tui reembed`")
    else:
        report.add(OK, f"vectors: {share}, all {parts}")


def _damaged_vectors(report: Report, bad: list[tuple[int, int | None]]) -> None:
    """Vector blobs that are not ``embedding_dim`` float32 numbers. sqlite-vec refuses every
    hybrid recall whose query has that many numbers (the agent's as well: the reference's
    recall throws); a row with no usable dimension is only passed over."""
    from .store.row_checks import some_ids

    read = [i for i, d in bad if d is not None]
    dims = sorted({d for _, d in bad if d is not None})
    if read:
        report.add(FAIL, f"{len(read):,} stored vector(s) do not hold the {'/'.join(map(str, dims))} "
                   f"numbers their embedding_dim says: {some_ids(read)}; every hybrid recall "
                   "with a query of that length fails on them, the agent's too")
        report.note("`memharness-tui reembed` replaces them")
    passed = [i for i, d in bad if d is None]
    if passed:
        report.add(WARN, f"{len(passed):,} stored vector(s) have no usable embedding_dim: "
                   f"{some_ids(passed)}; recall passes them over (`memharness-tui reembed` "
                   "replaces them)")


def check_hybrid(report: Report) -> None:
    """Requested (MEMHARNESS_HYBRID=1) vs runnable here: sqlite-vec, the runtime, the model."""
    from . import embed
    from .store import vector_ext
    from .store.driver import sqlite3

    conn = sqlite3.connect(":memory:")
    try:
        vec = vector_ext.load_into(conn)
        vec_version = vector_ext.version(conn)
    finally:
        conn.close()
    if not embed.hybrid_requested():
        report.add(OK, "recall: keyword (FTS) mode; set MEMHARNESS_HYBRID=1 and install "
                   "memharness-tui[hybrid] for hybrid recall, as the agent's server")
        return
    if not vec:
        report.add(WARN, "MEMHARNESS_HYBRID=1 but sqlite-vec did not load here ("
                   + report.text(vector_ext.problem() or "unknown reason")
                   + "); recall here stays keyword-only")
        return
    problem = embed.runtime_problem()
    if problem is not None:
        report.add(FAIL, "MEMHARNESS_HYBRID=1 and sqlite-vec loaded, but " + problem
                   + ": recall here is silently keyword-only")
        return
    folder = embed.model_dir()
    missing = embed.missing_files(folder)
    if missing and os.environ.get(embed.DIR_ENV):
        report.add(FAIL, f"MEMHARNESS_HYBRID=1 but {embed.DIR_ENV} ({report.text(folder)}) "
                   f"lacks {', '.join(missing)}")
        return
    if missing:
        report.add(WARN, f"MEMHARNESS_HYBRID=1: the model {embed.MODEL_NAME} is not downloaded "
                   f"yet ({report.text(folder)}); `memharness-tui reembed` downloads it once")
        return
    try:
        name = embed.Embedder(folder).name
    except embed.ModelError as exc:
        report.add(FAIL, "MEMHARNESS_HYBRID=1 but " + report.text(exc))
        return
    if name != embed.MODEL_NAME:
        report.add(WARN, f"recall: hybrid mode (sqlite-vec {vec_version}), but the model in "
                   f"{report.text(folder)} is {report.text(name)} (named from its files), not "
                   f"{embed.MODEL_NAME}, which the agent's server embeds with: vectors made "
                   "here do not match its queries (a copy of that model needs a "
                   f"{embed.NAME_FILE} file in the folder saying {embed.MODEL_NAME})")
        return
    report.add(OK, f"recall: hybrid mode (sqlite-vec {vec_version}, {embed.MODEL_NAME} in "
               f"{report.text(folder)})")


def check_pins(report: Report, info: dict[str, Any] | None, path: str,
               given: list[str] | None = None) -> None:
    """Live pins whose commits none of the configured repos has (the staleness pass's repos:
    ``--repo`` if given, else the ones saved for this store in the app, else the repo around
    the current folder)."""
    if info is None or not info["pins"]:
        return
    from .staleness.git import GitChecker, RepoError
    from .tui.repos import load_repos

    pins: list[tuple[str, int]] = info["pins"]
    facts = sum(n for _, n in pins)
    repos = list(given) if given else load_repos(db=path)
    checkers = []
    for repo in repos:
        try:
            checkers.append(GitChecker(repo))
        except RepoError as exc:
            report.add(WARN, "a configured repo cannot be used: " + report.text(exc))
    if not checkers:
        report.add(WARN, f"{facts:,} live facts are pinned to commits, but no repo is "
                   "configured for this store (the app's Staleness repos, or run from inside "
                   "the repo): their staleness cannot be checked")
        return
    unknown = [(c, n) for c, n in pins
               if not any(ch.resolve(c)[1] is not None for ch in checkers)]
    if unknown:
        lost = sum(n for _, n in unknown)
        sample = ", ".join(report.text(c[:12]) for c, _ in unknown[:3])
        report.add(WARN, f"{lost:,} of {facts:,} pinned facts pin {len(unknown):,} commit(s) "
                   f"none of the configured repos has (e.g. {sample}): add their repo in the "
                   "app's Staleness repos")
    else:
        report.add(OK, f"pins: all {facts:,} pinned facts' commits are in the configured "
                   f"repo(s)")


def _json_problem(path: Path, check: Callable[[Any], str | None]) -> str | None:
    from .config import SettingsFileDamaged, readable_json

    try:
        raw = readable_json(path)
    except SettingsFileDamaged as exc:
        return exc.reason
    if raw is None:
        return None
    return check(raw)


def _settings_shape(raw: Any) -> str | None:
    if not isinstance(raw, dict):
        return "is not a JSON object"
    if "theme" in raw and raw["theme"] is not None and not isinstance(raw["theme"], str):
        return "has a 'theme' that is not a string"
    repos = raw.get("recent_repos", [])
    if not isinstance(repos, list) or not all(isinstance(r, str) for r in repos):
        return "has 'recent_repos' that is not a list of strings"
    return None


def _repos_shape(raw: Any) -> str | None:
    if not isinstance(raw, dict):
        return "is not a JSON object of database → repos (it is ignored)"
    bad = [k for k, v in raw.items()
           if not isinstance(v, list) or not all(isinstance(r, str) for r in v)]
    return f"has {len(bad)} entr(y/ies) that are not a list of repo paths" if bad else None


def check_settings(report: Report) -> None:
    """settings.json, the repos file and the user's theme files: do they load?"""
    from .config import SETTINGS_FILE, config_dir, user_themes_dir
    from .tui.repos import REPOS_FILE
    from .tui.themes import load_themes, shipped_theme_files, user_theme_files

    folder = config_dir()
    bad = False
    for name, shape, effect in ((SETTINGS_FILE, _settings_shape, "the app uses its defaults"),
                                (REPOS_FILE, _repos_shape, "no saved repos are used")):
        why = _json_problem(folder / name, shape)
        if why:
            bad = True
            report.add(WARN, f"{report.text(folder / name)} {report.text(why)}: {effect}")
    _, problems = load_themes([*shipped_theme_files(), *user_theme_files(user_themes_dir())])
    for problem in problems:
        bad = True
        report.add(WARN, f"theme file {report.text(problem.path)} does not load: "
                   f"{report.text(problem.reason)}")
    if not bad:
        report.add(OK, f"settings and themes load ({report.text(folder)})")


def cmd_doctor(args: argparse.Namespace) -> int:
    report = Report()
    path = _db_path(args)
    report.lines.append(f"  db: {report.text(path)}")
    info = check_store(report, path)
    check_vectors(report, info)
    check_hybrid(report)
    check_pins(report, info, path, getattr(args, "repo", None))
    check_settings(report)
    print("\n".join(report.lines) + f"\n\nresult: {'FAILED' if report.failed else 'ok'}")
    return 1 if report.failed else 0
