#!/usr/bin/env python3
"""A small mutation check: plant one deliberate bug at a time and see whether the tests notice.

Each mutation names a file, an exact snippet of it, the snippet's replacement and, optionally,
the tests aimed at it (run first; the package's whole selection runs after them). The check
works on a temporary copy of the project, so the checkout is never modified, even when
interrupted. A mutation is *killed* when the selected tests fail with it applied and
*survives* when they all pass. A survivor that is expected (an equivalent change, or one
guarded on purpose by a second layer) carries a written reason in ``survives``; any other
survivor makes the script exit 1.

Run from the project root with the project's interpreter (stdlib only)::

    .venv/bin/python scripts/mutate.py                 # every mutation
    .venv/bin/python scripts/mutate.py --list          # ids, and a check every snippet still matches
    .venv/bin/python scripts/mutate.py --package staleness
    .venv/bin/python scripts/mutate.py --only 'store.fts-*' runner.live-only-off
    .venv/bin/python scripts/mutate.py --tests-ref main  # the same mutations against main's tests/
    .venv/bin/python scripts/mutate.py --show store.fts-no-quoting   # print the planted change
    .venv/bin/python scripts/mutate.py --only 'tui.first-screen-*' --aimed-only  # aimed tests alone
"""

from __future__ import annotations

import argparse
import fnmatch
import io
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STORE = "memharness_tui/store/store.py"
HANDLE = "memharness_tui/store/handle.py"  # (the store's file and clock, moved out of store.py)
WRITES = "memharness_tui/store/writes.py"
BELIEFS = "memharness_tui/store/beliefs.py"
BELIEFS_TESTS = "tests/store/test_belief_only_supersedes.py"
RECALL = "memharness_tui/store/recall.py"
WRITER = "memharness_tui/store/verdict_writer.py"
BROWSE = "memharness_tui/store/browse.py"
SPLIT = "memharness_tui/store/split_scan.py"
SPLIT_TESTS = "tests/store/test_split_scan.py"
CHECKS = "memharness_tui/store/validation.py"
SQL = "memharness_tui/store/sql.py"
DRIVER = "memharness_tui/store/driver.py"
TIMEUTIL = "memharness_tui/store/timeutil.py"
RUNNER = "memharness_tui/staleness/runner.py"
WORK = "memharness_tui/staleness/work.py"
VERDICTS = "memharness_tui/staleness/verdicts.py"
PINS = "memharness_tui/staleness/pins.py"
GIT = "memharness_tui/staleness/git.py"
RENDER = "memharness_tui/tui/render.py"
VALIDATION = "tests/store/test_validation.py"
RUNNER_TESTS = "tests/staleness/test_runner.py"
AS_OF_TESTS = "tests/store/test_as_of_rule.py"
RECALL_TESTS = "tests/store/test_recall_contract.py"
STALENESS_CLI = "memharness_tui/staleness/cli.py"
CLI_CONTRACT_TESTS = "tests/staleness/test_cli_contract.py"
WAL_PAGES = "memharness_tui/store/wal_pages.py"
LEDGER = "memharness_tui/store/current_ledger.py"
LEDGER_TESTS = "tests/store/test_counts_ledger.py"
LEDGER_R7 = "tests/store/test_counts_ledger_edges.py"
LEDGER_R8 = "tests/store/test_counts_ledger_after_restart.py"
DB = "memharness_tui/store/db.py"
RECALLS = "memharness_tui/tui/services/recalls.py"
FIRST_SCREEN_TESTS = "tests/tui/test_first_screen_recall.py"
FOOTER = "memharness_tui/tui/perf/footer.py"
APP_STATE_R7 = "tests/tui/test_app_state_edges.py"

#: tests run for a mutation that names none, by package
PACKAGE_TESTS: dict[str, tuple[str, ...]] = {
    "store": ("tests/store", "tests/test_cli.py", "tests/staleness"),
    "staleness": ("tests/staleness",),
    "render": ("tests/tui/test_parts.py", "tests/tui/test_render_clean.py"),
    "other": (),
}
#: run last within a selection: slow files that rarely are the first to catch a bug
SLOW = ("tests/store/test_property.py", "tests/store/test_concurrency.py",
        "tests/staleness/test_pins_property.py", "tests/staleness/test_partial_clone.py")


@dataclass(frozen=True)
class Mutation:
    id: str
    file: str
    original: str
    replacement: str
    why: str  # the bug this plants, in words
    tests: tuple[str, ...] = ()  # the tests aimed at it: run first, then the package's own
    survives: str | None = None  # the written reason when surviving is expected

    @property
    def package(self) -> str:
        if self.file.startswith("memharness_tui/store/"):
            return "store"
        if self.file.startswith("memharness_tui/staleness/"):
            return "staleness"
        if self.file == RENDER:
            return "render"
        return "other"

    @property
    def selections(self) -> tuple[tuple[str, ...], ...]:
        """pytest runs in order: the aimed tests (a kill shows sooner), then the package's.

        Two runs, not one: pytest drops a folder given after a file inside it.
        """
        rest = tuple(t for t in PACKAGE_TESTS[self.package] if t not in self.tests)
        return tuple(sel for sel in (self.tests, rest) if sel)


M = Mutation
MUTATIONS: list[Mutation] = [
    # --- store/: recall text handling --------------------------------------------------
    M("store.fts-no-quoting", RECALL,
      """return ['"' + t.replace('"', '""') + '"' for t in js_split(query)]""",
      "return js_split(query)",
      "query tokens reach FTS5 unquoted: NOT, col:, NEAR, * become syntax",
      tests=(VALIDATION,)),
    M("store.fts-quotes-not-doubled", RECALL,
      """'"' + t.replace('"', '""') + '"'""", """'"' + t + '"'""",
      "a double quote inside a token ends the phrase early", tests=(VALIDATION,)),
    M("store.fts-no-or-retry", RECALL,
      "if len(phrases) > 1:\n                matches.append",
      "if False:\n                matches.append",
      "a multi-word query whose words are not all in one fact falls back to substring search",
      tests=(VALIDATION,)),
    M("store.like-no-underscore-escape", RECALL,
      """.replace("_", "\\\\_")""", "",
      "_ in a fallback query matches any character"),
    M("store.like-no-backslash-escape", RECALL,
      """query.replace("\\\\", "\\\\\\\\")""", "query",
      "a backslash in a fallback query escapes the next character"),
    M("store.recall-budget-boundary", RECALL,
      "if cost > budget:", "if cost >= budget:",
      "a fact that exactly fills max_tokens is dropped"),
    M("store.reinforce-in-as-of", RECALL,
      "if reinforce and asof is None and facts:", "if reinforce and facts:",
      "a time-travel recall with reinforce writes last_accessed_at"),
    M("store.tokens-divisor", RECALL,
      "// 2 / 4)", "// 2 / 3)",
      "token estimate uses the wrong divisor"),
    M("store.effective-now-min", HANDLE,
      "newest is not None and newest > clock_now", "newest is not None and newest < clock_now",
      "a writer whose clock runs ahead no longer moves 'now'",
      tests=("tests/store/test_age_bound.py",)),
    # --- store/: validation ------------------------------------------------------------
    M("store.confidence-upper-open", CHECKS,
      "or value > 1\n", "or value >= 1\n",
      "confidence 1.0 is refused"),
    M("store.confidence-lower-open", CHECKS,
      "or value < 0\n", "or value <= 0\n",
      "confidence 0.0 is refused"),
    M("store.importance-upper-open", CHECKS,
      "not 1 <= value <= 10", "not 1 <= value < 10",
      "importance 10 is refused"),
    M("store.positive-int-zero", CHECKS,
      "not 1 <= whole <= _INT64_MAX", "not 0 <= whole <= _INT64_MAX",
      "limit 0 is accepted"),
    M("store.readonly-ignored", HANDLE,
      "if self.readonly:\n            shown = show_path(self.path)",
      "if False:\n            shown = show_path(self.path)",
      "a read-only store writes",
      tests=(VALIDATION + "::test_read_only_store_refuses_every_write",)),
    M("store.forget-empty-ref", WRITES,
      'if ref == "":', "if False:",
      "forget with a blank source_ref retracts every row with an empty ref"),
    M("store.revise-superseded-allowed", BELIEFS,
      "if fact.superseded_by is not None:\n        head",
      "if False:\n        head",
      "revising an already superseded fact forks the chain"),
    M("store.downgrade-of-retracted-allowed", BELIEFS,
      "if fact.retracted_at is not None and belief_only:", "if False:",
      "a downgrade or a still-true of a retracted fact makes it current again",
      tests=(BELIEFS_TESTS,)),
    M("store.write-now-clock-only", WRITES,
      "return newest if isinstance(newest, str) and newest > clock_now else clock_now",
      "return clock_now",
      "a write with a clock behind the file's newest tx_at is learned before what it revises",
      tests=(BELIEFS_TESTS,)),
    M("store.revise-future-valid-from", WRITES,
      "if vf > tx_at:", "if False:",
      "revise accepts a valid_from in the future"),
    M("store.revise-backdate-rule", WRITES,
      "if old.valid_from < old.tx_at and vf < old.valid_from:",
      "if vf < old.valid_from:",
      "the backdate rule applies to every old fact, not only backdated ones"),
    # --- store/: the staleness writer ---------------------------------------------------
    M("store.writer-ignores-live-only", WRITER,
      "if live is None:\n                continue", "if False:\n                continue",
      "live_only does not re-check liveness inside the write lock (a revised row is reported "
      "as written)", tests=(RUNNER_TESTS,)),
    M("store.writer-backfill-pinned", WRITER,
      "elif r[4] is not None and not live:", "elif False:",
      "a backfill whose row someone else pinned mid-pass is reported as written",
      tests=(RUNNER_TESTS,)),
    M("store.writer-unknown-id-silent", WRITER,
      'raise NotFound(f"no fact #{r[3]}")', "pass",
      "set_staleness on an unknown id succeeds silently"),
    M("store.writer-any-freshness", WRITER,
      "            if freshness not in FRESHNESS_VALUES:\n                raise InvalidInput(\n",
      "            if False:\n                raise InvalidInput(\n",
      "the writer stores any freshness word"),
    # --- store/: whole-table scans split across cores (split_scan.py) ---------------------
    M("store.split-range-overlap", SQL,
      'IN_RANGE = "f.id > :lo AND f.id <= :hi"', 'IN_RANGE = "f.id >= :lo AND f.id <= :hi"',
      "a row on a range boundary is counted by both ranges", tests=(SPLIT_TESTS,)),
    M("store.split-last-range-closed", SPLIT,
      "edges[i + 1] if i + 1 < parts else LAST_ID", "edges[i + 1] if i + 1 < parts else top_id",
      "rows appended after the split was planned are left out", tests=(SPLIT_TESTS,)),
    M("store.split-recall-first-range-only", RECALL,
      "for part in parts for (i,) in part", "for part in parts[:1] for (i,) in part",
      "a split recall ranks only the first range's best rows", tests=(SPLIT_TESTS,)),
    M("store.split-flagged-out-of-order", BROWSE,
      "for part in parts for r in part][:keep]", "for part in reversed(parts) for r in part][:keep]",
      "the flagged list's ranges are joined out of id order", tests=(SPLIT_TESTS,)),
    M("store.split-worker-never-interrupted", SPLIT,
      "if interrupted is not None and interrupted():", "if False:",
      "a cancelled search leaves the worker's range running", tests=(SPLIT_TESTS,)),
    M("store.writer-repeated-id-first-wins", WRITER,
      "plain[r[3]] = r", "plain.setdefault(r[3], r)",
      "a batch that judges one id twice keeps the first verdict, not the last"),
    M("store.sql-live-guard-backfill", SQL,
      "\n  AND (v.source_commit IS NULL OR facts.source_commit IS NULL)", "",
      "a backfill overwrites a pin someone else set mid-pass", tests=(RUNNER_TESTS,),
      survives="defence in depth: the writer reads which rows are still unpinned inside the "
      "same write lock and drops a pinned one before the UPDATE (store.writer-backfill-pinned "
      "is the mutation that check kills)"),
    M("store.sql-live-guard-verdicts", SQL,
      "WHERE facts.id = v.id AND facts.retracted_at IS NULL AND facts.superseded_by IS NULL\"\"\"",
      "WHERE facts.id = v.id\"\"\"",
      "the batched verdict UPDATE writes onto rows no longer live", tests=(RUNNER_TESTS,),
      survives="defence in depth: the writer reads which rows are live inside the same write "
      "lock and drops the others before the UPDATE (store.writer-ignores-live-only kills that)"),
    M("store.sql-path-not-coalesced", SQL,
      "source_path = COALESCE(:source_path, source_path)", "source_path = :source_path",
      "a verdict without a path erases the stored path"),
    M("store.sql-targets-paging", SQL,
      "superseded_by IS NULL\n  AND id > :after_id", "superseded_by IS NULL\n  AND id >= :after_id",
      "keyset paging of targets repeats the last row of each page", tests=(RUNNER_TESTS,)),
    M("store.sql-targets-retracted", SQL,
      "WHERE source_commit IS NOT NULL AND retracted_at IS NULL AND",
      "WHERE source_commit IS NOT NULL AND",
      "retracted rows are judged"),
    M("store.sql-backfill-empty-ref", SQL,
      "AND source_ref != '' AND", "AND",
      "rows with an empty source_ref are backfill candidates"),
    # --- store/: the belief and diff rules ---------------------------------------------
    M("store.sql-current-valid-from", SQL,
      'return (f"{f}valid_from <= {t} AND', 'return (f"{f}valid_from < {t} AND',
      "a fact valid from exactly now is not believed", tests=(AS_OF_TESTS,)),
    M("store.sql-as-of-valid-to", SQL,
      "({f}valid_to IS NULL OR {f}valid_to > {t})", "({f}valid_to IS NULL OR {f}valid_to >= {t})",
      "as_of at the exact end of validity still believes the old fact", tests=(AS_OF_TESTS,)),
    M("store.sql-diff-learned-boundary", SQL,
      "WHERE f.tx_at >= :since", "WHERE f.tx_at > :since",
      "diff misses a fact learned exactly at since", tests=(VALIDATION,)),
    M("store.sql-stale-weight-swapped", SQL,
      "WHEN 'stale'      THEN :stale_weight", "WHEN 'stale'      THEN :unresolved_weight",
      "stale facts are ranked with the unresolved weight", tests=(RECALL_TESTS,)),
    M("store.sql-bare-limit", SQL,
      'return f":{param} + 0"', 'return f":{param}"',
      "LIMIT is a bare parameter again: SQLite re-prepares the statement on every call",
      tests=("tests/store/test_sql_limits.py",)),
    M("store.driver-memory-statistics-on", DRIVER,
      "MEMORY_STATISTICS_OFF = _without_memory_statistics(sqlite3)",
      "MEMORY_STATISTICS_OFF = False",
      "pysqlite3's SQLite keeps its memory statistics (a global mutex per allocation)",
      tests=("tests/store/test_driver.py",)),
    M("store.driver-reconfigures-in-use", DRIVER,
      "if lib.sqlite3_memory_used() != 0:", "if False:",
      "SQLite is shut down and reconfigured while a connection is open",
      tests=("tests/store/test_driver.py",)),
    M("store.sql-retract-twice", SQL,
      "WHERE id = :id AND retracted_at IS NULL RETURNING id", "WHERE id = :id RETURNING id",
      "forgetting a retracted fact moves its retracted_at"),
    M("store.js-trim-python-strip", TIMEUTIL,
      "return value.strip(_JS_WHITESPACE)", "return value.strip()",
      "trimming uses Python's whitespace set, not JavaScript's"),
    M("store.iso-offset-hours", TIMEUTIL,
      "if oh > 23 or om > 59:", "if oh > 24 or om > 59:",
      "a +24:00 offset passes the range check",
      survives="equivalent: datetime.timezone itself refuses an offset of 24 h or more, "
      "and that ValueError becomes the same InvalidInput"),
    M("store.iso-offset-minutes", TIMEUTIL,
      "if oh > 23 or om > 59:", "if oh > 23 or om > 60:",
      "a +05:60 offset is read as +06:00", tests=(VALIDATION,)),
    M("store.iso-millis-padding", TIMEUTIL,
      '[:3].ljust(3, "0")', '[:3].rjust(3, "0")',
      "'.5' seconds is read as 5 ms instead of 500 ms"),
    # --- staleness/: the pass -------------------------------------------------------------
    M("runner.live-only-off", RUNNER,
      "live_only=True,  # the guard", "live_only=False,  # the guard",
      "a row revised between the pre-check and the write still gets the verdict", tests=(RUNNER_TESTS,)),
    M("runner.skipped-counted", RUNNER,
      "verdicts = self._stop_if(self._write, store, verdicts)",
      "self._stop_if(self._write, store, verdicts)",
      "a batch's event lists the verdicts of rows skipped mid-pass (never written)",
      tests=(RUNNER_TESTS, "tests/staleness/test_runner_edges.py")),
    M("runner.stale-ids-dropped", RUNNER,
      "stale_ids.append(v[0])", "pass",
      "the report lists no stale ids", tests=(RUNNER_TESTS,)),
    M("runner.path-only-not-backfilled", RUNNER,
      "if v[8]:  # backfilled\n", "if v[8] and not v[9]:  # backfilled, not path-only\n",
      "a path-only backfill is not counted (the reference bin counts it)"),
    M("runner.cancel-ignored", RUNNER,
      "if self._cancel.is_set():", "if False:",
      "cancel does not stop the pass"),
    M("runner.downgrade-twice", RUNNER,
      "if old.source_agent in DOWNGRADE_AGENTS or not old.is_live:", "if not old.is_live:",
      "a downgrade pass halves its own rows again"),
    M("runner.downgrade-no-factor", RUNNER,
      "                self.factor,\n", "                1.0,\n",
      "a downgrade pass keeps the confidence (it does not hand its factor to the store)",
      tests=(RUNNER_TESTS,)),
    M("store.downgrade-no-factor", WRITES,
      "confidence=check_confidence(cur.confidence * factor)",
      "confidence=check_confidence(cur.confidence)",
      "Store.downgrade keeps the confidence",
      tests=("tests/store/test_downgrade_and_bounds.py",)),
    M("runner.downgrade-unresolved", RUNNER,
      "if v.freshness == STALE:\n                    self._downgrade",
      "if v.freshness != CURRENT:\n                    self._downgrade",
      "unresolved facts are downgraded too"),
    M("runner.path-only-writes-commit", RUNNER,
      "None if v.path_only else v.commit, v.path)",
      "v.commit, v.path)",
      "a path-only backfill passes a commit, so the live guard refuses it"),
    M("runner.work-list-page-stop", WORK,
      "if len(page) < _PAGE:\n            break\n        after = page[-1].id\n    after = 0",
      "if len(page) <= _PAGE:\n            break\n        after = page[-1].id\n    after = 0",
      "the work list stops after its first page of targets", tests=(RUNNER_TESTS,)),
    M("runner.work-list-page-skip", WORK,
      "        after = page[-1].id\n    after = 0",
      "        after = page[-1].id + 1\n    after = 0",
      "the work list skips the first row of every later page", tests=(RUNNER_TESTS,)),
    M("runner.backfill-path-precedence", WORK,
      "return own or pin.path", "return pin.path or own",
      "source_ref's path wins over the row's own source_path", tests=("tests/staleness/test_backfill_path.py",)),
    M("runner.ref-path-exact-sha", WORK,
      "if pin.commit.startswith(stored) or stored.startswith(pin.commit):",
      "if pin.commit == stored:",
      "an abbreviated pin does not take its path from a full-SHA source_ref"),
    # --- staleness/: the verdict table and pins --------------------------------------------
    M("verdicts.head-with-path", VERDICTS,
      "    if path is None:\n        if is_head:", "    if is_head or path is None:\n        if is_head:",
      "a pin at HEAD with a missing path is current"),
    M("verdicts.unchanged-flipped", VERDICTS,
      "if at_pin == at_head:", "if at_pin != at_head:",
      "changed and unchanged paths swap verdicts"),
    M("verdicts.deleted-unresolved", VERDICTS,
      'return STALE, f"{shown} was deleted since {sha}"',
      'return UNRESOLVED, f"{shown} was deleted since {sha}"',
      "a deleted path is unresolved instead of stale"),
    M("verdicts.moved-current", VERDICTS,
      'return STALE, f"HEAD has moved past {sha}"', 'return CURRENT, f"HEAD has moved past {sha}"',
      "a whole-repo pin behind HEAD is current"),
    M("verdicts.error-ignored", VERDICTS,
      "if f.error:\n        return UNRESOLVED, f.error", "if False:\n        return UNRESOLVED, f.error",
      "a git error is classified as if git had answered"),
    M("verdicts.shallow-ignored", VERDICTS,
      "    if f.resolution == \"unknown\" or f.commit is None:\n        if f.shallow:",
      "    if f.resolution == \"unknown\" or f.commit is None:\n        if False:",
      "an unknown pin in a shallow clone does not say history is missing"),
    M("verdicts.choose-any-commit", VERDICTS,
      'if f.resolution == "commit" and (f.is_head or f.is_ancestor) and not f.error:',
      'if f.resolution == "commit" and not f.error:',
      "with several repos, one where the pin is on another branch wins"),
    M("verdicts.rank-swapped", VERDICTS,
      '"ambiguous": 1, "not_commit": 2', '"ambiguous": 2, "not_commit": 1',
      "not-a-commit is preferred over ambiguous", tests=("tests/staleness/test_verdicts.py",)),
    M("verdicts.many-reason", VERDICTS,
      'if len(candidates) > 1 and chosen.resolution == "unknown":',
      'if len(candidates) > 2 and chosen.resolution == "unknown":',
      "with two repos the reason does not say no repo knew the pin"),
    M("pins.hex-run-six", PINS,
      "[{_HEX}]{{7,40}}(?![{_HEX}])\")", "[{_HEX}]{{6,40}}(?![{_HEX}])\")",
      "a 6-digit hex run is taken as a pin"),
    M("pins.two-shas-pick-one", PINS,
      "if len(runs) != 1:", "if len(runs) < 1:",
      "a ref naming two different SHAs is pinned to one of them"),
    M("pins.mixed-or", PINS,
      "any(c.isdigit() for c in run) and any(", "any(c.isdigit() for c in run) or any(",
      "an all-digit run (a date, an issue number) is a pin"),
    M("pins.dot-allowed", PINS,
      'if "/" in source_ref or "." in source_ref:', 'if "/" in source_ref:',
      "a file name with a hex run is a whole-repo pin"),
    M("pins.climb-out-ignored", PINS,
      'if not parts:\n                return ""', "if not parts:\n                continue",
      "'../x' is read as 'x' instead of a path outside the repo"),
    M("pins.line-suffix-kept", PINS,
      'normalize_path(_LINE_SUFFIX.sub("", m.group(2) or ""))',
      'normalize_path(m.group(2) or "")',
      "a #L10 anchor stays in the parsed path"),
    M("git.ancestors-ignored", GIT,
      "is_ancestor = is_head or cid in self.ancestors", "is_ancestor = is_head",
      "every pin behind HEAD is on 'another branch'"),
    M("git.folder-flag", GIT,
      "folder = bool((e_pin and e_pin[1]) or (e_head and e_head[1]))", "folder = False",
      "a folder pin is shown without its trailing /"),
    M("git.drift-any-parent", GIT,
      "elif all(self.entry(p, norm) != mine for p in parents):",
      "elif any(self.entry(p, norm) != mine for p in parents):",
      "a merge counts as touching the path when one side did"),
    M("git.patch-prefix", GIT,
      'n == path or n.startswith(path + "/")', "n.startswith(path)",
      "the diff of src/a also shows src/ab.py", tests=("tests/staleness/test_git.py",)),
    # --- issue #25: the contract where it could still break ---------------------------------
    M("store.recall-cap-is-limit", RECALL,
      '"cap": max(limit, r.candidate_cap)', '"cap": limit',
      "FTS candidates are cut to `limit` before confidence and decay re-rank them",
      tests=(RECALL_TESTS,)),
    M("store.recall-freshness-ignored", RECALL,
      "            filters.append(sql.FRESHNESS_FILTER)\n", "",
      "recall(freshness='stale') returns every verdict", tests=(RECALL_TESTS,)),
    M("store.recall-unchecked-ignored", RECALL,
      "            filters.append(sql.UNCHECKED_FILTER)\n", "            pass\n",
      "recall(freshness='unchecked') returns checked facts too", tests=(RECALL_TESTS,)),
    M("store.as-of-retracted-inclusive", SQL,
      "({f}retracted_at IS NULL OR {f}retracted_at > {t})",
      "({f}retracted_at IS NULL OR {f}retracted_at >= {t})",
      "a fact retracted exactly at T is still believed at T", tests=(AS_OF_TESTS,)),
    M("store.as-of-known-by-valid-from", SQL,
      'return f"{f}tx_at <= {t}"', 'return f"{f}valid_from <= {t}"',
      "a time-travel view's rows are those valid by T, not those learned by T",
      tests=(AS_OF_TESTS,)),
    M("store.browse-own-as-of-valid-to", BROWSE,
      "return _rule(sql.as_of_rule, t), t",
      "F = self.Fact\n        return ((F.tx_at <= t) & (F.valid_from <= t)"
      " & (F.valid_to.is_null() | (F.valid_to >= t))"
      " & (F.retracted_at.is_null() | (F.retracted_at > t))), t",
      "list_facts and subjects keep their own copy of the as-of rule, with valid_to >= T",
      tests=(AS_OF_TESTS,)),
    M("store.browse-own-as-of-retracted", BROWSE,
      "return _rule(sql.as_of_rule, t), t",
      "F = self.Fact\n        return ((F.tx_at <= t) & (F.valid_from <= t)"
      " & (F.valid_to.is_null() | (F.valid_to > t))"
      " & (F.retracted_at.is_null() | (F.retracted_at >= t))), t",
      "list_facts and subjects keep their own copy of the as-of rule, with retracted_at >= T",
      tests=(AS_OF_TESTS,)),
    M("store.browse-subjects-scope-valid-from", BROWSE,
      "scope = _rule(sql.known_rule, t)", "scope = F.valid_from <= t",
      "subjects(as_of) counts the rows valid by T, not those learned by T",
      tests=(AS_OF_TESTS,)),
    M("store.m002-no-rebuild", "memharness_tui/store/schema.py",
      """    *_FTS_TRIGGERS,\n    "INSERT INTO facts_fts(facts_fts) VALUES ('rebuild')",\n""",
      "    *_FTS_TRIGGERS,\n",
      "migrating a v1 store leaves the new FTS index empty: its rows are found only by LIKE",
      tests=("tests/store/test_old_schemas.py",)),
    M("store.downgrade-default-factor", WRITES,
      "        factor: float = 0.5,\n        *,\n        source_agent: str,",
      "        factor: float = 1.0,\n        *,\n        source_agent: str,",
      "Store.downgrade without a factor keeps the confidence", tests=(CLI_CONTRACT_TESTS,)),
    M("store.sql-decay-ignores-access", SQL,
      "julianday(COALESCE(f.last_accessed_at, f.tx_at))", "julianday(f.tx_at)",
      "a recalled (reinforced) fact still decays from when it was learned", tests=(RECALL_TESTS,)),
    M("runner.downgrade-default-factor", RUNNER,
      "        factor: float = 0.5,\n", "        factor: float = 1.0,\n",
      "a downgrade pass without a factor keeps the confidence", tests=(CLI_CONTRACT_TESTS,)),
    M("runner.report-no-skipped", RUNNER,
      '            "skipped": list(self.skipped),\n', "",
      "staleness --json loses its skipped list", tests=(CLI_CONTRACT_TESTS,)),
    M("verdicts.json-no-path-only", VERDICTS,
      '            "backfilled_path_only": self.path_only,\n', "",
      "a verdict's JSON loses the path-only backfill flag", tests=(CLI_CONTRACT_TESTS,)),
    M("triage.insertion-counts", "memharness_tui/staleness/triage.py",
      'counts = changed and (ln.origin == "-" or removal)', "counts = changed",
      "a hunk that only inserts a line naming the fact is triaged as touching it",
      tests=("tests/staleness/test_triage_edges.py",)),
    M("triage.rename-threshold", "memharness_tui/staleness/git_changes.py",
      "threshold: int = 50", "threshold: int = 65",
      "a file renamed with ~60 % of its lines kept is 'deleted', not 'moved'",
      tests=("tests/staleness/test_triage_edges.py",)),
    M("cli.staleness-default-factor", STALENESS_CLI,
      "    if raw is None:\n        return 0.5", "    if raw is None:\n        return 1.0",
      "staleness --downgrade without --factor keeps the confidence", tests=(CLI_CONTRACT_TESTS,)),
    M("cli.fail-on-stale-unresolved", STALENESS_CLI,
      "if args.fail_on_stale and report.stale:", "if args.fail_on_stale and report.unresolved:",
      "--fail-on-stale reacts to unresolved facts, not stale ones", tests=(CLI_CONTRACT_TESTS,)),
    M("cli.fail-on-stale-checked", STALENESS_CLI,
      "if args.fail_on_stale and report.stale:", "if args.fail_on_stale and report.checked:",
      "--fail-on-stale fails whenever anything was checked", tests=(CLI_CONTRACT_TESTS,)),
    M("cli.recall-json-no-fallback", "memharness_tui/cli.py",
      '        "used_fallback": r.used_fallback,\n', "",
      "recall --json loses used_fallback", tests=("tests/test_cli_json_contract.py",)),
    M("tui.flagged-lookup-unsorted", "memharness_tui/tui/widgets/staleness/flagged.py",
      "        return self.shown[table.cursor_row]\n", "        return self.flagged[table.cursor_row]\n",
      "under a filter or sort, mark / open / revise / retract act on the loaded list's row, "
      "not the highlighted one", tests=("tests/tui_staleness/test_flagged_cursor.py",)),
    M("tui.flagged-frozen-mid-pass", "memharness_tui/tui/widgets/dashboard.py",
      "        self.panel.follower.invalidate(judge_all=not self.running)\n",
      "        if not self.running:\n            self.panel.follower.invalidate(judge_all=True)\n",
      "during a pass the flagged list keeps the store before it while the header counts the "
      "batches written", tests=("tests/tui_staleness/test_counts_agree.py",)),
    M("tui.poll-coroutine-eager", "memharness_tui/tui/app.py",
      'self.run_worker(self._poll_once, group="data_version"',
      'self.run_worker(self._poll_once(), group="data_version"',
      "a poll cancelled before it runs (at exit) leaves a coroutine never awaited",
      tests=("tests/tui/test_poll_shutdown.py",)),
    # --- tui/render.py -----------------------------------------------------------------
    M("render.bidi-isolates", RENDER,
      "\\u2066-\\u2069", "",
      "bidi isolates (U+2066-2069) reach the terminal", tests=("tests/tui/test_render_clean.py",)),
    M("render.bidi-embeddings", RENDER,
      "\\u202a-\\u202e", "",
      "bidi embeddings and overrides reach the terminal"),
    M("render.marks", RENDER,
      "\\u200e\\u200f\\u061c", "",
      "LRM, RLM and ALM reach the terminal"),
    M("render.c1-controls", RENDER,
      "\\x7f-\\x9f", "\\x7f",
      "C1 controls (e.g. CSI U+009B) reach the terminal"),
    M("render.truncate-length", RENDER,
      'text[: max_len - 1] + "…"', 'text[:max_len] + "…"',
      "a truncated cell is one character too long"),
    M("render.truncate-boundary", RENDER,
      "if max_len is not None and len(text) > max_len:",
      "if max_len is not None and len(text) >= max_len:",
      "a value that exactly fits is truncated"),
    M("render.single-line", RENDER,
      '_WS_RUN.sub(" ", text) if single_line else', "text if single_line else",
      "a single-line cell shows newlines as control pictures"),
    M("render.age-boundary", RENDER,
      "if seconds >= size:", "if seconds > size:",
      "exactly one day ago reads as 24 hours ago"),
    M("render.believed-valid-to", RENDER,
      "(valid_to is None or valid_to > as_of)", "(valid_to is None or valid_to >= as_of)",
      "a row is still believed at the instant its validity ends"),
    # --- issue #9 round 5: tab switches, opening a fact, the collector ---------------------
    M("tui.results-forget-on-resize", "memharness_tui/tui/widgets/results_table.py",
      'the Recall tab is shown again a Resize comes, at the size the table had.)"""\n',
      'the Recall tab is shown again a Resize comes, at the size the table had.)"""\n'
      "        self._cache.clear()\n",
      "showing the Recall tab again draws every result row again",
      tests=("tests/tui/test_tab_switch_paint.py",)),
    M("tui.look-style-per-line", "memharness_tui/tui/perf/look_table.py",
      "        self._drawing_style = self.rich_style\n", "        self._drawing_style = None\n",
      "a look table resolves its style on every line it draws",
      tests=("tests/tui/test_tab_switch_paint.py",)),
    M("tui.focus-repaints-screen", "memharness_tui/tui/perf/frames.py",
      "Reactive(None, repaint=False)", "Reactive(None)",
      "a focus change repaints the whole screen", tests=("tests/tui/test_tab_switch_paint.py",)),
    M("tui.focus-look-late", "memharness_tui/tui/screens/main.py",
      "                widget.has_focus = True\n", "",
      "a switch paints the table unfocused before its focused look",
      tests=("tests/tui/test_tab_switch_paint.py",)),
    M("tui.scrollbars-every-layout", "memharness_tui/tui/perf/scrolling.py",
      "            return False  # what Textual would answer", "            pass  # what Textual would answer",
      "every layout that includes a table redraws its scrollbars",
      tests=("tests/tui/test_tab_switch_paint.py",)),
    M("tui.footer-bar-repaints", "memharness_tui/tui/perf/footer.py",
      "            bar._repaint_required = bar._repaint_required and repaint\n", "",
      "the footer repaints for a scrollbar of no size",
      tests=("tests/tui/test_tab_switch_paint.py",)),
    M("tui.detail-built-each-open", "memharness_tui/tui/services/details.py",
      "        elif not app.is_screen_installed(DETAIL_SCREEN):  # built once, kept while closed\n"
      "            app.install_screen(FactDetailScreen(fact_id), DETAIL_SCREEN)\n"
      "            app.push_screen(DETAIL_SCREEN)\n",
      "        elif True:\n            app.push_screen(FactDetailScreen(fact_id))\n",
      "every open builds a new detail screen", tests=("tests/tui/test_detail_open.py",)),
    M("tui.detail-not-built-ahead", "memharness_tui/tui/screens/main.py",
      "        self.mapp.details.build_ahead()\n", "",
      "the first open of a session builds the detail screen",
      tests=("tests/tui/test_detail_open.py",)),
    M("tui.detail-shows-last-fact", "memharness_tui/tui/screens/detail.py",
      "        if not self._early.done():  # the DB thread is slow",
      "        if False:  # the DB thread is slow",
      "a slow read shows the last fact's text under the new one's title",
      tests=("tests/tui/test_detail_open.py",)),
    M("tui.detail-keeps-scroll", "memharness_tui/tui/screens/detail.py",
      "            box.scroll_home(animate=False, immediate=True)\n", "            pass\n",
      "a fact opened again starts where the last one was scrolled to",
      tests=("tests/tui/test_detail_open.py",)),
    M("tui.gc-full-while-typing", "memharness_tui/tui/services/idle_gc.py",
      ">= gc_policy.IDLE_SECONDS:", ">= 0:",
      "full collections run while input is still coming",
      tests=("tests/tui/test_gc_policy.py",)),
    M("tui.gc-threshold-kept", "memharness_tui/tui/gc_policy.py",
      "gc.set_threshold(young, middle, SAFETY_FULL_AFTER)", "pass",
      "Python still runs full collections in the middle of a frame",
      tests=("tests/tui/test_gc_policy.py",)),
    M("tui.gc-collects-early", "memharness_tui/tui/gc_policy.py",
      "gc.get_count()[2] < FULL_AFTER", "gc.get_count()[2] < 0",
      "an idle moment runs a full collection even when none is due",
      tests=("tests/tui/test_gc_policy.py",)),
    # --- issue #13 rows outside the three packages ------------------------------------------
    M("app.demo-opens-default", "memharness_tui/tui/app.py",
      "db_path = str(db)\n", "db_path = db_path\n",
      "--demo builds the demo store but opens the default one",
      tests=("tests/tui/test_parts.py::test_run_app_demo_opens_the_demo_db",)),
    M("cli.db-before-subcommand-reset", "memharness_tui/cli.py",
      '"--db", metavar="PATH", default=argparse.SUPPRESS,',
      '"--db", metavar="PATH", default=None,',
      "a --db before the subcommand is reset, so the write goes to the default store",
      tests=("tests/test_cli.py::test_db_before_the_subcommand_is_honoured",)),
    # --- round 7: this round's new code (issues #21, #22, #26) --------------------------------
    M("store.wal-overflow-ignored", WAL_PAGES,
      "    if other and not other <= (free_pages(files, head) or set()):\n",
      "    if False:\n",
      "a WAL frame holding an overflow page (a row's tail, no rowid) is ignored: a changed row "
      "may be missed", tests=(LEDGER_TESTS,)),
    M("store.wal-page1-header", WAL_PAGES,
      "start = 100 if page_no == 1 else 0", "start = 0",
      "page 1's b-tree header is read at offset 0 (inside the file header): every commit that "
      "grows the file reads every row", tests=(LEDGER_TESTS,)),
    M("store.wal-salts-unchecked", WAL_PAGES,
      "    if head.salts == mark.salts:\n        if head.frames < mark.frames:",
      "    if True:\n        if head.frames < mark.frames:",
      "a restarted log (new salts) is read from the old mark's frame on",
      tests=(LEDGER_TESTS, LEDGER_R7, LEDGER_R8)),
    M("store.wal-shorter-log-unchecked", WAL_PAGES,
      "        if head.frames < mark.frames:\n            return None\n        older",
      "        if False:\n            return None\n        older",
      "a log shorter than the mark is read as if it had grown",
      tests=(LEDGER_TESTS, LEDGER_R7, LEDGER_R8),
      survives="equivalent: the last committed frame (mxFrame) goes back only when the log "
               "restarts, and a restart always draws new salts, which the same line checks"),
    M("store.wal-lost-commit-unchecked", WAL_PAGES,
      "    if _commits(frames) != (head.commits - mark.commits) % (1 << 32):",
      "    if False:",
      "a commit the restarted log wrote over (in no frame read) is never noticed",
      tests=(LEDGER_R8, LEDGER_TESTS)),
    M("store.wal-old-log-skipped", WAL_PAGES,
      "        older = _rest_of_log(files, mark)\n",
      "        older = []\n",
      "after a restart, the commits left in the old log after the mark are not read",
      tests=(LEDGER_R8, LEDGER_TESTS)),
    M("store.places-header-read-first", "memharness_tui/store/places.py",
      "    return (  # the header read last: see is_wal_file\n        not os.path.exists(path + \"-wal\")",
      "    return (\n        is_wal_file(path)\n        and not os.path.exists(path + \"-wal\")",
      "a read-only open beside an open store opens and closes the file first, dropping this "
      "process's locks: another process's close then deletes the -wal and -shm in use",
      tests=("tests/store/test_wal_places.py",)),
    M("cli.launch-db-unchecked", "memharness_tui/launch.py",
      "        check_db(db)\n        return open_app(db, readonly)",
      "        return open_app(db, readonly)",
      "the app's front door opens a --db that is a folder, a FIFO or in a missing folder",
      tests=("tests/test_launch.py",)),
    M("cli.launch-abbreviation-taken", "memharness_tui/launch.py",
      "        elif arg.startswith(\"--db=\"):",
      "        elif arg.startswith(\"--d\"):",
      "the front door reads an unknown flag as --db instead of leaving it to the full parser",
      tests=("tests/test_launch.py",)),
    M("tui.screen-sheets-late", "memharness_tui/tui/app.py",
      "        self.css_path = [*self.css_path, *tcss.screen_sheets()]",
      "        self.css_path = list(self.css_path)",
      "a screen's first push re-parses the app's CSS and re-styles every widget",
      tests=("tests/tui/test_screen_sheets.py",)),
    M("tui.start-theme-variables", "memharness_tui/tui/perf/theme.py",
      "    app.stylesheet.set_variables(app.get_css_variables())",
      "    pass",
      "the saved theme's classes are set but the CSS is parsed with the default theme's colours",
      tests=("tests/tui/test_start_theme.py",)),
    M("tui.first-resume-restyled", "memharness_tui/tui/perf/frames.py",
      "            event.refresh_styles = False",
      "            pass",
      "a screen just composed is re-styled whole on its first resume",
      tests=("tests/tui/test_first_resume.py",)),
    M("tui.opening-first-screen-dropped", "memharness_tui/tui/services/opening.py",
      "        return quick.result()",
      "        return None",
      "the opening's first screen on a large store is never shown: the screen waits for the "
      "exact list",
      tests=("tests/tui/test_opening_first_screen.py",)),
    M("tui.opening-first-screen-exact", "memharness_tui/tui/services/opening.py",
      "                or self._revision() != self._sent_at or self._recall is None):",
      "                or self._revision() != self._sent_at):",
      "the opening's first screen is shown after the exact list was taken",
      tests=("tests/tui/test_opening_first_screen.py", "tests/tui/test_early_start.py"),
      survives="equivalent today: the pane asks for the first screen only as it mounts, after "
               "``result`` found no exact list and before its first search takes it"),
    M("store.ledger-no-deletion-check", LEDGER,
      "    if sum(c.rows for c in chunks.values()) != rows:\n",
      "    if False:\n",
      "a deletion no leaf written shows is never noticed: the header counts a deleted fact",
      tests=(LEDGER_TESTS,)),
    M("store.ledger-last-chunk-skipped", LEDGER,
      "if first <= k <= last}", "if first <= k < last}",
      "the chunk holding the largest id (every new fact) is not re-read",
      tests=(LEDGER_TESTS,)),
    M("store.ledger-future-boundary", LEDGER,
      "(until is None or now < until)", "(until is None or now <= until)",
      "at the very instant a future fact becomes true, the ledger still counts it as future",
      tests=(LEDGER_TESTS, LEDGER_R7)),
    M("store.confirm-removes-their-wal", DB,
      "        if not existed[0]:\n", "        if True:\n",
      "a refused open removes an empty -wal that was there before it (someone's)",
      tests=(VALIDATION + "::test_a_damaged_header_that_says_wal_leaves_no_sidecars",)),
    M("store.confirm-keeps-its-shm", DB,
      "        if not existed[1]:  # the file", "        if False:  # the file",
      "a refused open leaves the -shm it created behind its 'nothing was changed'",
      tests=(VALIDATION + "::test_a_damaged_header_that_says_wal_leaves_no_sidecars",)),
    M("tui.first-screen-threshold-swapped", RECALLS,
      "if s.largest_id() > max(above, rows):", "if s.largest_id() < max(above, rows):",
      "the first screen is tried on small stores and never on large ones",
      tests=(FIRST_SCREEN_TESTS,)),
    M("tui.first-screen-exact-not-returned", RECALLS,
      "            if quick.exact:\n                return quick\n", "",
      "an exact first screen (a whole word) is shown as 'not yet exact' and recalled again",
      tests=(FIRST_SCREEN_TESTS,)),
    M("tui.first-screen-on-refresh", "memharness_tui/tui/widgets/recall_answer.py",
      "if refresh or asked.vector is not None", "if asked.vector is not None",
      "a refresh after a write shows a 'not yet exact' first screen before the exact list",
      tests=(FIRST_SCREEN_TESTS, "tests/tui/test_first_screen_edges.py")),
    M("tui.keys-binding-before-typed", "memharness_tui/tui/perf/keys.py",
      "    box.call_later(_in_turn, app, box, event)\n",
      "    await _in_turn(app, box, event)\n",
      "a key a text box does not type runs its binding before the characters typed ahead of it",
      tests=("tests/tui/test_key_order.py",)),
    M("tui.keys-text-area-enter", "memharness_tui/tui/perf/keys.py",
      'event.key == "enter" or box.tab_behavior', "box.tab_behavior",
      "Enter in a text area (a new line) is taken for a binding and waits behind the box's queue",
      tests=("tests/tui/test_key_order.py",)),
    M("tui.footer-help-drops", FOOTER,
      " if kept[i][3] not in KEEP]", "]",
      "a narrow footer may leave out Help, the one key that lists every other",
      tests=("tests/tui/test_footer_fit.py",)),
    M("tui.footer-exact-fit-drops", FOOTER,
      "sum(_width(k, pad) for k in kept) > room:", "sum(_width(k, pad) for k in kept) >= room:",
      "a key that exactly fits the footer is left out", tests=("tests/tui/test_footer_fit.py",)),
    M("tui.session-new-pass-keeps-reasons", "memharness_tui/tui/state.py",
      "            session = replace(session, reasons=MappingProxyType({}))\n",
      "            pass\n",
      "a new pass keeps the last pass's reasons for facts it no longer flags",
      tests=("tests/tui_staleness/test_session_state.py", APP_STATE_R7)),
    M("tui.travel-empty-is-a-time", "memharness_tui/tui/app.py",
      "        self.as_of = when or None\n", "        self.as_of = when\n",
      "travelling to '' (the box emptied) sets as_of to an empty time instead of now",
      tests=(APP_STATE_R7, "tests/tui_staleness/test_session_state.py")),
    M("tui.gone-check-any-path", "memharness_tui/tui/editing.py",
      "if at_head is None or path != at_head.pinned or head is None",
      "if at_head is None or head is None",
      "a rewrite pinned at HEAD to another, existing path is refused because the old one is gone",
      tests=("tests/tui_staleness/test_rewrite_gone_file.py",)),
    M("tui.gone-check-any-commit", "memharness_tui/tui/editing.py",
      " or commit is None \\\n            or not head.startswith(commit):",
      " or commit is None:",
      "a rewrite pinned to an older commit, where the file still exists, is refused too",
      tests=("tests/tui_staleness/test_rewrite_gone_file.py",
             "tests/tui_staleness/test_rewrite_gone_file_edges.py")),
]


# --- running --------------------------------------------------------------------------


@dataclass
class Outcome:
    mutation: Mutation
    status: str  # killed / survived / timeout / error
    seconds: float
    detail: str = ""


def _ignore(folder: str, names: list[str]) -> set[str]:
    skip = {".venv", ".git", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache",
            "node_modules", "build", "dist"}
    return {n for n in names if n in skip or n.endswith(".egg-info")}


def make_copy(dest: Path, tests_ref: str | None) -> None:
    """The project (code, tests, config) in ``dest``; ``tests/`` from ``tests_ref`` if given."""
    for name in ("memharness_tui", "tests", "themes"):  # themes/: the shipped theme files
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, dest / name, ignore=_ignore)
    for name in ("pyproject.toml", "conftest.py", "pytest.ini", "setup.cfg"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, dest / name)
    if tests_ref:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", tests_ref, "tests"],
            check=True, capture_output=True,
        ).stdout
        shutil.rmtree(dest / "tests")
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(dest, filter="data")


def _env(copy: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(copy) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # same-size edits within a second must not reuse a .pyc
    return env


def _expand(copy: Path, selection: Sequence[str]) -> list[str]:
    """Folders as their test files (slow ones last), once each; entries missing here dropped."""
    out: list[str] = []
    for entry in selection:
        path = copy / entry.split("::")[0]
        if path.is_dir():
            out += [f.relative_to(copy).as_posix() for f in sorted(path.rglob("test_*.py"))]
        elif path.exists():
            out.append(entry)
    unique = list(dict.fromkeys(out))
    return sorted(unique, key=lambda t: t in SLOW)


def run_tests(copy: Path, selection: Sequence[str], timeout: float) -> tuple[str, str]:
    """('passed' | 'failed' | 'timeout' | 'error', detail) for one pytest run in the copy."""
    present = _expand(copy, selection)
    if not present:
        return "passed", "no tests selected (none exist here)"
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *present]
    try:
        proc = subprocess.run(cmd, cwd=copy, env=_env(copy), capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", f"no result within {timeout:.0f} s"
    out = proc.stdout + proc.stderr
    failed = [ln for ln in out.splitlines() if ln.startswith(("FAILED ", "ERROR "))]
    if proc.returncode == 0:
        return "passed", ""
    if proc.returncode in (1, 2):  # failures, or an import / collection error
        return "failed", failed[0] if failed else out.strip().splitlines()[-1]
    return "error", f"pytest exit {proc.returncode}: " + " | ".join(out.strip().splitlines()[-3:])


def runs(m: Mutation, aimed_only: bool) -> tuple[tuple[str, ...], ...]:
    """The pytest runs for ``m``: with ``aimed_only``, its aimed tests alone (when it names any)."""
    return (m.tests,) if aimed_only and m.tests else m.selections


def apply_one(copy: Path, m: Mutation, timeout: float, aimed_only: bool = False) -> Outcome:
    path = copy / m.file
    original = path.read_text(encoding="utf-8")
    count = original.count(m.original)
    if count != 1:
        return Outcome(m, "error", 0.0, f"snippet found {count} times in {m.file} (update the list)")
    started = time.perf_counter()
    try:
        path.write_text(original.replace(m.original, m.replacement), encoding="utf-8")
        for sel in runs(m, aimed_only):
            result, detail = run_tests(copy, sel, timeout)
            if result != "passed":
                break
    finally:
        path.write_text(original, encoding="utf-8")
    status = {"passed": "survived", "failed": "killed", "timeout": "killed"}.get(result, "error")
    if result == "timeout":
        detail = "timeout: " + detail
    return Outcome(m, status, time.perf_counter() - started, detail)


def check_snippets(mutations: Sequence[Mutation]) -> list[str]:
    problems = []
    for m in mutations:
        n = (ROOT / m.file).read_text(encoding="utf-8").count(m.original)
        if n != 1:
            problems.append(f"{m.id}: snippet found {n} times in {m.file}")
    return problems


def select(args: argparse.Namespace) -> list[Mutation]:
    chosen = MUTATIONS
    if args.package:
        chosen = [m for m in chosen if m.package in args.package]
    if args.only:
        chosen = [m for m in chosen if any(fnmatch.fnmatchcase(m.id, p) for p in args.only)]
    return chosen


def summarize(outcomes: Sequence[Outcome]) -> int:
    print()
    packages = sorted({o.mutation.package for o in outcomes}, key=list(PACKAGE_TESTS).index)
    for pkg in packages:
        mine = [o for o in outcomes if o.mutation.package == pkg]
        killed = sum(o.status == "killed" for o in mine)
        print(f"{pkg:10} killed {killed}/{len(mine)}  score {100 * killed / len(mine):.0f}%")
    bad = 0
    for o in outcomes:
        if o.status == "survived":
            reason = o.mutation.survives
            if reason:
                print(f"  survived (expected) {o.mutation.id}: {reason}")
            else:
                bad += 1
                print(f"  SURVIVED {o.mutation.id}: {o.mutation.why}")
        elif o.status == "error":
            bad += 1
            print(f"  ERROR {o.mutation.id}: {o.detail}")
        elif o.mutation.survives:
            print(f"  note: {o.mutation.id} is marked 'survives' but was killed; drop the reason")
    killed = sum(o.status == "killed" for o in outcomes)
    print(f"total      killed {killed}/{len(outcomes)}  score {100 * killed / max(1, len(outcomes)):.0f}%")
    return 1 if bad else 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", nargs="+", metavar="ID", help="mutation ids (shell globs allowed)")
    p.add_argument("--package", nargs="+", choices=list(PACKAGE_TESTS), help="only these packages")
    p.add_argument("--list", action="store_true", help="list the mutations and check the snippets")
    p.add_argument("--show", metavar="ID", help="print one mutation's snippet and replacement")
    p.add_argument("--tests-ref", metavar="REF", help="run against tests/ as of this git ref")
    p.add_argument("--timeout", type=float, default=600, help="seconds per mutation (default 600)")
    p.add_argument("--aimed-only", action="store_true",
                   help="run each mutation's aimed tests alone, not its package's after them "
                        "(seconds, not minutes; a survivor here may still die in the package)")
    p.add_argument("--no-baseline", action="store_true",
                   help="skip the unmutated run that proves the selected tests pass first")
    args = p.parse_args(argv)

    if args.show:
        m = next((m for m in MUTATIONS if m.id == args.show), None)
        if m is None:
            p.error(f"no mutation {args.show!r}")
        print(f"{m.id} ({m.file}): {m.why}\n--- original\n{m.original}\n+++ mutated\n{m.replacement}")
        print("tests: " + " then ".join(" ".join(sel) for sel in m.selections))
        return 0
    chosen = select(args)
    if not chosen:
        p.error("no mutation matches")
    if args.list:
        for m in chosen:
            flag = "  (expected to survive)" if m.survives else ""
            print(f"{m.id:38} {m.package:10} {m.why}{flag}")
        problems = check_snippets(chosen)
        for line in problems:
            print("STALE " + line)
        return 1 if problems else 0

    def _stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # a kill (SIGTERM) cleans up like Ctrl+C

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # also when started in background
    with tempfile.TemporaryDirectory(prefix="memharness-mutate-") as tmp:
        copy = Path(tmp)
        make_copy(copy, args.tests_ref)
        if not args.no_baseline:
            for sel in sorted({sel for m in chosen for sel in runs(m, args.aimed_only)}):
                result, detail = run_tests(copy, sel, args.timeout)
                if result != "passed":
                    print(f"baseline failed for {' '.join(sel)}: {detail}", file=sys.stderr)
                    return 2
        outcomes = []
        try:
            for i, m in enumerate(chosen, 1):
                o = apply_one(copy, m, args.timeout, args.aimed_only)
                outcomes.append(o)
                print(f"[{i:2}/{len(chosen)}] {o.status.upper():8} {m.id:38} {o.seconds:5.1f}s  "
                      f"{o.detail}", flush=True)
        except KeyboardInterrupt:
            print("\ninterrupted: the checkout was never modified; partial results below")
        return summarize(outcomes) if outcomes else 130


if __name__ == "__main__":
    sys.exit(main())
