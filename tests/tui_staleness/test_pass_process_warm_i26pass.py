"""The pass process imports, while it waits for its first request, everything the precheck and
the pass then need: a store's first open loads sqlite-vec's package (numpy with it, ~0.1 s),
which else lands between the start key and the pass's first batch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .conftest import DB, Env

# In a fresh interpreter, as the pass process starts: warm up, then a precheck and a pass on the
# store and repo given; print the modules they imported that the warm-up had not.
PROBE = """
import json, sys
from memharness_tui.staleness import worker
worker.warm_up()
before = set(sys.modules)
from memharness_tui.staleness.git import GitChecker
from memharness_tui.staleness.precheck import coverage_and_work_with
from memharness_tui.staleness.runner import StalenessPass
db, repo = sys.argv[1], sys.argv[2]
checkers = [GitChecker(repo)]
cov, work = coverage_and_work_with(checkers, db)
report = StalenessPass(db, [repo], batch_size=2, work=work, checkers=checkers).run()
print(json.dumps({"new": sorted(set(sys.modules) - before), "checked": report.checked}))
"""


def test_the_warm_pass_process_imports_nothing_for_its_first_precheck_and_pass(
        env: Env) -> None:
    env.store.close()  # the pass writes: nothing of this process holds the file meanwhile
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", PROBE, str(env.root / DB), str(env.shop.path)],
                         capture_output=True, text=True, cwd=root, check=True, timeout=60)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["checked"] == len(env.ids) - 1  # the pass ran (one fact has no pin)
    assert got["new"] == [], " ".join(got["new"])
