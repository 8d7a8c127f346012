"""Follow mode's decision rule (no app, no git): a pass is due once HEAD has settled."""

from __future__ import annotations

from memharness_tui.tui.widgets.staleness.follow import Follower


class Source:
    def __init__(self, head: str | None) -> None:
        self.head = head

    def read(self) -> str | None:
        return self.head

    def subject(self, sha: str) -> str:
        return f"msg {sha}"


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_due_only_after_head_settles_and_once_per_change() -> None:
    src, clock = Source("a" * 40), Clock()
    f = Follower([src], settle=3.0, clock=clock)
    assert f.due() is None  # nothing moved
    src.head = "b" * 40
    assert f.due() is None  # moved just now
    clock.t = 2.0
    src.head = "c" * 40  # a rebase still replaying: the timer restarts
    assert f.due() is None
    clock.t = 4.9
    assert f.due() is None
    clock.t = 5.0
    assert f.due() == [("c" * 40, "msg " + "c" * 40)]
    clock.t = 20.0
    assert f.due() is None  # reported once


def test_moving_away_and_back_is_nothing_new() -> None:
    src, clock = Source("a" * 40), Clock()
    f = Follower([src], settle=1.0, clock=clock)
    src.head = "b" * 40
    assert f.due() is None
    src.head = "a" * 40
    clock.t = 0.5
    assert f.due() is None
    clock.t = 2.0
    assert f.due() is None


def test_only_the_repos_that_moved_are_named() -> None:
    one, two, clock = Source("a" * 40), Source("1" * 40), Clock()
    f = Follower([one, two], settle=0, clock=clock)
    two.head = "2" * 40
    assert f.due() == [("2" * 40, "msg " + "2" * 40)]
    one.head = None  # an unborn / unreadable HEAD is not a change to report
    assert f.due() is None
