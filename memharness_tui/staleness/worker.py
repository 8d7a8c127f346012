"""A staleness pass in a child process: the app's passes run here, off the UI's GIL.

A pass in a thread of the app shares the GIL with the UI thread, so every frame, key and
progress update the app handles while a pass runs is time the pass waits. :class:`PassWorker`
starts one long-lived child (``python -m memharness_tui.staleness.worker``) that imports the
pass's modules once and then runs each pass it is sent with the headless command's code
(:class:`~memharness_tui.staleness.runner.StalenessPass`), streaming every progress event back.
The app only unpickles events and paints.

Protocol: length-prefixed pickles over the child's stdin/stdout, both ends this package.
Parent → child: ``("precheck", run, kwargs)`` (with the pass to start at once when the repos
hold the pins), ``("job", run, kwargs)``, ``("cancel", run)``, and ``("ahead", 0, {"db_path"})``
(no answer): read the store's pins now, while nobody waits, for the next precheck — which takes
them only if the store file still stands where it did (``pins_ahead``: no commit since).
Child → parent: ``("coverage", run, (pins, resolved))`` or ``("repo_error", run, text)`` for a
precheck; ``("event", run, event)`` per batch (a PassProgress as plain data, see ``_wire``),
then ``("report", run, (last event, PassReport))`` — the report's verdicts left out, they came
with the events — or ``("error", run, text)``. The report comes with the last event, so that
whoever sees the pass end can read it. A report is followed by ``("counts", run, counts)``: the
store's header counts read just after a writing pass's last commit (a ``MarkedCounts``), or None
(check-only, or they could not be read exactly), so the app need not read every row to learn
what its header shows. The child writes nothing else to stdout (its own prints
go to stderr, which the parent discards: the terminal belongs to the app), and exits when its
stdin closes.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .pins_ahead import PinsAhead

if TYPE_CHECKING:
    from memharness_tui.store.types import MarkedCounts

    from .precheck import PinCoverage
    from .runner import PassProgress, PassReport, StalenessPass

__all__ = ["PassWorker", "WorkerError", "WorkerLost", "job_for"]

_HEADER = struct.Struct("!I")


class WorkerError(RuntimeError):
    """The pass failed in the child (its one-line reason), or the child itself went away."""


class WorkerLost(WorkerError):
    """The child could not be started, or went away without an answer."""


def _send(out: IO[bytes], message: tuple[Any, ...]) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(_HEADER.pack(len(data)) + data)
    out.flush()


def _recv(inp: IO[bytes]) -> tuple[Any, ...]:
    header = inp.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError
    (size,) = _HEADER.unpack(header)
    data = inp.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)  # noqa: S301 - our own child, over our own pipe


def _wire(event: PassProgress) -> tuple[Any, ...]:
    """An event as plain data: pickling a Verdict (a NamedTuple) costs ~3× a plain tuple's."""
    return (event.checked, event.current, event.stale, event.unresolved, event.backfilled,
            event.total, event.fact_id, [tuple(v) for v in event.verdicts], event.done,
            event.cancelled)


def _unwire(data: tuple[Any, ...]) -> PassProgress:
    from .runner import PassProgress
    from .verdicts import Verdict

    *counts, verdicts, done, cancelled = data
    new = tuple.__new__
    return PassProgress(*counts, verdicts=tuple(new(Verdict, v) for v in verdicts),  # type: ignore[misc]  # counts stop before verdicts
                        done=done, cancelled=cancelled)


def job_for(spass: StalenessPass, *, prechecked: bool = False) -> dict[str, Any]:
    """What the child needs to run ``spass`` (the work list it was handed goes along, once).

    ``prechecked``: use the work list the child read for :meth:`PassWorker.precheck` just
    before (when it was for the same store and repos; else the child reads it afresh).
    Only a pass on the system clock with the default store can run in a child: a test's
    fake clock or store factory lives in this process.
    """
    if spass.clock is not None or spass._store_factory is not None:
        raise ValueError("a pass with its own clock or store factory runs in this process")
    work, spass._work = spass._work, None
    return {"prechecked": prechecked and work is None, "db_path": spass.db_path,
            "repos": [str(r) for r in spass.repos],
            "check_only": spass.check_only, "downgrade": spass.downgrade,
            "factor": spass.factor, "batch_size": spass.batch_size,
            "work": [tuple(w) for w in work] if work is not None else None}


def _release(proc: subprocess.Popen[bytes] | None) -> None:
    """Close a finished child's pipes (a lost child's would stay open until collected)."""
    if proc is not None:
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()


class PassWorker:
    """The parent's handle on the child. Start it early (:meth:`start` does not wait for the
    child's imports), run passes with :meth:`events`, one at a time, from any one thread."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()  # writes to the child's stdin (job and cancel)
        self._reading = threading.Lock()  # one request reads the child's answers at a time
        self._runs = 0
        self._current = 0
        # a pass the child started right after an OK precheck, until events() adopts it
        self._speculative: tuple[int, dict[str, Any]] | None = None

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        """Start the child if it is not running (returns at once; it imports meanwhile)."""
        with self._lock:
            if self.alive:
                return
            _release(self._proc)  # a child gone since: its pipes
            package_root = str(Path(__file__).resolve().parents[2])
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join(
                p for p in (package_root, env.get("PYTHONPATH", "")) if p)
            try:
                self._proc = subprocess.Popen(
                    [sys.executable, "-m", "memharness_tui.staleness.worker"],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                    env=env, close_fds=True, start_new_session=True)
            except (OSError, ValueError) as e:
                self._proc = None
                raise WorkerLost(f"the pass process could not be started ({e})") from e

    def _request(self, kind: str, payload: dict[str, Any]) -> int:
        self.start()
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        with self._lock:
            self._runs += 1
            run = self._runs
            if kind == "job":
                self._current = run
            try:
                if self._speculative is not None:  # not adopted: it stops at its next batch
                    _send(proc.stdin, ("cancel", self._speculative[0]))
                    self._speculative = None
                _send(proc.stdin, (kind, run, payload))
            except (BrokenPipeError, OSError) as e:
                self._lost()
                raise WorkerLost("the pass process could not be started") from e
        return run

    def _answer(self, run: int) -> tuple[str, Any]:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        while True:
            try:
                kind, got, payload = _recv(proc.stdout)
            except (EOFError, OSError, ValueError, pickle.UnpicklingError) as e:
                self._lost()
                raise WorkerLost("the pass process stopped unexpectedly") from e
            if got == run:
                return kind, payload
            # else: left over from a request abandoned earlier

    def precheck(self, db_path: str, repos: list[str],
                 job: dict[str, Any] | None = None) -> PinCoverage:
        """The wrong-repo precheck (``precheck.pin_coverage``), computed in the child, which
        keeps the work list it read for the pass that may follow (``job_for(prechecked=True)``).
        Raises RepoError as the in-process precheck does.

        ``job`` (``job_for(..., prechecked=True)`` of the pass the caller will start when the
        repos hold the pins): the child starts it at once instead of waiting for the caller's
        round trip; :meth:`events` with an equal job takes it over (any other request first
        cancels it, before its next batch).
        """
        from .git import RepoError
        from .precheck import PinCoverage

        with self._reading:
            payload_in: dict[str, Any] = {"db_path": db_path, "repos": list(repos), "job": job}
            run = self._request("precheck", payload_in)
            kind, payload = self._answer(run)
            if kind == "coverage" and job is not None and not PinCoverage(*payload).wrong_repo:
                self._speculative = (run, job)
        if kind == "coverage":
            return PinCoverage(*payload)
        if kind == "repo_error":
            raise RepoError(str(payload))
        raise WorkerError(str(payload))

    def events(self, job: dict[str, Any], report_to: StalenessPass,
               on_counts: Callable[[MarkedCounts | None], None] | None = None,
               ) -> Iterator[PassProgress]:
        """Run one pass in the child; yield its events as the in-process pass would.

        At the end ``report_to.report`` holds the child's report (its verdicts rebuilt from
        the events). Raises WorkerError with the pass's reason when it failed, or when the
        child went away (it is started afresh next time). After the last event, ``on_counts``
        is called with the counts the child read after the pass's last commit (None: none,
        also when the child went away meanwhile: the pass itself had ended).
        """
        with self._reading:
            spec = self._speculative
            if spec is not None and spec[1] == job:  # the child runs it already: take it over
                with self._lock:
                    self._speculative = None
                    run = self._current = spec[0]
                if report_to.cancelled:  # cancelled before it was taken over
                    self.cancel()
            else:
                run = self._request("job", job)
            verdicts: list[Any] = []
            try:
                while True:
                    kind, payload = self._answer(run)
                    if kind == "event":
                        event = _unwire(payload)
                        verdicts.extend(event.verdicts)
                        yield event
                    elif kind == "report":  # with the last event, which follows it here
                        wired, report = payload
                        event = _unwire(wired)
                        verdicts.extend(event.verdicts)
                        report_to.report = replace(report, verdicts=verdicts)
                        yield event
                        counts = None
                        try:  # the pass has ended: nothing here may say it failed
                            kind, payload = self._answer(run)
                            counts = payload if kind == "counts" else None
                        except WorkerError:
                            pass  # the child went away: it is started afresh next time
                        except Exception:  # noqa: BLE001 - e.g. counts that do not unpickle
                            counts = None
                        if on_counts is not None:
                            on_counts(counts)
                        return
                    else:
                        raise WorkerError(str(payload))
            finally:
                self._current = 0

    def ahead(self, db_path: str) -> None:
        """Have the child read ``db_path``'s pins now, for the next precheck (returns at once;
        no answer: a precheck after a commit reads them again; a no-op without a child)."""
        with self._lock:
            proc = self._proc
            if proc is None or proc.stdin is None or proc.poll() is not None:
                return
            with contextlib.suppress(OSError):
                _send(proc.stdin, ("ahead", 0, {"db_path": db_path}))

    def cancel(self) -> None:
        """Ask the running pass to stop before its next batch (thread-safe; no-op if none)."""
        with self._lock:
            run, proc = self._current, self._proc
            if not run or proc is None or proc.stdin is None:
                return
            with contextlib.suppress(OSError):
                _send(proc.stdin, ("cancel", run))

    def _lost(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            with contextlib.suppress(OSError):
                proc.kill()
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                proc.wait(timeout=1)
            _release(proc)

    def close(self) -> None:
        """Stop the child: its stdin closes, so it cancels a pass it runs and exits; killed
        if it has not gone within a quarter of a second (a pass's batch in flight is rolled
        back whole; a child still importing has nothing to lose), so quitting never waits."""
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            if proc.stdin is not None:
                proc.stdin.close()
        try:
            proc.wait(timeout=0.25)
        except subprocess.TimeoutExpired:
            proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=1)
        with contextlib.suppress(OSError):
            if proc.stdout is not None:
                proc.stdout.close()


# -- the child ----------------------------------------------------------------------------


def _error_text(exc: BaseException) -> str:
    return getattr(exc, "message", None) or str(exc).strip() or type(exc).__name__


class _Child:
    """The child's loop: jobs run one at a time on the main thread; a reader thread takes
    cancels (and the end of stdin) while a pass runs."""

    def __init__(self, inp: IO[bytes], out: IO[bytes]) -> None:
        self.inp, self.out = inp, out
        self.jobs: queue.Queue[tuple[str, int, dict[str, Any]] | None] = queue.Queue()
        self.prechecked: tuple[str, list[str], list[Any], list[Any]] | None = None
        self.lock = threading.Lock()
        self.cancelled: set[int] = set()
        self.current: tuple[int, Any] | None = None
        self.ahead = PinsAhead()  # the pins read for the next precheck (``ahead``)

    def read(self) -> None:
        try:
            while True:
                message = _recv(self.inp)
                if message[0] in ("job", "precheck", "ahead"):
                    self.jobs.put(message)
                elif message[0] == "cancel":
                    self._cancel(message[1])
        except (EOFError, OSError, pickle.UnpicklingError):
            with self.lock:
                if self.current is not None:
                    self.current[1].cancel()
            self.jobs.put(None)

    def _cancel(self, run: int) -> None:
        with self.lock:
            self.cancelled.add(run)
            if self.current is not None and self.current[0] == run:
                self.current[1].cancel()

    def serve(self) -> None:
        threading.Thread(target=self.read, daemon=True).start()
        while (job := self.jobs.get()) is not None:
            kind, run, kwargs = job
            if kind == "precheck":
                self.precheck(run, kwargs)
            elif kind == "ahead":
                self.ahead.read(kwargs["db_path"])
            else:
                self.run(run, kwargs)

    def precheck(self, run: int, kwargs: dict[str, Any]) -> None:
        from .git import GitChecker, RepoError
        from .precheck import coverage_and_work_with, coverage_in

        self.prechecked = None
        try:
            checkers = [GitChecker(r) for r in kwargs["repos"]]
            pins = self.ahead.now(kwargs["db_path"])
            if pins is not None:  # read ahead, no commit since: the store's pins now
                work, commits = pins
                cov = coverage_in(checkers, commits)
            else:
                cov, work = coverage_and_work_with(checkers, kwargs["db_path"])
        except RepoError as exc:
            _send(self.out, ("repo_error", run, _error_text(exc)))
        except Exception as exc:  # noqa: BLE001 - every failure goes back as one line
            _send(self.out, ("error", run, _error_text(exc)))
        else:
            self.prechecked = (kwargs["db_path"], list(kwargs["repos"]), work, checkers)
            _send(self.out, ("coverage", run, (cov.pins, cov.resolved)))
            job = kwargs.get("job")
            if job is not None and not cov.wrong_repo:
                self.run(run, dict(job))  # the pass the app starts next: under this run id

    def counts(self, db_path: str) -> MarkedCounts | None:
        """The store's header counts now, with where the log stands (None: not exactly),
        read on a read-only connection opened for it and closed at once."""
        from memharness_tui.store import Store

        try:
            store = Store.open(db_path, readonly=True)
        except Exception:  # noqa: BLE001 - the app counts for itself, as without this
            return None
        try:
            store.without_memory_map()
            return store.marked_counts()
        except Exception:  # noqa: BLE001 - likewise
            return None
        finally:
            store.close()

    def run(self, run: int, kwargs: dict[str, Any]) -> None:
        from .runner import StalenessPass
        from .work import WorkItem

        kept, self.prechecked = self.prechecked, None  # a precheck's list is used once
        self.ahead.drop()  # a pass writes: read them again next time
        try:
            work = kwargs.pop("work")
            checkers = None
            if kwargs.pop("prechecked") and kept is not None \
                    and kept[:2] == (kwargs["db_path"], kwargs["repos"]):
                work, checkers = kept[2], kept[3]
            elif work is not None:
                work = [WorkItem(*w) for w in work]
            spass = StalenessPass(**kwargs, work=work, checkers=checkers)
            with self.lock:
                self.current = (run, spass)
                if run in self.cancelled:
                    spass.cancel()
            for event in spass.iter_batches():
                if event.done:  # the report travels with the last event: both land at once
                    report: PassReport = replace(spass.report, verdicts=[])
                    _send(self.out, ("report", run, (_wire(event), report)))
                    counts = None if spass.check_only else self.counts(spass.db_path)
                    _send(self.out, ("counts", run, counts))
                else:
                    _send(self.out, ("event", run, _wire(event)))
        except Exception as exc:  # noqa: BLE001 - every failure goes back as one line
            _send(self.out, ("error", run, _error_text(exc)))
        finally:
            with self.lock:
                self.current = None
                self.cancelled.discard(run)


def warm_up() -> None:
    """Import what every pass needs, while the app is still busy elsewhere: the pass's
    modules, and whatever a store's first open loads on the way (the cache folder's paths,
    where a file's open reads the damage record; the connection's own setup), so the first
    precheck pays none of it between the start key and the pass."""
    for name in ("runner", "precheck"):
        importlib.import_module(f"{__package__}.{name}")
    importlib.import_module("memharness_tui.store.types")
    importlib.import_module("memharness_tui.paths")
    from memharness_tui.store import Store

    with contextlib.suppress(Exception):  # a warm-up only: the pass reports its own store's
        Store.open(":memory:").close()  # a connection, as a file's (an empty file opens none)


def main() -> None:
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints never reach the pipe
    warm_up()
    _Child(sys.stdin.buffer, out).serve()


if __name__ == "__main__":
    main()
