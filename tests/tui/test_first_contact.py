"""Issue #12 "On screen": what a new user meets — the empty-store welcome, column sizing,
the detail screen's keys and word diff, form prefills, provenance and the repo editor."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from memharness_tui.store import FakeClock, Store
from memharness_tui.tui.screens.fact_form import NewFactScreen
from memharness_tui.tui.screens.main import MainScreen
from memharness_tui.tui.widgets.results_table import ResultsTable

from .conftest import CLOCK_START, make_app, settle


def plain(widget: Static) -> str:
    return widget.render().plain  # type: ignore[union-attr]


def fresh_opener(path: Path):
    clock = FakeClock(CLOCK_START, 60_000)
    return lambda: Store.open(str(path), clock=clock)


async def test_empty_store_welcomes_and_new_file_is_announced(tmp_path, config_dir):
    path = tmp_path / "new.db"
    app = make_app(fresh_opener(path), config_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        welcome = screen.query_one("#welcome", Static)
        assert welcome.display and not screen.query_one("#tabs").display
        text = plain(welcome)
        assert str(path) in text and "--demo" in text and "add a fact" in text
        assert "new file" in text
        notes = [n.message for n in app._notifications]
        assert any("New, empty store" in m and str(path) in m for m in notes)
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, NewFactScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert not path.exists() or path.stat().st_size == 0  # looking writes nothing
        other = Store.open(str(path), clock=FakeClock(CLOCK_START, 60_000))
        other.remember("deploy", "Deploys go through staging")
        other.close()
        await pilot.press("r")
        await settle(pilot)
        assert not welcome.display and screen.query_one("#tabs").display
        assert screen.query_one("#results", ResultsTable).row_count == 1


async def test_existing_store_is_not_announced_as_new(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert not app.screen.query_one("#welcome").display
        assert not any("New, empty store" in n.message for n in app._notifications)


def add_big_id(store: Store, fact_id: int) -> None:
    """A row with a seven-digit id (as on a store past a million facts)."""
    with store.conn:
        store.conn.execute(
            "INSERT INTO facts (id, subject, fact, valid_from, tx_at) VALUES (?, 'big', "
            "'A fact with a seven digit id', ?, ?)", (fact_id, CLOCK_START, CLOCK_START))


async def test_id_column_fits_the_largest_id(sample, config_dir):
    store, _ = sample
    add_big_id(store, 1_234_567)
    app = make_app(store, config_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#results", ResultsTable)
        row = table.row_keys().index("1234567")
        table.move_cursor(row=row)
        await settle(pilot)
        first = table.render_line(row - int(table.scroll_y) + 1).text
        assert "1234567" in first and "…  big" not in first
        layout = dict(table._layout(table.scrollable_content_region.width))
        keys = [c.key for c in table.columns]
        assert layout[keys.index("id")] == 7


async def test_recall_at_80_columns_gives_fact_priority_over_subject(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#results", ResultsTable)
        keys = [c.key for c in table.columns]
        layout = dict(table._layout(table.scrollable_content_region.width))
        fact, subject = layout[keys.index("fact")], layout[keys.index("subject")]
        assert fact >= 40 and subject < 16 and fact > 3 * subject
        assert "Sessions expire after 90 minutes" in "".join(
            table.render_line(y).text for y in range(1, table.row_count + 1))


async def show_subject(pilot, subject: str, history: bool = True) -> None:
    await settle(pilot)  # the main screen is up
    await pilot.press("2")
    await settle(pilot)
    pane = pilot.app.screen.query_one("#subjects-pane")
    pane.choose(subject)
    pane.include_history = history
    await settle(pilot)


def fact_table_widths(app) -> dict[str, int]:
    from textual.widgets import DataTable

    table = app.screen.query_one("#subject-facts", DataTable)
    assert table.virtual_size.width <= table.size.width  # nothing off screen to the right
    return {str(k.value): c.width for k, c in table.columns.items()}


async def test_subject_facts_fit_at_160_with_history(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await show_subject(pilot, "deploy")  # an unresolved pin: the longest freshness label
        widths = fact_table_widths(app)
        assert list(widths) == ["id", "fact", "status", "predicate", "conf", "fresh", "learned"]
        assert widths["fresh"] >= len("? unresolved") and widths["learned"] >= 10
        app.screen.query_one("#subjects-pane").choose("auth")
        await settle(pilot)
        widths = fact_table_widths(app)
        assert widths["status"] >= len("superseded → #20") and widths["fact"] >= 40


async def test_subject_facts_drop_whole_columns_when_narrow(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await show_subject(pilot, "auth")
        widths = fact_table_widths(app)
        assert {"id", "fact", "status"} <= set(widths)
        assert widths["fact"] >= 24
        labels = {"id": 2, "fact": 4, "status": 6, "predicate": 9, "conf": 4, "fresh": 9,
                  "learned": 7}
        assert all(widths[k] >= labels[k] for k in widths)  # never squeezed below a label


LONG_V1 = ("The deploy pipeline builds the wheel, runs the full test suite on Python 3.11 "
           "and 3.12, and then publishes the result to the internal package index")
LONG_V2 = LONG_V1.replace("3.11 and 3.12", "3.12 and 3.13")


def add_near_identical_chain(store: Store) -> tuple[int, int]:
    old, _ = store.remember("ci", LONG_V1, predicate="pipeline")
    new = store.revise(old, LONG_V2)[1]
    return old, new


async def test_detail_scrolls_with_page_keys_while_the_chain_has_focus(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.open_fact(info.chain[1])
        await settle(pilot)
        screen = app.screen
        body = screen.query_one("#detail-body")
        assert screen.focused is screen.query_one("#chain")
        assert body.max_scroll_y > 0 and body.scroll_y == 0
        await pilot.press("pagedown")
        await settle(pilot)
        assert body.scroll_y > 0
        await pilot.press("end")
        await settle(pilot)
        assert body.scroll_y == body.max_scroll_y
        await pilot.press("home")
        await settle(pilot)
        assert body.scroll_y == 0 and screen.focused is screen.query_one("#chain")


async def test_chain_shows_the_words_that_differ(sample, config_dir):
    store, _ = sample
    old, new = add_near_identical_chain(store)
    app = make_app(store, config_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.open_fact(new)
        await settle(pilot)
        tree = app.screen.query_one("#chain")
        labels = {n.data: n.label for n in tree.root.children}
        assert "3.11 and 3.12" in labels[old].plain and "3.12 and 3.13" in labels[new].plain
        changed = {labels[new].plain[s.start:s.end] for s in labels[new].spans
                   if "underline" in str(s.style)}
        assert changed == {"3.12", "3.13,"}


async def test_rewrite_form_starts_from_the_facts_own_values(sample, config_dir):
    from textual.widgets import Input, Select

    from memharness_tui.tui.screens.fact_form import ReviseFormScreen

    store, _ = sample
    fact_id, _ = store.remember("ops", "Backups run nightly", confidence=0.5, importance=8,
                                kind="procedural")
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        fact = await app.service.get(fact_id)
        app.push_screen(ReviseFormScreen(fact, head=None))
        await settle(pilot)
        form = app.screen
        assert form.query_one("#form-confidence", Input).value == "0.5"
        assert form.query_one("#form-importance", Input).value == "8"
        assert form.query_one("#form-kind", Select).value == "procedural"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(app.screen, ReviseFormScreen)
    new = store.get(store.get(fact_id).superseded_by)
    assert (new.confidence, new.importance, new.kind) == (0.5, 8, "procedural")
    assert new.source_agent == "memharness-tui/rewrite"


async def test_repo_editor_list_has_a_highlighted_row_and_delete_removes_it(sample, config_dir):
    from textual.widgets import OptionList

    from memharness_tui.tui.screens.repos import ReposScreen

    store, _ = sample
    app = make_app(store, config_dir)
    repos = ["/srv/one", "/srv/two", "/srv/three"]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        results: list[object] = []
        app.push_screen(ReposScreen(repos), results.append)
        await settle(pilot)
        options = app.screen.query_one("#repo-list", OptionList)
        assert app.screen.focused is app.screen.query_one("#repo-add")
        await pilot.press("tab")
        await settle(pilot)
        assert app.screen.focused is options and options.highlighted == 0
        await pilot.press("down", "delete")
        await settle(pilot)
        assert [o.id for o in options._options] == ["/srv/one", "/srv/three"]
        assert options.highlighted == 1  # the next one, still visibly highlighted
        await pilot.press("delete")
        await settle(pilot)
        assert [o.id for o in options._options] == ["/srv/one"]
        assert options.highlighted == 0
        await pilot.press("escape")
        await settle(pilot)
    assert results == [["/srv/one"]]


def _user_facing_strings() -> list[tuple[str, int, str]]:
    """Every string literal in the package that is not a docstring (file, line, text)."""
    import ast

    import memharness_tui

    root = Path(memharness_tui.__file__).parent
    found = []
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                body = node.body
                if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value,
                                                                          ast.Constant):
                    docstrings.add(id(body[0].value))
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                docstrings.add(id(node.value))  # attribute docstrings
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and id(node) not in docstrings):
                found.append((path.name, node.lineno, node.value))
    return found


def test_no_user_facing_text_cites_the_spec():
    cited = [(f, line, text) for f, line, text in _user_facing_strings()
             if "SPEC" in text and "§" in text]
    assert cited == []


async def test_palette_has_one_theme_command_and_the_picker_marks_the_current_theme(
        sample, config_dir):
    from memharness_tui.tui.screens.modals import ThemePicker

    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Theme" not in titles and "Quit" in titles
        from memharness_tui.tui.commands import AppCommands

        ours = [title for title, _help, _cb in AppCommands(app.screen).entries()]
        assert [t for t in ours if t.startswith("Theme")] == ["Theme: pick…"]
        current = app.theme
        app.action_pick_theme()
        await settle(pilot)
        assert isinstance(app.screen, ThemePicker)
        options = app.screen.query_one("#theme-list")
        marked = [o.id for o in options._options if "(current)" in o.prompt.plain]
        assert marked == [current]
        assert options.get_option_at_index(options.highlighted).id == current
