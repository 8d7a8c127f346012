"""Hostile text in ``staleness --format markdown|json`` and ``--watch`` (issue 20, item 9).

Git paths may hold newlines, brackets and URLs; facts and commit messages may hold bidi
overrides and C1 controls. In Markdown such text is never structure or a link; on a terminal
every output follows ``recall``'s rule (controls shown as escapes).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from memharness_tui.staleness import cli as scli
from memharness_tui.staleness.text import md_inline, md_text

from .staleness_helpers import Repo, make_store

EVIL = "a.py\n- [click me](evil.example/x) <b>#</b> www.evil.example"
RLO = "\u202e"  # right-to-left override
C1 = "\x85"  # NEL, a C1 control json.dumps(ensure_ascii=False) leaves raw


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Repo, Path, list[int]]:
    repo = Repo.init(tmp_path / "repo")
    pin = repo.commit("pin", {EVIL: "x = 1\n", "b.py": "TOKEN = 1\n"})
    repo.commit(f"evil {RLO}subject", {EVIL: None, "b.py": "TOKEN = 2\n"})
    db = tmp_path / "m.db"
    ids = make_store(db, [
        {"fact": "x is one", "source_commit": pin, "source_path": EVIL},
        {"fact": f"TOKEN is 1 {RLO}gnp.exe{C1} see [here](https://evil.example)",
         "source_commit": pin, "source_path": "b.py"},
    ])
    return repo, db, ids


def _run(argv: list[str]) -> int:
    return scli.main(["staleness", *argv])


def _structure_ok(out: str) -> None:
    allowed = ("### ", "#### ", "_checked", "- **#", "  - ")
    for line in out.splitlines():
        assert line == "" or line.startswith(allowed), line
    # outside code spans, a link needs an unescaped ']' followed by '(', an autolink an
    # unescaped '://', 'www.' or '<'
    out = re.sub(r"(`+).*?\1", "", out)
    assert not re.search(r"(?<!\\)\]\(", out)
    assert not re.search(r"(?<!\\)www\.", out)
    assert not re.search(r"(?<!\\)://", out)
    assert not re.search(r"(?<!\\)<", out)


def test_markdown_paths_and_facts_never_become_structure_or_links(
    hostile: tuple[Repo, Path, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, db, ids = hostile
    assert _run(["--db", str(db), "--repo", str(repo.path), "--check", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    _structure_ok(out)
    assert (f"- **#{ids[0]}** x is one — `a.py\\n- [click me](evil.example/x) <b>#</b> "
            "www.evil.example@") in out
    assert ("a.py\\\\n- \\[click me\\](evil.example/x) \\<b\\>\\#\\</b\\> "
            "www\\.evil.example is gone at HEAD") in out
    assert "see \\[here\\](https\\://evil.example)" in out


def test_markdown_and_json_on_a_terminal_show_bidi_and_c1_as_escapes(
    hostile: tuple[Repo, Path, list[int]], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, db, ids = hostile
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert _run(["--db", str(db), "--repo", str(repo.path), "--check", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert RLO not in out and C1 not in out
    assert "\\u202egnp" in out
    assert _run(["--db", str(db), "--repo", str(repo.path), "--check", "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert RLO not in out and C1 not in out
    data = json.loads(out)  # the same JSON value: only the bytes on screen changed
    fact = next(t for t in data["triage"] if t["id"] == ids[1])
    assert RLO in fact["fact"] and C1 in fact["fact"]


def test_json_piped_is_left_as_is(
    hostile: tuple[Repo, Path, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, db, ids = hostile
    assert _run(["--db", str(db), "--repo", str(repo.path), "--check", "--format", "json"]) == 0
    assert RLO in capsys.readouterr().out


def test_watch_line_on_a_terminal_shows_bidi_as_escapes(
    hostile: tuple[Repo, Path, list[int]], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, db, _ = hostile
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    from memharness_tui.staleness import watch as watch_mod

    def one_change(sources, run_pass, out, **kw):  # type: ignore[no-untyped-def]
        sha = sources[0].read()
        out(watch_mod.change_line([(sha, sources[0].subject(sha))], run_pass()))
        return 1

    monkeypatch.setattr(watch_mod, "watch", one_change)
    assert _run(["--db", str(db), "--repo", str(repo.path), "--check", "--watch"]) == 0
    out = capsys.readouterr().out
    assert RLO not in out
    assert "'evil \\u202esubject'" in out


def test_md_inline_keeps_code_spans_and_escapes_the_rest() -> None:
    assert md_inline("`x` changed on line 1: `a = 1` → `a = 2`") == (
        "`x` changed on line 1: `a = 1` → `a = 2`")
    assert md_inline("moved to [a](b)\n# h") == "moved to \\[a\\](b)\\\\n\\# h"
    assert md_inline("``a`b`` in x") == "``a`b`` in x"
    assert md_text("see www.evil.example or me@evil.example") == (
        "see www\\.evil.example or me\\@evil.example")
