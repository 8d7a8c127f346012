"""A hygiene fix from key to write: ask what the fix needs (the editors), plan it, preview the
rows (by id), and on yes apply it in one transaction and say exactly what was written.

The Hygiene tab posts ``HygienePane.Fix``; the main screen runs :func:`run_fix` in a worker.
Several flags (marked rows) make one plan (``Plan + Plan``) and one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from memharness_tui.tui.screens.hygiene_edit import MergeEditor, PinEditor, SplitEditor
from memharness_tui.tui.screens.hygiene_preview import PlanPreview

if TYPE_CHECKING:
    from memharness_tui.hygiene import Applied, Plan
    from memharness_tui.tui.app import MemharnessApp
    from memharness_tui.tui.widgets.hygiene import Flag

__all__ = ["notice", "run_fix"]


def _ids(ids: Sequence[int]) -> str:
    return ", ".join(f"#{i}" for i in ids)


def notice(plan: Plan, applied: Applied) -> str:
    """What was written, by id (the truth from the transaction, not the plan)."""
    said = []
    if applied.new_ids:
        n = len(applied.new_ids)
        said.append(f"wrote {n} new fact{'s' if n != 1 else ''} ({_ids(applied.new_ids)})")
    if applied.superseded:
        said.append("superseded " + ", ".join(f"#{o} → #{n}" for o, n in applied.superseded))
    if applied.retracted:
        said.append(f"retracted {_ids(applied.retracted)}")
    return f"{plan.fix.title()}: " + "; ".join(said) + "."


def disagreements_line(flag: Flag) -> str | None:
    """What the group's members disagree on ("#3 says port 8080, #5 says 9090"), or None."""
    from memharness_tui.hygiene.contradictions import group_disagreements

    found = group_disagreements([t for _, t in flag.texts])
    if not found:
        return None
    ids = [i for i, _ in flag.texts]
    return "; ".join(f"#{ids[i]} says {d.topic} {d.a}, #{ids[j]} says {d.b}"
                     for i, j, d in found[:4])


async def _disagreement_asked(app: MemharnessApp, flag: Flag, single: bool) -> bool:
    """A group whose members disagree on a value is folded only once the person chose to pick
    the true text (one group at a time); False: cancelled, or refused in a bulk merge."""
    line = disagreements_line(flag)
    if line is None:
        return True
    if not single:
        from memharness_tui.store.errors import InvalidInput

        raise InvalidInput(f"these facts disagree ({line}); merge that group on its own to "
                           "choose which is true — nothing was written")
    from memharness_tui.tui.screens.confirm import ConfirmScreen

    asked: bool = await app.push_screen_wait(ConfirmScreen(
        "These facts disagree", f"{line}. Which is true? Merge keeps one text: pick or edit "
        "the true one next.", confirm="Choose the true text"))
    return asked


async def _plan(app: MemharnessApp, fix: str, flags: Sequence[Flag]) -> Plan | None:
    """Ask what the fix needs and plan it (None: the person cancelled)."""
    svc = app.hygiene
    single = len(flags) == 1
    plans: list[Plan] = []
    if fix == "merge":
        for f in flags:  # several groups: each keeps its lowest id's text
            if not await _disagreement_asked(app, f, single):
                return None
            text = await app.push_screen_wait(MergeEditor(f.texts)) if single else f.texts[0][1]
            if text is None:
                return None
            plans.append(await svc.plan_merge(f.ids, str(text)))
    elif fix == "refile":
        for f in flags:
            plans.append(await svc.plan_refile(f.ids, f.target or f.subject))
    elif fix == "split":
        from memharness_tui.hygiene import split_parts
        from memharness_tui.store.errors import InvalidInput

        for f in flags:
            fid, text = f.texts[0]
            parts: object = split_parts(text)
            if not single and len(split_parts(text)) < 2:
                raise InvalidInput(f"#{fid} has no sentence end or semicolon to split at; "
                                   "split it on its own (unmark the others), nothing was written")
            if single:
                parts = await app.push_screen_wait(SplitEditor(fid, text, split_parts(text)))
                if parts is None:
                    return None
            plans.append(await svc.plan_split(fid, list(parts)))  # type: ignore[call-overload]
    elif fix == "pin":
        from memharness_tui.tui.services.git import repos_head

        ids = [i for f in flags for i in f.ids]
        await app.repo_prefs.known()
        repos = list(app.repos)
        answer = await app.push_screen_wait(PinEditor(ids, repos=repos,
                                                      head=await repos_head(repos)))
        if answer is None:
            return None
        commit, path = cast("tuple[str, str | None]", answer)
        plans.append(await svc.plan_pin(ids, commit, path))
    elif fix == "retract":
        plans.append(await svc.plan_retract([i for f in flags for i in f.ids]))
    else:
        raise ValueError(f"unknown hygiene fix {fix!r}")
    plan = plans[0]
    for more in plans[1:]:
        plan = plan + more
    return plan


async def run_fix(app: MemharnessApp, fix: str, flags: Sequence[Flag]) -> None:
    """The whole fix (run in a worker: it waits for modals). Refusals reach the app's one
    error handler; nothing is written unless the preview was confirmed."""
    if fix == "purge":
        from memharness_tui.tui.screens.purge import run_purge

        await run_purge(app, flags[0].ids[0])
        return
    if app.readonly:
        app.notify("This database is open read-only: nothing can be fixed here.",
                   severity="warning")
        return
    plan = await _plan(app, fix, flags)
    if plan is None or not await app.push_screen_wait(PlanPreview(plan)):
        app.notify("Nothing was written.", title="Hygiene")
        return
    applied = await app.hygiene.apply(plan)
    app.notify(notice(plan, applied), title="Hygiene", timeout=8)
