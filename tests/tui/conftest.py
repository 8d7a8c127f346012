"""Stores built in the tests, a frozen clock and an app factory for Pilot and snapshot tests."""

from __future__ import annotations

import atexit
import dataclasses
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import pytest
from textual.notifications import Notification, Notifications

from memharness_tui.store import FakeClock, Store
from memharness_tui.tui.app import MemharnessApp, build_app
from tests.css_parse_cache import install as share_css_parses

share_css_parses()  # one parse of each CSS per worker, not per app (tests/css_parse_cache.py)

NOW = "2026-06-01T12:00:00.000Z"  # the app's "now" for ages (frozen)
CLOCK_START = "2026-03-01T09:00:00.000Z"
SHA_A = "a" * 40
SHA_B = "b" * 40
HOSTILE = {
    "markup": "Config uses [red]x[/] and [/] and [link=https://evil.invalid]click[/link]",
    "ansi": "Colour \x1b[31mRED\x1b[0m and bell \x07 end",
    "long": "L" * 9990 + " tail-marker",
    "emoji": "Deploy on Fridays is 🚫🔥 — ship on Tuesdays ✅ 👩‍💻",
    "rtl": "العربية نص من اليمين إلى اليسار \u202eevil override",
}


@dataclass
class Sample:
    """Ids of the interesting rows in the sample store."""

    path: Path
    chain: list[int]  # ttl v1 → v2 → v3 (oldest first)
    stale: int
    current_pin: int
    unresolved: int
    retracted: int
    backdated_old: int
    backdated_new: int
    hostile: dict[str, int]


def build_sample(path: Path, clock: FakeClock) -> tuple[Store, Sample]:
    """A small store with chains, pins, verdicts, a retraction and hostile text.

    Built once per test process (``_build_sample``, ~30 ms of CPU) and copied for each call
    after the first (#25): the file is the same byte for byte, the ids are the same, and
    ``clock`` is moved to where the build would have left it (a ``FakeClock`` issues from
    ``_ms``, and after a build ``_ms`` is past every stamp issued, so only the position
    matters). A clock that is not fresh at ``CLOCK_START`` gets a real build.
    """
    from memharness_tui.store.timeutil import parse_ms

    key = (clock.peek(), clock.step_ms)
    if path.exists() or key != (CLOCK_START, 60_000):
        return _build_sample(path, clock)
    if _sample_template is None:
        _make_sample_template()
    assert _sample_template is not None
    template, info, end = _sample_template
    for part in template.parent.iterdir():  # the file (and a -wal left open, if any)
        shutil.copyfile(part, path.with_name(path.name + part.name[len(template.name):]))
    clock.advance(parse_ms(end) - parse_ms(clock.peek()))
    store = Store.open(str(path), clock=clock)
    return store, dataclasses.replace(info, path=path, chain=list(info.chain),
                                      hostile=dict(info.hostile))


_sample_template: tuple[Path, Sample, str] | None = None
_sample_dir: tempfile.TemporaryDirectory[str] | None = None


def _make_sample_template() -> None:
    global _sample_template, _sample_dir
    _sample_dir = tempfile.TemporaryDirectory(prefix="memharness-sample-")
    atexit.register(_sample_dir.cleanup)  # removed as the process ends, without a warning
    path = Path(_sample_dir.name) / "memory.db"
    clock = FakeClock(CLOCK_START, 60_000)
    store, info = _build_sample(path, clock)
    store.close()
    _sample_template = (path, info, clock.peek())


def _build_sample(path: Path, clock: FakeClock) -> tuple[Store, Sample]:
    s = Store.open(str(path), clock=clock)
    day = 86_400_000
    v1, _ = s.remember("auth", "Sessions expire after 30 minutes", predicate="session_ttl",
                       source_agent="claude", source_ref="s-1", importance=7)
    stale, _ = s.remember("auth", "Passwords use bcrypt", predicate="hash", source_agent="claude",
                          source_commit=SHA_A, source_path="src/auth.py",
                          source_ref=f"repo@{SHA_A}:src/auth.py")
    current_pin, _ = s.remember("db", "SQLite with WAL", predicate="engine",
                                source_agent="cursor", source_commit=SHA_B,
                                source_path="src/db.py")
    unresolved, _ = s.remember("deploy", "Deploys go through staging", kind="procedural",
                               source_commit="c" * 40)
    s.remember("user", "Prefers short answers", kind="episodic", importance=3,
               source_agent="claude", source_ref="session-9")
    for i in range(12):
        s.remember("bulk", f"Bulk fact number {i} about widgets", predicate=f"p{i}")
    retracted, _ = s.remember("scratch", "Temporary note to forget", source_ref="scratch:1")
    clock.advance(10 * day)
    v2 = s.revise(v1, "Sessions expire after 60 minutes", source_agent="claude")[1]
    s.forget(fact_id=retracted)
    clock.advance(10 * day)
    v3 = s.revise(v2, "Sessions expire after 90 minutes", source_agent="human",
                  confidence=0.8)[1]
    old, _ = s.remember("db", "Production runs Postgres 15", predicate="prod",
                        valid_from="2026-03-05T00:00:00Z")
    clock.advance(2 * day)
    new = s.revise(old, "Production runs Postgres 16", valid_from="2026-03-20T00:00:00Z")[1]
    hostile = {name: s.remember("hostile", text)[0] for name, text in HOSTILE.items()}
    checked = "2026-03-25T10:00:00.000Z"
    s.set_staleness(stale, "stale", checked, SHA_B)
    s.set_staleness(current_pin, "current", checked, SHA_B)
    s.set_staleness(unresolved, "unresolved", checked, SHA_B)
    return s, Sample(path, [v1, v2, v3], stale, current_pin, unresolved, retracted, old, new,
                     hostile)


@pytest.fixture
def sample(tmp_path: Path) -> Iterator[tuple[Store, Sample]]:
    store, info = build_sample(tmp_path / "memory.db", FakeClock(CLOCK_START, 60_000))
    try:
        yield store, info
    finally:
        store.close()


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    return tmp_path / "config"


def count_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per ``Store.counts`` call (in this process) from now on."""
    calls: list[int] = []
    real = Store.counts

    def counting(self: Store) -> object:
        calls.append(1)
        return real(self)

    monkeypatch.setattr(Store, "counts", counting)
    return calls


def opener_for(store: object) -> object:
    """A test's Store → an opener the app runs on its own DB thread (the production model):
    a second connection to the same file, with the same frozen clock."""
    if isinstance(store, Store):
        path, clock, readonly = str(store.path), store.clock, store.readonly
        return lambda: Store.open(path, clock=clock, readonly=readonly)
    return store


def app_args(store: object) -> tuple[str | None, object]:
    """``(db_path, open_store)`` for ``build_app``: a test's Store (its file, opened with its
    frozen clock), a path (opened as the console script opens it) or a zero-arg opener."""
    if isinstance(store, Store):
        return str(store.path), opener_for(store)
    if isinstance(store, str | Path):
        return str(store), None
    return None, store


def make_app(store: object, config_dir: Path, **kwargs: object) -> MemharnessApp:
    """The app on the test's store file (opened on the app's DB thread) with frozen time, no
    debounce and no cursor blink, built as the console script builds it (``build_app``)."""
    kwargs.setdefault("now", NOW)
    kwargs.setdefault("search_debounce", 0)
    kwargs.setdefault("cursor_blink", False)
    path, open_store = app_args(store)
    return build_app(path, config_dir=config_dir, open_store=open_store,  # type: ignore[arg-type]
                     **kwargs)


async def settle(pilot: object) -> None:
    """Let workers finish, every widget handle what it was sent, and the screen repaint."""
    from textual.worker import WorkerCancelled

    app = pilot.app  # type: ignore[attr-defined]
    for _ in range(2):  # a worker may start another (open → main screen → pane loads)
        for _attempt in range(20):
            try:  # an exclusive worker replaced by a newer one is cancelled: wait again
                await app.workers.wait_for_complete()
                break
            except WorkerCancelled:
                continue
        await pilot.pause()  # type: ignore[attr-defined]
    await drain(pilot)


def _busy(node: object) -> bool:
    """A node with messages still queued, or a DataTable that has not sized new rows yet."""
    return (not node._message_queue.empty()  # type: ignore[attr-defined]
            or bool(getattr(node, "_require_update_dimensions", False))
            or bool(getattr(node, "_updated_cells", None)))


async def drain(pilot: object, limit: int = 2000) -> None:
    """Wait until no widget has work queued, then repaint.

    ``pilot.pause()`` waits for the *process* to look idle (little CPU used over a short
    sleep), which a loaded machine fakes: the process is merely not scheduled. A DataTable
    sizes its columns for new rows only on its own Idle, so a snapshot taken then showed the
    columns at their labels' widths (1 run in ~20 of ``test_diff`` under load). This waits for
    the state itself: every node's queue empty and no table with rows still to measure.
    """
    import asyncio

    app = pilot.app  # type: ignore[attr-defined]
    for _ in range(limit):
        busy = [n for n in (app, *app.screen.walk_children(with_self=True)) if _busy(n)]
        if not busy:
            await pilot.pause()  # type: ignore[attr-defined]  # lay out what they changed
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"still busy after {limit} waits: {busy[:5]}")


def said(app: MemharnessApp) -> list[Notification]:
    """Every notification ``app`` raises from now on (call it before ``run_test``), kept past
    its timeout: Textual drops a toast once its timeout has passed on the wall clock, which a
    loaded machine reaches before the test looks (a 10 s notice gone after a 15 s start)."""
    kept = _KeptNotifications()
    app._notifications = kept
    return kept.raised


def toasts_stay(app: MemharnessApp) -> None:
    """Every toast ``app`` raises from now on stays until the test ends, as on a clock that
    stands still: a picture taken after a loaded machine's slow start (an 8 s notice, a 15 s
    start) shows the notices an idle machine's shows. Their text, title and severity are the
    app's own."""
    notify = app.notify

    def staying(message: str, *, title: str = "", severity: Any = "information",
                timeout: float | None = None, markup: bool = True) -> None:
        notify(message, title=title, severity=severity, timeout=_STAYING, markup=markup)

    app.notify = staying  # type: ignore[method-assign]


_STAYING = 24 * 3600.0  # seconds: longer than any test


class _KeptNotifications(Notifications):
    """Textual's collection of an app's notifications (each shown until its timeout) that
    also keeps every one ever added, in order, in ``raised``."""

    def __init__(self) -> None:
        super().__init__()
        self.raised: list[Notification] = []

    def add(self, notification: Notification) -> Self:
        self.raised.append(notification)
        return super().add(notification)


#: how long a test waits for a state before it fails: generous, as a loaded machine is slow,
#: never wrong (a state that never comes fails the test at this bound, not a pass that is slow)
PATIENCE = 60.0


async def until(pilot: object, cond: Callable[[], object], what: str,
                patience: float = PATIENCE) -> None:
    """Wait for ``cond()`` to hold while the app runs (its workers, timers and messages),
    polling; fail saying ``what`` never came once ``patience`` seconds passed."""
    import time

    deadline = time.monotonic() + patience
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} never came ({patience:g} s)")
        await pilot.pause(0.01)  # type: ignore[attr-defined]  # a poll: the app runs meanwhile


async def type_text(pilot: object, text: str) -> None:
    """Type ``text`` into the focused widget as a terminal delivers a burst of keys (a fast
    typist, a paste without bracketing): each character a ``Key`` event named as the driver
    names it, all queued before the first is handled, then one ``settle``.

    ``pilot.press`` waits for the process to go idle twice after every key (at least 40 ms a
    key, a second when a timer keeps it busy); for a test that checks what the typing ends
    in, that is most of its time. Tests of what happens *between* keys keep ``pilot.press``.
    """
    post_keys(pilot, text)
    await settle(pilot)


def post_keys(pilot: object, text: str) -> None:
    """Queue ``text`` as a burst of ``Key`` events (see ``type_text``) without waiting: for a
    caller that cannot ``settle`` (a modal whose worker waits for it to close) and waits for
    the state it needs itself."""
    from textual import events
    from textual.keys import _character_to_key

    app = pilot.app  # type: ignore[attr-defined]
    for char in text:
        app.post_message(events.Key(_character_to_key(char), char))


async def press_burst(pilot: object, *keys: str) -> None:
    """``pilot.press(*keys)`` as one burst (see ``type_text``): each key the ``Key`` event
    ``pilot.press`` sends for it, all queued before the first is handled, then one ``settle``.
    For a run of the same key (16 × ``down``, a word's ``backspace``) whose end is checked."""
    from textual import events

    app = pilot.app  # type: ignore[attr-defined]
    for key in keys:
        app.post_message(events.Key(key, _char_of(key)))
    await settle(pilot)


def _char_of(key: str) -> str | None:
    """The character ``pilot.press`` gives a key's event (Textual's ``App._press_keys``)."""
    import unicodedata

    from textual.keys import REPLACED_KEYS, _get_unicode_name_from_key

    try:
        return unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
    except KeyError:
        return key if len(key) == 1 else None
