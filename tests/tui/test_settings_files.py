"""Settings and repos files under real conditions (issue #20, item 10): a file the user
broke by hand is kept and never saved over; two processes saving at once never fail."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memharness_tui import config
from memharness_tui.tui.repos import REPOS_FILE, SettingsFileDamaged, save_repos, saved_repos


def test_a_repos_file_with_a_trailing_comma_is_kept_and_not_saved_over(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    save_repos(["/a"], cfg, db=tmp_path / "one.db")
    save_repos(["/b"], cfg, db=tmp_path / "two.db")
    path = cfg / REPOS_FILE
    broken = path.read_text().rstrip().rstrip("}").rstrip() + ",\n}\n"  # a hand-typed comma
    path.write_text(broken)
    with pytest.raises(SettingsFileDamaged) as err:
        save_repos(["/c"], cfg, db=tmp_path / "three.db")
    message = str(err.value)
    assert str(path) in message and "not valid JSON" in message and "fix or remove it" in message
    assert "\n" not in message
    assert path.read_text() == broken  # the other databases' lists are still in it
    assert isinstance(err.value, OSError)  # the app's "not saved" paths report it as such
    # reading falls back to "nothing saved" without touching it
    assert saved_repos(cfg, db=tmp_path / "one.db") is None
    assert path.read_text() == broken
    # fixed by hand: saving works again and keeps every list
    path.write_text(broken.replace(",\n}", "\n}"))
    save_repos(["/c"], cfg, db=tmp_path / "three.db")
    kept = json.loads(path.read_text())
    assert sorted(kept.values()) == [["/a"], ["/b"], ["/c"]]


def test_a_damaged_settings_file_is_kept_and_not_saved_over(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    path = cfg / config.SETTINGS_FILE
    path.write_text('{"theme": "x", "recent_repos": ["/a",],}')
    with pytest.raises(config.SettingsFileDamaged, match="not valid JSON"):
        config.save_settings(config.Settings(theme="y"), cfg)
    assert path.read_text() == '{"theme": "x", "recent_repos": ["/a",],}'
    assert config.load_settings(cfg) == config.Settings()  # reading: the defaults


def test_a_failed_save_leaves_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "cfg"
    config.save_settings(config.Settings(theme="a"), cfg)

    def refuse(*_a: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(config.os, "replace", refuse)
    with pytest.raises(OSError, match="No space"):
        config.save_settings(config.Settings(theme="b"), cfg)
    assert sorted(p.name for p in cfg.iterdir()) == [config.SETTINGS_FILE]
    assert config.load_settings(cfg).theme == "a"


SAVER = """
import sys
from pathlib import Path
from memharness_tui import config
from memharness_tui.tui.repos import save_repos
folder, who, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
failed = 0
for i in range(n):
    try:
        config.save_settings(config.Settings(theme=f"{who}-{i}"), folder)
        save_repos([f"/{who}/{i}"], folder, db=f"/db/{who}")
    except OSError as exc:
        failed += 1
        print(exc, file=sys.stderr)
print(failed)
"""


def test_two_processes_saving_settings_at_once_never_fail(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    procs = [
        subprocess.Popen([sys.executable, "-c", SAVER, str(cfg), who, "150"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for who in ("one", "two")
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    for (out, err), p in zip(outs, procs, strict=True):
        assert p.returncode == 0, err
        assert out.strip() == "0", err  # not one save failed
    assert config.load_settings(cfg).theme is not None  # a whole file, never a torn one
    lists = json.loads((cfg / REPOS_FILE).read_text())
    # each process's last list is there: neither save dropped the other's
    assert lists == {"/db/one": ["/one/149"], "/db/two": ["/two/149"]}
    assert sorted(p.name for p in cfg.iterdir()) == sorted([REPOS_FILE, config.SETTINGS_FILE])


async def test_the_app_says_the_repos_file_is_damaged_and_keeps_it(tmp_path: Path) -> None:
    from memharness_tui.store import Store

    from .conftest import make_app, said, settle

    cfg = tmp_path / "config"
    cfg.mkdir()
    broken = '{"/some/other.db": ["/repo/a"],}\n'
    (cfg / REPOS_FILE).write_text(broken)
    db = tmp_path / "memory.db"
    with Store.open(str(db)) as store:
        store.remember("s", "a fact")
        app = make_app(store, cfg)
        told = said(app)  # a notice's toast may be gone before a loaded machine looks
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            notes = [n.message for n in told]
            assert any(str(cfg / REPOS_FILE) in n and "not valid JSON" in n
                       and "fix or remove it" in n for n in notes), notes
            app.repo_prefs.choose(["/repo/b"])  # choosing repos must not wipe the other lists
            await settle(pilot)
            notes = [n.message for n in told]
            assert any(n.startswith("Repos changed but not saved: ") for n in notes), notes
    assert (cfg / REPOS_FILE).read_text() == broken
