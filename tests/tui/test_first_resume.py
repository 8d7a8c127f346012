"""A screen is not re-styled whole on its first resume, right after it was composed
(tui/perf/frames.py, issue #26's cold start); later resumes re-style as Textual does."""

from __future__ import annotations

from textual.css.stylesheet import Stylesheet

from memharness_tui.tui.screens.detail import FactDetailScreen

from .conftest import make_app, settle


async def test_first_resumes_do_not_restyle_whole_screens_later_ones_do(
        sample, config_dir, monkeypatch):
    store, info = sample
    restyled: list[tuple[str, int]] = []  # (the screen shown, how many nodes) per re-style
    update_nodes = Stylesheet.update_nodes

    def counted(self: Stylesheet, nodes, animate: bool = False) -> None:
        nodes = list(nodes)
        if len(nodes) > 10:  # a whole screen, not a focus change's few widgets
            restyled.append((type(nodes[0]).__name__, len(nodes)))
        update_nodes(self, nodes, animate)

    monkeypatch.setattr(Stylesheet, "update_nodes", counted)
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)  # the main screen pushed, the fact detail built ahead (and popped)
        assert restyled == []
        app.open_fact(info.stale)  # the kept detail screen's second resume: re-styled whole
        await settle(pilot)
        assert isinstance(app.screen, FactDetailScreen)
        assert restyled and {name for name, _n in restyled} == {"FactDetailScreen"}
