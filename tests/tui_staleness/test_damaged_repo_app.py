"""A damaged git object met mid-pass, in the app (issue 20, item 6)."""

from __future__ import annotations

from .conftest import Env, Stepper, ready
from .helpers import git, rows


async def test_the_app_shows_a_damaged_object_met_mid_pass_as_a_repo_error(env: Env) -> None:
    """Issue 20, item 6 in the app: the pins whose tree is damaged keep their verdicts and the
    pass log names the object and the repo."""
    tree = git(env.shop.path, "rev-parse", f"{env.shop.c1}^{{tree}}")
    obj = env.shop.path / ".git" / "objects" / tree[:2] / tree[2:]
    obj.chmod(0o644)
    obj.write_bytes(obj.read_bytes()[:10])  # truncated
    before = rows(env.db)
    async with env.app().run_test(size=(140, 44)) as pilot:
        dash = await ready(pilot)
        Stepper(dash).run()
        await pilot.pause()
        log = "\n".join(str(line.text) for line in dash.query_one("#dash-log").lines)
    assert f"✗ repo error: {env.shop.path.resolve()}: git object {tree} (the tree of " in log
    after = rows(env.db)
    c1_pins = [i for i, r in before.items() if r["source_commit"] == env.shop.c1
               and r["source_path"]]
    assert c1_pins and all(after[i] == before[i] for i in c1_pins)
