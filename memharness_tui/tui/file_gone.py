"""The file under the app was replaced or deleted (``mv other.db memory.db``, ``rm``).

The store notices before each write and on the live-refresh poll (``Store.check_file``),
lets go of the old file, and raises ``FileReplaced`` with one sentence. Here the app says so
once and offers to reopen the path: the file that is there now, or a new, empty store.
"""

from __future__ import annotations

from typing import Any

DETAIL = ("Nothing more is written to the old file. Reopen opens what is at this path now "
          "(a new, empty store if nothing is); until then every read and write is refused.")


def notice(app: Any, message: str, *, again: bool = False) -> None:
    """Say it, with the offer to reopen: once per problem from the poll; ``again`` when an
    action the user asked for was refused (they may have said "not now" before)."""
    from memharness_tui.tui.screens.confirm import ConfirmScreen

    if getattr(app, "_file_gone_shown", None) == message and not again:
        return
    screen = app.screen
    if isinstance(screen, ConfirmScreen) and screen.title_text == message:
        return  # it is on screen now
    app._file_gone_shown = message

    async def answered(ok: bool | None) -> None:
        if ok:
            await reopen(app)

    app.push_screen(ConfirmScreen(message, DETAIL, confirm="Reopen"), answered)


async def reopen(app: Any) -> None:
    """Open the path again; every pane reloads (the service reports it as a write)."""
    try:
        info, _ = await app.service.reopen()
    except Exception as exc:  # noqa: BLE001 - the app's one error handler shows it
        app.report_error(exc)
        return
    app._file_gone_shown = None
    app._data_version = None
    app.info = info
    app.sub_title = info.path
    app.readonly = info.readonly
    app.notify(f"Reopened {info.path}" + (" — a new, empty store" if info.is_new else ""),
               title="reopened", timeout=6)
