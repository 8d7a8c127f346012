"""The Hygiene tab (issue #23): the scan's flags by kind, each fix previewed and applied in one
transaction, bulk over marked rows, cancel, read-only gating, time travel and live writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.demo import add_hygiene_examples
from memharness_tui.store import FakeClock, Store
from memharness_tui.tui.screens.hygiene_edit import MergeEditor, PinEditor, SplitEditor
from memharness_tui.tui.screens.hygiene_preview import PlanPreview

from .conftest import CLOCK_START, build_sample, drain, make_app, settle

DAY = 86_400_000


@pytest.fixture
def hyg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The sample store plus the demo's hygiene examples (written 30 days after the sample),
    at a relative path (the same on screen every run); yields (store, before-examples time)."""
    monkeypatch.chdir(tmp_path)
    clock = FakeClock(CLOCK_START, 60_000)
    store, _ = build_sample(Path("memory.db"), clock)
    clock.advance(30 * DAY)
    before = clock.peek()
    clock.advance(DAY)
    add_hygiene_examples(store)
    yield store, before
    store.close()


def app_on(store: Store, tmp_path: Path, *, readonly: bool = False, **kw):
    path, frozen = str(store.path), FakeClock(store.clock.peek(), step_ms=1000)
    return make_app(lambda: Store.open(path, clock=frozen, readonly=readonly),
                    tmp_path / "config", **kw)


async def open_tab(pilot) -> object:
    await settle(pilot)
    await pilot.press("5")
    await settle(pilot)
    return pilot.app.screen.query_one("#hygiene-pane")


async def highlight(pilot, pane, kind: str, subject: str | None = None) -> object:
    row = next(n for n, f in enumerate(pane.flags)
               if f.kind == kind and subject in (None, f.subject))
    pane.query_one("#hygiene-table").move_cursor(row=row)
    await settle(pilot)
    return pane.flags[row]


async def until(pilot, cond, what: str = "the screen") -> None:
    """Wait for ``cond()`` (not ``settle``: the fix's worker waits for the modal to close)."""
    for _ in range(500):
        await pilot.pause(0.01)
        if cond():
            await drain(pilot)
            return
    raise AssertionError(f"{what} never came")


async def modal(pilot, kind: type) -> object:
    await until(pilot, lambda: isinstance(pilot.app.screen, kind), kind.__name__)
    return pilot.app.screen


def live(store: Store, subject: str) -> list:
    return store.list_facts(subject, limit=500)


async def test_demo_store_shows_a_flag_of_every_kind(tmp_path: Path):
    from memharness_tui.demo import ensure_demo

    db, _repo = ensure_demo(tmp_path / "cache")
    app = make_app(lambda: Store.open(str(db)), tmp_path / "config")
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        kinds = {f.kind for f in pane.flags}
        assert kinds == {"near-duplicate", "fragmentation", "code-map", "compound", "over-limit",
                         "chain", "stale", "unresolved"}
        dup = next(f for f in pane.flags if f.kind == "near-duplicate")
        assert len(dup.ids) == 3 and dup.similarity == pytest.approx(1.0)
        frag = next(f for f in pane.flags if f.kind == "fragmentation")
        assert frag.target == "project:tiny-shop" and len(frag.ids) == 2
        table = pane.query_one("#hygiene-table")
        assert table.row_count == len(pane.flags)
        shown = " ".join(str(c) for c in table.get_row(dup.key))
        assert "#" + str(dup.ids[0]) in shown and "sim 1.00" in shown
        status = str(pane.query_one("#hygiene-status").render())
        assert "flags over" in status


async def test_merge_is_edited_previewed_and_written(hyg, tmp_path: Path):
    store, _ = hyg
    app = app_on(store, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        dup = await highlight(pilot, pane, "near-duplicate")
        await pilot.press("m")
        editor = await modal(pilot, MergeEditor)
        editor.query_one("#merge-text").text = "Prefers short answers, code first"
        await pilot.press("ctrl+s")
        preview = await modal(pilot, PlanPreview)
        table = preview.query_one("#preview-rows")
        rows = [" ".join(str(c) for c in table.get_row_at(n)) for n in range(table.row_count)]
        assert rows[0].startswith("write new 1 ← " + ", ".join(f"#{i}" for i in dup.ids))
        assert [r.split()[1] for r in rows[1:]] == [f"#{i}" for i in dup.ids]
        await pilot.press("y")
        await settle(pilot)
        new = [f for f in live(store, dup.subject)
               if f.source_agent == "memharness-tui/merge"]
        assert len(new) == 1 and new[0].fact == "Prefers short answers, code first"
        for old in dup.ids:
            assert store.get(old).superseded_by == new[0].id
        assert dup.key not in {f.key for f in pane.flags}
        notes = [n.message for n in app._notifications]
        assert any(f"wrote 1 new fact (#{new[0].id})" in m and
                   f"#{dup.ids[0]} → #{new[0].id}" in m for m in notes), notes


async def test_refile_moves_the_fragments_into_the_canonical_subject(hyg, tmp_path: Path):
    store, _ = hyg
    app = app_on(store, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        frag = await highlight(pilot, pane, "fragmentation")
        await pilot.press("f")
        await modal(pilot, PlanPreview)
        assert app.screen.plan.touched == sorted(frag.ids)
        await pilot.press("y")
        await settle(pilot)
        moved = [f for f in live(store, "project:tiny-shop")
                 if f.source_agent == "memharness-tui/refile"]
        assert len(moved) == len(frag.ids)
        assert not live(store, "project:TinyShop") and not live(store, "project:tiny_shop")
        assert "fragmentation" not in {f.kind for f in pane.flags}


async def test_split_edits_the_parts_and_writes_one_fact_each(hyg, tmp_path: Path):
    store, _ = hyg
    app = app_on(store, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        flag = await highlight(pilot, pane, "compound")
        await pilot.press("s")
        await modal(pilot, SplitEditor)
        assert app.screen.query_one("#split-parts").text == (
            "Staging deploys run on every push\nProduction deploys need a tag")  # capitalised
        await pilot.press("ctrl+s")
        await modal(pilot, PlanPreview)
        await pilot.press("y")
        await settle(pilot)
        parts = {f.fact for f in live(store, "deploy")
                 if f.source_agent == "memharness-tui/split"}
        assert parts == {"Staging deploys run on every push", "Production deploys need a tag"}
        assert store.get(flag.ids[0]).superseded_by is not None
        assert flag.key not in {f.key for f in pane.flags}


async def test_pin_and_retract_a_code_map(hyg, tmp_path: Path):
    store, _ = hyg
    app = app_on(store, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        flag = await highlight(pilot, pane, "code-map")
        await pilot.press("p")
        await modal(pilot, PinEditor)
        app.screen.query_one("#pin-commit").value = "c" * 40
        app.screen.query_one("#pin-path").value = "src/app.py"
        await pilot.press("ctrl+s")
        await modal(pilot, PlanPreview)
        await pilot.press("n")  # cancelled: nothing written
        await settle(pilot)
        assert store.get(flag.ids[0]).superseded_by is None
        await pilot.press("p")
        await modal(pilot, PinEditor)
        app.screen.query_one("#pin-commit").value = "c" * 40
        app.screen.query_one("#pin-path").value = "src/app.py"
        await pilot.press("ctrl+s")
        await modal(pilot, PlanPreview)
        await pilot.press("y")
        await settle(pilot)
        new = store.get(store.get(flag.ids[0]).superseded_by)
        assert (new.source_commit, new.source_path, new.source_agent) == (
            "c" * 40, "src/app.py", "memharness-tui/pin")
        assert "code-map" not in {f.kind for f in pane.flags}  # pinned: not flagged any more

    app = app_on(store, tmp_path)  # a second code map, retracted
    extra, _ = store.remember("project:tiny-shop", "Map: " + (
        "src/a.py calls src/b.py which reads src/c.py and writes through src/d.py; " * 4))
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        flag = await highlight(pilot, pane, "code-map")
        assert flag.ids == (extra,)
        await pilot.press("d")
        await modal(pilot, PlanPreview)
        await pilot.press("y")
        await settle(pilot)
        assert store.get(extra).retracted_at is not None


async def test_bulk_split_over_marked_rows_is_one_confirmation(hyg, tmp_path: Path):
    store, _ = hyg
    app = app_on(store, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        a = await highlight(pilot, pane, "compound")
        await pilot.press("space")
        b = await highlight(pilot, pane, "over-limit", "project:tiny-shop")
        await pilot.press("space")
        await settle(pilot)
        assert pane.marked == {a.key, b.key}
        await pilot.press("s")  # several marked: no editor, the proposed parts
        preview = await modal(pilot, PlanPreview)
        line = str(preview.query_one("#preview-line").render())
        assert f"#{a.ids[0]}" in line and f"#{b.ids[0]}" in line
        await pilot.press("y")
        await settle(pilot)
        assert store.get(a.ids[0]).superseded_by and store.get(b.ids[0]).superseded_by
        assert not pane.marked


async def test_bulk_split_refuses_a_fact_with_nowhere_to_split(hyg, tmp_path: Path):
    store, _ = hyg
    app = app_on(store, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        a = await highlight(pilot, pane, "compound")
        await pilot.press("space")
        b = await highlight(pilot, pane, "over-limit", "hostile")  # one run of 9,990 letters
        await pilot.press("space", "s")
        await settle(pilot)
        notes = [n.message for n in app._notifications]
        assert any(f"#{b.ids[0]} has no sentence end or semicolon" in m for m in notes), notes
        assert store.get(a.ids[0]).superseded_by is None  # nothing written


async def test_cancel_stops_the_scan_and_writes_nothing(hyg, tmp_path: Path):
    store, _ = hyg
    app = app_on(store, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        before = list(pane.flags)
        pane.reload()
        assert pane.scanning and pane.check_action("cancel_scan", ()) is True
        pane.action_cancel_scan()  # before the scanning thread read its first rows
        await settle(pilot)
        assert not pane.scanning
        assert "Scan cancelled" in str(pane.query_one("#hygiene-status").render())
        assert pane.flags == before
        await pilot.press("r")  # scans again
        await settle(pilot)
        assert "flags over" in str(pane.query_one("#hygiene-status").render())


async def test_read_only_store_disables_every_fix(hyg, tmp_path: Path):
    store, _ = hyg
    app = app_on(store, tmp_path, readonly=True)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        assert pane.flags
        await highlight(pilot, pane, "near-duplicate")
        for key, fix in (("m", "merge"), ("f", "refile"), ("s", "split"), ("p", "pin"),
                         ("d", "retract")):
            assert pane.check_action("fix", (fix,)) is None
            await pilot.press(key)
            await settle(pilot)
            assert app.screen is pane.screen, key
        assert "read-only" in str(pane.query_one("#hygiene-status").render())


async def test_time_travel_scans_the_past_and_disables_fixes(hyg, tmp_path: Path):
    store, before = hyg
    app = app_on(store, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        assert "near-duplicate" in {f.kind for f in pane.flags}
        app.as_of = before
        await settle(pilot)
        kinds = {f.kind for f in pane.flags}
        assert not kinds & {"fragmentation", "code-map", "compound", "chain"}
        assert "stale" in kinds  # the sample's own pins were there then
        await highlight(pilot, pane, "stale")
        assert pane.check_action("fix", ("merge",)) is None
        assert f"as of {before}" in str(pane.query_one("#hygiene-status").render())
        await pilot.press("T")
        await settle(pilot)
        assert "near-duplicate" in {f.kind for f in pane.flags}


async def test_another_process_writing_refreshes_the_tab(hyg, tmp_path: Path):
    store, _ = hyg
    app = app_on(store, tmp_path, poll_interval=0.05)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        assert "chain" in {f.kind for f in pane.flags}
        store.remember("notes", ("The build uses Python 3.12 on every runner; the docs build uses Sphinx "
                                 "with the furo theme"))
        for _ in range(100):
            await pilot.pause(0.05)
            await settle(pilot)
            if any(f.subject == "notes" for f in pane.flags):
                break
        assert any(f.subject == "notes" and f.kind == "compound" for f in pane.flags)


async def test_enter_on_a_stale_pin_shows_the_staleness_tab(hyg, tmp_path: Path):
    store, _ = hyg
    app = app_on(store, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        await highlight(pilot, pane, "stale")
        await pilot.press("enter")
        await settle(pilot)
        assert pane.screen.query_one("#tabs").active == "staleness"


async def test_help_lists_the_tabs_keys(hyg, tmp_path: Path):
    """Help opened on the Hygiene tab lists its keys (from the live bindings, #22), and help
    opened on a fix's editor and on its preview lists theirs."""
    from memharness_tui.tui.screens.hygiene_edit import FixEditor

    from .help_keys import classes_with_keys, documented, missing, read_help

    store, _ = hyg
    app = app_on(store, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        await highlight(pilot, pane, "near-duplicate")
        here = await read_help(pilot)
        await pilot.press("m")
        await modal(pilot, MergeEditor)
        editor = await read_help(pilot, palette=True)
        await pilot.press("ctrl+s")
        await modal(pilot, PlanPreview)
        preview = await read_help(pilot, palette=True)
    assert documented(here, "space", "Mark or unmark the highlighted flag (a fix then applies to all marked)")
    assert any("Merge a near-duplicate group" in line for line in here.splitlines())
    assert documented(here, "5", "Show the Hygiene tab")
    keys = classes_with_keys()
    assert missing(here, keys["HygienePane"]) == []
    assert missing(editor, keys["FixEditor"]) == [] and issubclass(MergeEditor, FixEditor)
    assert missing(preview, keys["PlanPreview"]) == [] and documented(preview, "y", "Apply")


async def test_hostile_text_in_flags_and_preview_is_data(hyg, tmp_path: Path):
    store, _ = hyg
    a, _ = store.remember("evil", "Config uses [red]x[/] and [link=https://evil.invalid]click[/link] \x1b[31mnow")
    b, _ = store.remember("evil", "Config uses [red]x[/] and [link=https://evil.invalid]click[/link] today")
    app = app_on(store, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        flag = await highlight(pilot, pane, "near-duplicate", "evil")
        assert flag.ids == (a, b)
        row = pane.query_one("#hygiene-table").get_row(flag.key)
        assert "[red]x[/]" in row[4].plain and "\x1b" not in row[4].plain
        detail = pane.query_one("#hygiene-detail").render()
        assert "[link=https://evil.invalid]" in str(detail) and "\x1b" not in str(detail)
        await pilot.press("m")
        editor = await modal(pilot, MergeEditor)
        assert "\x1b" not in editor.query_one("#merge-text").text
        await pilot.press("ctrl+s")
        preview = await modal(pilot, PlanPreview)
        texts = [preview.query_one("#preview-rows").get_row_at(n)[3].plain for n in range(3)]
        assert all("[red]x[/]" in t and "\x1b" not in t for t in texts)
        await pilot.press("n")
        await settle(pilot)
        assert store.get(a).superseded_by is None and store.get(b).superseded_by is None
