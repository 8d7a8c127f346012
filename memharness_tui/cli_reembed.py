"""``memharness-tui reembed``: give every fact a vector from the installed model.

The reference's ``memharness-reembed``: the facts lacking a vector from this model (none yet,
or another model's), oldest first, in batches of 64; each embedded as ``subject: predicate:
fact`` (empty parts left out) and stored under the model's name. Progress is a line per
batch on stderr. Ctrl+C stops between batches: a batch is written whole (one transaction) or
not at all, and the last line says how many facts were written; a second Ctrl+C stops at
once, the batch in hand rolled back.
"""

from __future__ import annotations

import argparse
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .cli_args import UsageError, integer
from .cli_hybrid import download_lines, say
from .store import Store

BATCH = 64


def add_parser(sub: Any) -> None:
    p = sub.add_parser("reembed", help="embed the facts that lack a vector from the installed "
                       "model (hybrid recall; needs the hybrid extra)")
    p.add_argument("--db", metavar="PATH", default=argparse.SUPPRESS,
                   help="the database file (default: as the server finds it)")
    p.add_argument("--batch", type=integer, default=BATCH,
                   help=f"facts per batch (default {BATCH}, as the reference)")


class _Stop:
    """Ctrl+C while reembedding: the first asks to stop after the batch in hand, the second
    interrupts at once (KeyboardInterrupt; the batch's transaction rolls back)."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self, signum: int, frame: object) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        say("stopping after this batch (Ctrl+C again to stop now)…")


@contextmanager
def _ctrl_c() -> Iterator[_Stop]:
    stop = _Stop()
    try:
        previous = signal.signal(signal.SIGINT, stop)
    except ValueError:  # not the main thread: Ctrl+C stays a KeyboardInterrupt
        yield stop
        return
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def _progress_line(done: int, todo: int, arrived: int, carrying: int) -> str:
    """``embedded D of T``: T is what lacked a vector at the start plus the facts that
    arrived since (an agent writing meanwhile), so D never exceeds it."""
    since = f"{arrived:,} written since reembed began; " if arrived else ""
    return f"embedded {done:,} of {todo + arrived:,} ({since}{carrying:,} facts now carry vectors)"


def cmd_reembed(args: argparse.Namespace) -> int:
    from . import embed
    from .embed.notes import model_note

    batch = args.batch
    if batch < 1:
        raise UsageError(f"--batch must be a positive integer, got {batch}")
    problem = embed.runtime_problem()
    if problem is not None:
        raise UsageError(f"reembed needs the embedding model: {problem}")
    with Store.open(args.db) as store:
        if store.readonly:  # say so before downloading anything
            why = f" because {store.readonly_reason}" if store.readonly_reason else ""
            raise UsageError(f"{store.path} is open read-only{why}; nothing was embedded")
        if not store.vec_enabled:
            from .store import vector_ext

            say(f"warning: {vector_ext.problem() or 'sqlite-vec did not load'}; embeddings are "
                "stored but recall here cannot query them")
        try:
            embedder = embed.load(progress=download_lines())
        except embed.ModelError as exc:
            raise UsageError(str(exc)) from None
        model = embedder.name  # from its files: BGE's name only for BGE's files
        note = model_note(store, model, embedder.dim)
        if note:
            say(note)
        todo = store.count_embed_targets(model)
        total = arrived = 0
        with _ctrl_c() as stop:
            try:
                while not stop.requested:
                    targets = store.embed_targets(model, batch)
                    if not targets:
                        break
                    vectors = embedder.embed_documents([t.document_text for t in targets])
                    store.set_embeddings([(t.id, v) for t, v in zip(targets, vectors,
                                                                      strict=True)], model)
                    total += len(targets)
                    if total > todo + arrived:  # the agent wrote facts since the count
                        arrived = total + store.count_embed_targets(model) - todo
                    say(_progress_line(total, todo, arrived, store.embedded_count()))
            except KeyboardInterrupt:
                stop.requested = True
        if stop.requested:
            left = store.count_embed_targets(model)
            say(f"reembed cancelled: {total:,} fact(s) embedded with {model}; {left:,} still "
                "lack one (run reembed again to continue)")
            return 130
    say(f"reembed done: {total:,} fact(s) embedded with {model}.")
    return 0
