"""The pass controller: runs one staleness pass in a thread worker and reports by message.

Progress reaches the UI as :class:`PassProgressed` messages that merge in bursts, while the
batch verdicts travel through a locked buffer so a merged message never loses any. Any failure
in the pass thread — a locked database included — ends the pass with :class:`PassFailed`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.message import Message
from textual.widget import Widget
from textual.worker import get_current_worker

if TYPE_CHECKING:
    from memharness_tui.store.types import MarkedCounts
    from memharness_tui.tui.services.passes import (
        PassProgress,
        PassWorker,
        PinCoverage,
        StalenessPass,
        Verdict,
        WorkItem,
    )

UI_INTERVAL = 0.25  # the pass thread posts progress at most this often (plus first and last)
# Four updates a second keep the counters and the log live to the eye; each one costs the UI
# thread a frame (counters, bar, log and its scrollbar), and the UI thread shares the GIL with
# the pass, so every frame saved is pass time won back.
# No sleep between batches: the app runs with a short GIL switch interval (app_early.SWITCH_INTERVAL),
# so the UI thread gets the GIL within a fraction of a millisecond without the pass pausing,
# and fewer progress messages leave the UI thread less work to compete with.


class PassProgressed(Message):
    """A pass event, posted from the pass's thread. A newer one may replace a pending one."""

    bubble = False

    def __init__(self, run: int, event: PassProgress) -> None:
        super().__init__()
        self.run = run
        self.event = event

    def can_replace(self, message: Message) -> bool:
        # merge bursts: a newer progress event of the same run supersedes a pending one
        # (the verdicts are buffered separately, so none are lost); never drop the last
        return (isinstance(message, PassProgressed) and message.run == self.run
                and not self.event.done and self.event.checked > 0)


class PassFailed(Message):
    """The pass stopped on an error (before writing, or after some whole batches)."""

    bubble = False

    def __init__(self, run: int, error: str) -> None:
        super().__init__()
        self.run = run
        self.error = error


class PassCounted(Message):
    """After a writing pass in the pass process ended: the store's header counts it read just
    after its last commit (None: it could not say exactly). Posted after the pass's last
    :class:`PassProgressed`."""

    bubble = False

    def __init__(self, run: int, counts: MarkedCounts | None, wrote: bool) -> None:
        super().__init__()
        self.run = run
        self.counts = counts
        self.wrote = wrote  # the pass could write (not check-only): the panes hear of it now


class Prechecked(Message):
    """The wrong-repo precheck's answer, from its thread worker: the pins' ``coverage`` in
    ``repos`` (None: a repo could not be read — the pass itself says why), the ``work`` list it
    read (None: the pass reads it), and whether the pass process holds that list."""

    bubble = False

    def __init__(self, repos: list[str], coverage: PinCoverage | None,
                 work: list[WorkItem] | None, prechecked: bool) -> None:
        super().__init__()
        self.repos = repos
        self.coverage = coverage
        self.work = work
        self.prechecked = prechecked


@dataclass
class PassState:
    run: int
    spass: StalenessPass
    started: float
    check_only: bool
    buffer: list[Verdict] = field(default_factory=list)
    prepared: list[Any] = field(default_factory=list)  # per batch kept: ``prepare``'s
    lock: threading.Lock = field(default_factory=threading.Lock)
    last: PassProgress | None = None
    elapsed: float = 0.0
    done: bool = False
    error: str | None = None
    prechecked: bool = False  # the pass process holds the work list its precheck read
    counted: bool = False  # a :class:`PassCounted` follows the last event (the pass process)

    def take(self) -> list[Verdict]:
        """The verdicts buffered since the last call (thread-safe)."""
        return self.take_prepared()[0]

    def take_prepared(self) -> tuple[list[Verdict], list[Any]]:
        """:meth:`take`, with what the controller's ``prepare_batch`` made of each batch kept."""
        with self.lock:
            verdicts, self.buffer = self.buffer, []
            prepared, self.prepared = self.prepared, []
        return verdicts, prepared

    def keep(self, verdicts: list[Verdict], prepared: Any = None) -> None:
        with self.lock:
            if verdicts:
                self.buffer.extend(verdicts)
                self.prepared.append(prepared)


def pass_error(exc: BaseException) -> str:
    """One line saying why a pass stopped (a locked database gets its own sentence)."""
    text = getattr(exc, "message", None) or str(exc).strip() or type(exc).__name__
    if "database is locked" in text or "database is busy" in text:
        return ("the database is busy: another process holds a write lock; the pass stopped "
                "(batches already written stay written) — try again")
    return text


class PassController:
    """Owns the running pass for ``owner`` (the widget that receives its messages).

    A pass runs in a child process (:class:`~memharness_tui.staleness.worker.PassWorker`,
    started by :meth:`warm`) when it can: there it does not share the GIL with the UI thread,
    which otherwise stretches the pass by every frame and key the app handles meanwhile. A pass
    with a test's clock, store factory or throttle runs in the worker thread itself.
    """

    def __init__(self, owner: Widget, timer: Callable[[], float] = time.perf_counter) -> None:
        self.owner = owner
        self.timer = timer
        self.state: PassState | None = None
        self._runs = 0
        self.worker: PassWorker | None = None
        self._no_child = False  # the pass process failed once: passes stay in-process
        self._ahead_for: str | None = None  # the store whose pins the pass process reads ahead
        #: called in the pass's thread with each batch's verdicts: what the UI will make of
        #: them, computed there as they arrive rather than all at once when they are shown
        self.prepare_batch: Callable[[list[Verdict]], Any] | None = None

    def warm(self) -> None:
        """Start the pass process now (its imports take a few hundred ms), so a pass started
        later does not wait for them. Returns at once. A pass process that cannot be started,
        or went away, is given up for this session: passes then run in a thread here."""
        from memharness_tui.tui.services.passes import PassWorker, WorkerLost

        if self._no_child:
            return
        if self.worker is None:
            self.worker = PassWorker()
        try:
            self.worker.start()
        except WorkerLost:
            self._give_up_child()
            return
        if self._ahead_for is not None:
            self.worker.ahead(self._ahead_for)

    def read_ahead(self, db_path: str) -> None:
        """Have the pass process read the store's pins now, while nobody waits, so that the
        precheck of a pass started before the next commit need not (sent at :meth:`warm`
        when the process is not started yet). Returns at once."""
        self._ahead_for = db_path
        worker = self.worker
        if worker is not None:
            worker.ahead(db_path)

    def _give_up_child(self) -> None:
        worker, self.worker = self.worker, None
        self._no_child = True
        if worker is not None:
            worker.close()

    def close(self) -> None:
        """Stop the pass process, if one was started."""
        worker = self.worker
        if worker is not None:
            worker.close()

    def can_use_child(self, clock: object, throttle: object) -> bool:
        """Whether a pass with these options would run in the (warm) pass process — started
        now if it was not yet (a pass asked for before the tab's list had loaded)."""
        if self.worker is None and clock is None and throttle is None:
            self.warm()
        return self.worker is not None and clock is None and throttle is None

    def precheck(self, db_path: str, repos: list[str],
                 batch_size: int) -> tuple[PinCoverage, bool]:
        """The wrong-repo precheck (call from a thread): in the pass process, which keeps
        the work list it read for the pass started right after with ``prechecked`` — and, when
        the repos hold the pins, starts that pass (writing, ``batch_size``) at once, for
        :meth:`start` to take over; in this process when there is none (or it went away).
        Returns (coverage, prechecked there). Raises RepoError."""
        from memharness_tui.tui.services.passes import (
            StalenessPass,
            WorkerLost,
            job_for,
            pin_coverage,
        )

        worker = self.worker
        if worker is not None:
            job = job_for(StalenessPass(db_path, repos, batch_size=batch_size), prechecked=True)
            try:
                return worker.precheck(db_path, repos, job), True
            except WorkerLost:
                self._give_up_child()
        return pin_coverage(db_path, repos), False

    def precheck_worker(self, db_path: str, repos: list[str], batch_size: int,
                        in_child: bool) -> None:
        """The precheck in a thread worker (on ``owner``), answered by :class:`Prechecked`."""
        self.owner.run_worker(partial(self._precheck, db_path, repos, batch_size, in_child),
                              thread=True, exclusive=True, group="pass-guard",
                              exit_on_error=False, description="wrong-repo precheck")

    def _precheck(self, db_path: str, repos: list[str], batch_size: int, in_child: bool) -> None:
        from memharness_tui.tui.services.passes import RepoError, coverage_and_work

        work = None
        try:
            if in_child:  # the pass process reads the pins, off the UI's GIL, and keeps them
                cov, in_child = self.precheck(db_path, repos, batch_size)
            else:
                cov, work = coverage_and_work(db_path, repos)
        except RepoError:
            cov, in_child = None, False
        if not get_current_worker().is_cancelled:  # another s meanwhile: that one answers
            self.owner.post_message(Prechecked(repos, cov, work, in_child))

    def in_child(self, st: PassState,
                 throttle: Callable[[PassProgress], None] | None = None) -> bool:
        """Whether ``st``'s pass runs in the pass process: only a pass started after
        :meth:`warm`, on the system clock, with the default store and no throttle."""
        spass = st.spass
        return self.can_use_child(spass.clock, throttle) and spass._store_factory is None

    @property
    def running(self) -> bool:
        return self.state is not None and not self.state.done

    def prepare(self, spass: StalenessPass, check_only: bool) -> PassState:
        """A new run's state (not started yet)."""
        self._runs += 1
        self.state = PassState(self._runs, spass, self.timer(), check_only)
        return self.state

    def start(self, st: PassState,
              throttle: Callable[[PassProgress], None] | None = None) -> None:
        """Run the pass in a thread worker (exclusive, group "staleness")."""
        self.owner.run_worker(lambda: self._run(st, throttle), thread=True, exclusive=True,
                              group="staleness", exit_on_error=False,
                              description=f"staleness pass {st.run}")

    def events(self, st: PassState) -> Iterator[PassProgress]:
        """The pass's events, each one's verdicts already buffered (errors propagate)."""
        for event in st.spass.iter_batches():
            self._keep(st, list(event.verdicts))
            yield event

    def _keep(self, st: PassState, verdicts: list[Verdict]) -> None:
        prepare = self.prepare_batch
        st.keep(verdicts, prepare(verdicts) if prepare is not None and verdicts else None)

    def child_events(self, st: PassState) -> Iterator[PassProgress]:
        """:meth:`events`, from the pass process (``st.spass.report`` is its report after)."""
        from memharness_tui.tui.services.passes import WorkerLost, job_for

        worker = self.worker
        assert worker is not None
        job = job_for(st.spass, prechecked=st.prechecked)
        st.counted = True

        def counted(counts: MarkedCounts | None) -> None:
            self.owner.post_message(PassCounted(st.run, counts, not st.check_only))

        try:
            for event in worker.events(job, st.spass, counted):
                self._keep(st, list(event.verdicts))
                yield event
        except WorkerLost as e:
            self._give_up_child()
            raise WorkerLost(f"{e}; the next pass runs in the app") from e

    def _run(self, st: PassState, throttle: Callable[[PassProgress], None] | None) -> None:
        worker = get_current_worker()
        last_post = 0.0
        events = self.child_events(st) if self.in_child(st, throttle) else self.events(st)
        try:
            for event in events:
                now = time.monotonic()
                if event.done or event.checked == 0 or throttle is not None \
                        or now - last_post >= UI_INTERVAL:
                    last_post = now
                    self.owner.post_message(PassProgressed(st.run, event))
                if worker.is_cancelled:
                    self._cancel(st)
                if throttle is not None:
                    throttle(event)
        except Exception as exc:  # noqa: BLE001 - any failure ends the pass and says why
            self.owner.post_message(PassFailed(st.run, pass_error(exc)))

    def cancel(self) -> bool:
        """Ask the running pass to stop after its current batch; False when none runs."""
        if not self.running:
            return False
        assert self.state is not None
        self._cancel(self.state)
        return True

    def _cancel(self, st: PassState) -> None:
        st.spass.cancel()
        worker = self.worker  # read once: the pass thread may give the process up meanwhile
        if worker is not None:
            worker.cancel()  # a pass in the child process (a no-op when none runs there)

    def elapsed(self, st: PassState) -> float:
        st.elapsed = max(0.0, self.timer() - st.started)
        return st.elapsed


def is_current(st: PassState | None, run: int) -> bool:
    return st is not None and st.run == run


__all__ = ["PassController", "PassCounted", "PassFailed", "PassProgressed", "PassState", "Prechecked",
           "is_current", "pass_error"]

