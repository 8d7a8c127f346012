"""Files under the config folder are data, read bounded: a FIFO, a symlink to a device, a
huge file or JSON nested past Python's recursion limit each give one line and the defaults —
in the app and in ``doctor`` — and are never saved over."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memharness_tui import config
from memharness_tui.store import Store
from memharness_tui.tui.repos import REPOS_FILE, save_repos, saved_repos

from .conftest import make_app, settle

GiB = 1024 * 1024 * 1024


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _sparse_gib(path: Path) -> None:
    with path.open("wb") as fh:
        fh.truncate(GiB)  # a hole: no disk used, but a gigabyte to whoever reads it


def _deep_json(path: Path) -> None:
    path.write_text("[" * 100_000 + "]" * 100_000)


KINDS: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (_fifo, "is not a regular file"),
    "symlink to /dev/zero": (_dev_zero, "is not a regular file"),
    "sparse 1 GiB file": (_sparse_gib, "is larger than 1 MiB"),
    "100,000-deep JSON": (_deep_json, "is nested too deeply to read"),
}


def _fingerprint(path: Path) -> tuple[int, int, int]:
    st = path.lstat()
    return st.st_ino, st.st_mode, st.st_size


@contextlib.contextmanager
def unblocked(path: Path) -> Iterator[list[bool]]:
    """If a reader ever blocks opening the FIFO ``path``, open its other end after a generous
    bound (so a regression fails the test instead of hanging it) and record that it had to."""
    had_to: list[bool] = []
    done = threading.Event()

    def watch() -> None:
        if done.wait(120) or not path.exists() or not path.is_fifo():
            return
        with contextlib.suppress(OSError):
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)  # succeeds only if a reader waits
            os.close(fd)
            had_to.append(True)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield had_to
    finally:
        done.set()
        thread.join()


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_settings_or_repos_file_that_is_not_plain_data_reads_as_the_defaults(
        tmp_path: Path, kind: str) -> None:
    make, reason = KINDS[kind]
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    settings, repos = cfg / config.SETTINGS_FILE, cfg / REPOS_FILE
    make(settings)
    make(repos)
    before = _fingerprint(settings), _fingerprint(repos)
    with unblocked(settings) as had_to, unblocked(repos) as had_to_repos:
        assert config.load_settings(cfg) == config.Settings()
        problem = config.settings_file_problem(cfg)
        assert problem == (f"{settings} {reason}; it was left as it is and nothing was saved "
                           "over it — fix or remove it")
        with pytest.raises(config.SettingsFileDamaged, match=reason):
            config.save_settings(config.Settings(theme="x"), cfg)
        assert saved_repos(cfg, db=tmp_path / "m.db") is None
        with pytest.raises(config.SettingsFileDamaged, match=reason):
            save_repos(["/r"], cfg, db=tmp_path / "m.db")
    assert not had_to and not had_to_repos
    assert (_fingerprint(settings), _fingerprint(repos)) == before


def test_a_file_that_grows_past_the_limit_while_read_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / config.SETTINGS_FILE
    path.write_text('{"theme": "x"}' + " " * 100)
    assert config.read_config_bytes(path, limit=200) is not None
    with pytest.raises(config.SettingsFileDamaged, match="larger than 100 bytes"):
        config.read_config_bytes(path, limit=100)
    real_fstat = os.fstat

    def stale_size(fd: int) -> os.stat_result:  # the size fstat saw before the file grew
        st = real_fstat(fd)
        return os.stat_result((st.st_mode, *st[1:6], 10, *st[7:]))

    monkeypatch.setattr(config.os, "fstat", stale_size)
    with pytest.raises(config.SettingsFileDamaged, match="larger than 100 bytes"):
        config.read_config_bytes(path, limit=100)


@pytest.mark.parametrize("kind", list(KINDS))
async def test_the_app_starts_on_the_defaults_and_says_so_in_one_line(
        tmp_path: Path, kind: str) -> None:
    make, reason = KINDS[kind]
    cfg = tmp_path / "config"
    cfg.mkdir()
    settings = cfg / config.SETTINGS_FILE
    make(settings)
    before = _fingerprint(settings)
    with Store.open(str(tmp_path / "memory.db")) as store:
        store.remember("s", "a fact")
        with unblocked(settings) as had_to:
            app = make_app(store, cfg)
            async with app.run_test(size=(100, 30)) as pilot:
                await settle(pilot)
                assert app.settings == config.Settings()
                notes = [n.message for n in app._notifications]
                assert [n for n in notes if str(settings) in n] == [
                    f"{settings} {reason}; it was left as it is and nothing was saved over it "
                    "— fix or remove it"], notes
        assert not had_to
    assert _fingerprint(settings) == before


@pytest.mark.parametrize("kind", list(KINDS))
def test_doctor_finishes_with_one_line_for_the_file(tmp_path: Path, kind: str) -> None:
    make, reason = KINDS[kind]
    cfg = tmp_path / "config"
    cfg.mkdir()
    make(cfg / config.SETTINGS_FILE)
    make(cfg / REPOS_FILE)
    db = tmp_path / "m.db"
    with Store.open(str(db)) as store:
        store.remember("s", "a fact")
    env = {**os.environ, "MEMHARNESS_TUI_CONFIG_DIR": str(cfg)}
    proc = subprocess.run([sys.executable, "-m", "memharness_tui", "doctor", "--db", str(db)],
                          capture_output=True, text=True, env=env, timeout=300,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert f"  [warn] {cfg / config.SETTINGS_FILE} {reason}: the app uses its defaults" in lines
    assert f"  [warn] {cfg / REPOS_FILE} {reason}: no saved repos are used" in lines
    assert lines[-1] == "result: ok"
