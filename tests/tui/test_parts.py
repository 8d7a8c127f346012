"""Unit tests for the app's parts: rendering helpers, themes loader, settings, demo, serve."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from memharness_tui import config
from memharness_tui.paths import default_db_path
from memharness_tui.store import Store
from memharness_tui.tui import serve as serve_mod
from memharness_tui.tui.render import age, clean, safe, short_time
from memharness_tui.tui.themes import (
    load_theme_file,
    load_themes,
    shipped_theme_files,
    theme_from_mapping,
)


def test_clean_makes_controls_visible_and_keeps_text():
    assert clean("a\x1b[31mb") == "a␛[31mb"
    assert clean("bell\x07") == "bell␇"
    assert clean("x\u202ey") == "x<U+202E>y"
    assert clean("del\x7f") == "del␡"
    assert clean("c1\x9b") == "c1<U+009B>"
    assert clean("two\nlines") == "two\nlines"
    assert clean("two\nlines\tx", single_line=True) == "two lines x"
    assert clean("é 🎉 مرحبا") == "é 🎉 مرحبا"
    assert clean("x" * 10, max_len=5) == "xxxx…"
    assert clean(None) == ""


def test_safe_is_never_markup():
    text = safe("[red]x[/] [link=http://e]y[/link]")
    assert text.plain == "[red]x[/] [link=http://e]y[/link]" and not text.spans


def test_time_helpers():
    assert short_time("2026-03-01T10:20:30.000Z") == "2026-03-01 10:20"
    assert short_time(None) == "—"
    now = "2026-03-10T00:00:00.000Z"
    assert age("2026-03-07T00:00:00.000Z", now) == "3 days ago"
    assert age("2026-03-09T23:00:00.000Z", now) == "1 hour ago"
    assert age("2026-03-09T23:59:59.000Z", now) == "just now"
    assert age("2026-03-11T00:00:00.000Z", now) == "in the future"
    assert age(None, now) == "—" and age("garbage", now) == "—"


def test_shipped_themes_load_dark_light_contrast():
    themes, problems = load_themes(shipped_theme_files())
    assert problems == []
    by_name = {t.name: t for t in themes}
    assert set(by_name) >= {"memharness-dark", "memharness-light", "memharness-contrast"}
    assert by_name["memharness-dark"].dark and not by_name["memharness-light"].dark
    assert by_name["memharness-contrast"].background == "#000000"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("name = [", "not valid TOML"),
        ('primary = "#fff"', "missing 'name'"),
        ('name = "x"', "missing 'primary'"),
        ('name = "x"\nprimary = "nope"', "not a colour"),
        ('name = "x"\nprimary = "#fff"\nsparkle = 1', "unknown key"),
        ('name = "x"\nprimary = "#fff"\ndark = "yes"', "'dark' must be"),
        ('name = "x"\nprimary = "#fff"\n[variables]\na = 1', "[variables]"),
    ],
)
def test_broken_theme_files_say_why(tmp_path: Path, content: str, reason: str):
    path = tmp_path / "t.toml"
    path.write_text(content)
    with pytest.raises(ValueError, match=reason.replace("[", r"\[").replace("(", r"\(")):
        load_theme_file(path)


def test_theme_from_mapping_accepts_variables():
    theme = theme_from_mapping({"name": "n", "primary": "#123456",
                                "variables": {"footer-key-foreground": "#ffffff"}}, "x")
    assert theme.variables == {"footer-key-foreground": "#ffffff"}


def test_settings_round_trip_and_garbage(tmp_path: Path):
    folder = tmp_path / "cfg"
    assert config.load_settings(folder) == config.Settings()
    s = config.Settings(theme="memharness-light")
    s.add_recent_repo("/a")
    s.add_recent_repo("/b")
    s.add_recent_repo("/a")
    config.save_settings(s, folder)
    again = config.load_settings(folder)
    assert again.theme == "memharness-light" and again.recent_repos == ["/a", "/b"]
    (folder / "settings.json").write_text("{not json")
    assert config.load_settings(folder) == config.Settings()
    (folder / "settings.json").write_text('{"theme": 3, "recent_repos": "x"}')
    assert config.load_settings(folder) == config.Settings()


def test_config_dir_honours_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MEMHARNESS_TUI_CONFIG_DIR", str(tmp_path / "c"))
    assert config.config_dir() == tmp_path / "c"
    assert config.user_themes_dir() == tmp_path / "c" / "themes"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


def test_demo_builds_deterministically_and_is_reused(tmp_path: Path):
    from memharness_tui.demo import UNKNOWN_SHA, ensure_demo

    db, repo = ensure_demo(tmp_path / "a")
    assert db.exists() and (repo / ".git").exists()
    heads = _git(repo, "rev-list", "HEAD").splitlines()
    assert len(heads) == 3
    db2, repo2 = ensure_demo(tmp_path / "b")
    assert _git(repo2, "rev-list", "HEAD").splitlines() == heads  # same SHAs: deterministic
    mtime = db.stat().st_mtime_ns
    assert ensure_demo(tmp_path / "a") == (db, repo) and db.stat().st_mtime_ns == mtime

    s = Store.open(str(db), readonly=True)
    try:
        facts = s.list_facts(include_history=True, limit=1000)
        assert len({f.subject for f in facts}) >= 6
        assert any(f.superseded_by for f in facts) and any(f.retracted_at for f in facts)
        assert any(f.valid_from < f.tx_at and f.superseded_by is None and
                   f.valid_from[:10] != f.tx_at[:10] for f in facts)  # backdated correction
        chain = [f for f in facts if f.subject == "project" and f.predicate == "status"]
        assert len(chain) == 3
        live_pins = [f for f in facts if f.is_pinned and f.is_live]
        verdicts = {f.freshness for f in live_pins}
        assert {"current", "stale", "unresolved"} <= verdicts
        assert any(f.source_commit == UNKNOWN_SHA for f in live_pins)
        assert all(f.source_commit in {*heads, UNKNOWN_SHA} for f in live_pins)
        assert s.counts().stale >= 1
    finally:
        s.close()


def test_demo_rebuilds_when_version_changes(tmp_path: Path):
    from memharness_tui.demo import MARKER, ensure_demo

    db, _ = ensure_demo(tmp_path)
    (db.parent / MARKER).write_text("old\n")
    db2, repo2 = ensure_demo(tmp_path)
    assert db2 == db and (db.parent / MARKER).read_text().strip() != "old"
    assert not list(tmp_path.glob("demo-build-*"))


def test_serve_runs_our_cli_through_textual_serve(monkeypatch: pytest.MonkeyPatch):
    seen: dict[str, object] = {}

    def fake_serve(self: serve_mod.GuardedServer) -> None:  # textual-serve's Server, not run
        seen.update(command=self.command, host=self.host, port=self.port, title=self.title,
                    served=True)

    monkeypatch.setattr(serve_mod.GuardedServer, "serve", fake_serve)
    serve_mod.serve(8123, ["--db", "/tmp/my db.sqlite", "--readonly"])
    assert seen["host"] == "localhost" and seen["port"] == 8123 and seen["served"]
    command = str(seen["command"])
    assert "-m memharness_tui --db '/tmp/my db.sqlite' --readonly" in command


def test_run_app_demo_opens_the_demo_db(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    import memharness_tui.tui.app as app_mod

    opened: dict[str, object] = {}

    def fake_run(self):  # noqa: ANN001 - the App.run signature
        # open the store the way the app does (its service, on its DB thread) and note which
        # file it is
        async def open_and_close():
            try:
                return (await self.service.open())[0]
            finally:
                self.gateway.close()

        opened["info"] = asyncio.run(open_and_close())
        opened["repos"] = self.staleness_options.repos
        return 0

    monkeypatch.setattr(app_mod.MemharnessApp, "run", fake_run)
    monkeypatch.setenv("MEMHARNESS_TUI_CACHE_DIR", str(tmp_path / "cache"))
    default_db = Path(default_db_path())  # the autouse fixture's temp location
    assert app_mod.run_app(None, demo=True) == 0
    demo_db = tmp_path / "cache" / "demo" / "memory.db"
    assert demo_db.exists()
    info = opened["info"]
    assert Path(info.path) == demo_db and not info.readonly  # type: ignore[attr-defined]
    assert not default_db.exists()
    # the dashboard checks the demo's own repo, not whatever repo the shell is in
    assert opened["repos"] == [str(tmp_path / "cache" / "demo" / "repo")]


def test_believed_at_follows_the_spec_boundaries():
    from types import SimpleNamespace

    from memharness_tui.tui.render import believed_at

    t = "2026-03-01T00:00:00.000Z"
    row = SimpleNamespace(tx_at=t, valid_from=t, valid_to=None, retracted_at=None)
    assert believed_at(row, t)  # tx_at = T and valid_from = T are included
    assert not believed_at(SimpleNamespace(**{**vars(row), "valid_to": t}), t)
    assert not believed_at(SimpleNamespace(**{**vars(row), "retracted_at": t}), t)
    assert not believed_at(row, "2026-02-28T23:59:59.999Z")


def test_an_unexpected_error_ends_with_one_line_and_a_crash_log(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    import memharness_tui.tui.app as app_mod

    monkeypatch.setenv("MEMHARNESS_TUI_CACHE_DIR", str(tmp_path / "cache"))
    app = app_mod.build_app(str(tmp_path / "m.db"), config_dir=tmp_path / "config")
    monkeypatch.setattr(app_mod.MemharnessApp, "is_headless", property(lambda self: False))
    shown: list[str] = []
    monkeypatch.setattr(app, "panic", lambda *r: shown.extend(str(x) for x in r))
    try:
        raise RuntimeError("boom [red]not markup[/]")
    except RuntimeError as exc:
        app._handle_exception(exc)
    assert len(shown) == 1 and "\n" not in shown[0]
    assert shown[0].startswith("memharness-tui stopped on an internal error: RuntimeError: boom")
    assert "[red]not markup[/]" in shown[0]
    log = tmp_path / "cache" / "crash.log"
    assert str(log) in shown[0]
    assert "Traceback" in log.read_text() and "RuntimeError: boom" in log.read_text()
    app.gateway.close()


def test_shipped_themes_live_at_the_top_level_and_in_a_wheels_data_folder():
    import sys

    from memharness_tui.tui.themes import shipped_theme_dirs

    dirs = shipped_theme_dirs()
    top = Path(__file__).resolve().parents[2] / "themes"
    assert dirs[0] == top and sorted(p.name for p in shipped_theme_files()) == sorted(
        p.name for p in top.glob("*.toml"))
    assert Path(sys.prefix) / "share" / "memharness-tui" / "themes" in dirs
