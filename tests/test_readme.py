"""Every command in the README works as written on the demo.

The ``bash`` blocks are extracted line by line. Each headless ``.venv/bin/memharness-tui`` command
runs (through ``cli.main``, what that script calls) on a freshly built demo in a temp folder and
must succeed with output that found something. Commands that open the interactive app or a
server, run the project scripts or the development tools cannot run here: they are listed
below one by one, so a new README command cannot escape the test unnoticed, and each is still
checked as far as it can be (its arguments parse, the files it names exist). The git and
Claude Code hook blocks run too, with ``memharness-tui`` on ``PATH``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from memharness_tui.cli import build_parser, main
from memharness_tui.demo import ensure_demo
from tests.conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
EXE = ".venv/bin/memharness-tui"

# Not run: each opens the terminal app (checked: main() reaches the app with these arguments).
APP = {
    f"{EXE}": {"db_path": None, "readonly": False, "demo": False},
    f"{EXE} --db path/to/memory.db": {"db_path": "path/to/memory.db", "readonly": False,
                                      "demo": False},
    f"{EXE} --db memory.db --readonly": {"db_path": "memory.db", "readonly": True, "demo": False},
    f"{EXE} --demo": {"db_path": None, "readonly": False, "demo": True},
    f"{EXE} --demo --reset": {"db_path": None, "readonly": False, "demo": True},
}
# Not run: a web server that runs until stopped (checked: the arguments parse as shown).
SERVE = {f"{EXE} serve --port 8000 --demo": {"command": "serve", "port": 8000, "demo": True}}
# Not run: the project scripts (they install and launch); checked: executable, app flags parse.
SCRIPTS = {"./scripts/demo", "./scripts/test"}
# Not run: installing, the test suite, benchmarks (checked: every path they name exists).
TOOLS = {
    "python3 -m venv .venv && .venv/bin/pip install -e .",
    ".venv/bin/pytest tests/store -q",
    "MEMHARNESS_PROPERTY_EXAMPLES=10000 .venv/bin/pytest tests/store/test_property.py -q",
    ".venv/bin/python bench/recall_bench.py",
    ".venv/bin/python bench/staleness_bench.py",
    ".venv/bin/python bench/tui_bench.py",
    ".venv/bin/python bench/reference_bench.py --reference path/to/core",
}


def _blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, flags=re.DOTALL | re.MULTILINE)


def _commands() -> dict[str, list[str]]:
    """Each command of the bash blocks (its words joined by spaces → its words), in order.

    Comments are dropped and continuation lines joined.
    """
    commands: dict[str, list[str]] = {}
    for block in _blocks("bash"):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words:
                commands[" ".join(words)] = words
    return commands


def _is_script(command: str) -> bool:
    return command.split()[0] in SCRIPTS


WORDS = _commands()
COMMANDS = list(WORDS)
RUNNABLE = [c for c in COMMANDS if c not in APP and c not in SERVE and c not in TOOLS
            and not _is_script(c)]


def test_the_readme_starts_with_the_demo_and_the_tests() -> None:
    assert COMMANDS[:2] == ["./scripts/demo", "./scripts/test"]


def test_every_command_is_run_or_listed_as_one_that_cannot_be() -> None:
    strays = [c for c in RUNNABLE if not c.startswith(f"{EXE} ")]
    assert strays == [], "a README command that this test neither runs nor lists"
    listed = {*APP, *SERVE, *TOOLS}
    assert listed <= set(COMMANDS), "listed here but gone from the README"
    assert len(RUNNABLE) >= 10


@pytest.fixture(scope="module")
def built_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("demo-cache")
    ensure_demo(cache)
    return cache / "demo"


@pytest.fixture
def demo(built_demo: Path) -> Path:
    """A fresh copy of the demo where ``--demo`` finds it (the per-test cache folder)."""
    target = Path(os.environ["MEMHARNESS_TUI_CACHE_DIR"]) / "demo"
    shutil.copytree(built_demo, target)
    return target


@pytest.mark.parametrize("command", RUNNABLE)
def test_readme_command_works_on_the_demo(
    command: str, demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    code = main(WORDS[command][1:])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "error" not in err and "Traceback" not in err
    assert (out + err).strip(), "printed nothing"
    assert "No matching memories" not in out, "the example finds nothing on the demo"
    assert "Nothing to retract" not in out
    if "--json" in command.split():
        json.loads(out)


@pytest.mark.parametrize("command", sorted(APP))
def test_app_commands_reach_the_app_with_their_arguments(
    command: str, demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import memharness_tui.tui.app as app_mod

    seen: dict[str, object] = {}

    def fake_run_app(db_path: str | None, *, readonly: bool = False, demo: bool = False) -> int:
        seen.update(db_path=db_path, readonly=readonly, demo=demo)
        return 0

    monkeypatch.setattr(app_mod, "run_app", fake_run_app)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "path" / "to").mkdir(parents=True)
    assert main(WORDS[command][1:]) == 0
    assert seen == APP[command]


@pytest.mark.parametrize("command", sorted(SERVE))
def test_serve_commands_parse_as_documented(command: str) -> None:
    args = build_parser().parse_args(WORDS[command][1:])
    assert {key: getattr(args, key) for key in SERVE[command]} == SERVE[command]


def test_script_commands_exist_and_pass_their_flags_to_the_app() -> None:
    scripts = [c for c in COMMANDS if _is_script(c)]
    assert {c.split()[0] for c in scripts} == SCRIPTS
    for command in scripts:
        path = REPO_ROOT / command.split()[0]
        assert path.stat().st_mode & stat.S_IXUSR, f"{path} is not executable"
        extra = WORDS[command][1:]
        if command.startswith("./scripts/demo"):  # it runs: memharness-tui --demo "$@"
            args = build_parser().parse_args(["--demo", *extra])
            assert args.command is None and args.demo
    # the README's own mentions outside the blocks, such as "./scripts/demo --reset"
    for mention in re.findall(r"`(\./scripts/demo [^`]+)`", README):
        args = build_parser().parse_args(["--demo", *shlex.split(mention)[1:]])
        assert args.command is None


def test_tool_commands_name_files_that_exist() -> None:
    for command in TOOLS:
        for word in WORDS[command]:
            if re.fullmatch(r"(tests|bench)/[\w/.]+", word):
                assert (REPO_ROOT / word).exists(), f"{command}: {word} does not exist"


def _memharness_on_path(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH has a ``memharness-tui`` running this checkout's CLI."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "memharness-tui"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m memharness_tui "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["PYTHONPATH"] = str(REPO_ROOT)
    return env


def test_the_git_hook_judges_the_demo_pins_and_never_fails(demo: Path, tmp_path: Path) -> None:
    (hook,) = _blocks("sh")
    env = _memharness_on_path(tmp_path)
    env["MEMHARNESS_DB"] = str(demo / "memory.db")
    done = subprocess.run(["sh", "-c", hook], cwd=demo / "repo", env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0
    assert "checked 8 / current 2 / stale 4 / unresolved 2" in done.stderr
    env["MEMHARNESS_DB"] = str(tmp_path / "no-such-folder" / "x.db")  # a failing run: still 0
    done = subprocess.run(["sh", "-c", hook], cwd=demo / "repo", env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0


def test_the_session_start_hook_reports_drift_on_stdout(demo: Path, tmp_path: Path) -> None:
    (settings,) = _blocks("json")
    (entry,) = json.loads(settings)["hooks"]["SessionStart"]
    (hook,) = entry["hooks"]
    env = _memharness_on_path(tmp_path)
    env.update(MEMHARNESS_DB=str(demo / "memory.db"), CLAUDE_PROJECT_DIR=str(demo / "repo"))
    done = subprocess.run(["sh", "-c", hook["command"]], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=hook["timeout"])
    assert done.returncode == 0
    assert "stale ids: #2, #4, #5, #6" in done.stdout  # 2>&1: the agent sees the summary


def test_the_examples_run_in_order_print_what_the_readme_says(
    demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One fresh demo, every example in README order: the writes print the quoted answers."""
    said = re.search(r"the three writes print (.*?) — the agent's own words", README, re.DOTALL | re.IGNORECASE)
    assert said, "the README no longer quotes what the writes print"
    quoted = re.findall(r"`([^`]+)`", said.group(1))
    monkeypatch.chdir(tmp_path)
    printed: list[str] = []
    outputs: dict[str, str] = {}
    for command in RUNNABLE:
        words = WORDS[command][1:]
        assert main(words) == 0, command
        out = capsys.readouterr().out
        outputs[command] = out
        if {"remember", "revise", "forget"} & set(words) and "--json" not in words:
            printed.append(out.strip())
    assert printed == quoted
    (why,) = [c for c in RUNNABLE if " why " in c]  # "a fact with the version it replaced"
    assert "superseded ←" in outputs[why]
