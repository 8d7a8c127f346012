"""parse_source_ref and path normalization (SPEC §8 cases and more)."""

from __future__ import annotations

import pytest

from memharness_tui.staleness.pins import (
    Pin,
    is_sha_like,
    normalize_path,
    parse_source_ref,
    short_sha,
)

SHA40 = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        # SPEC §8 cases
        (f"m@{SHA40}:packages/core/src/sql.ts", Pin(SHA40, "packages/core/src/sql.ts")),
        (f"m@{SHA40}", Pin(SHA40, None)),
        ("a1b2c3d", Pin("a1b2c3d", None)),
        ("  a1b2c3d4e5  ", Pin("a1b2c3d4e5", None)),
        ("repo@a1b2c3d", Pin("a1b2c3d", None)),
        # more of our own
        (f"m@{SHA40.upper()}:src/X.py", Pin(SHA40, "src/X.py")),
        (f"memharness@{SHA40}:./src//a.py", Pin(SHA40, "src/a.py")),
        (f"m@{SHA40}:src/a.py#L10-L20", Pin(SHA40, "src/a.py")),
        (f"m@{SHA40}:src/a.py:42", Pin(SHA40, "src/a.py")),
        (f"m@{SHA40}:", Pin(SHA40, None)),
        (f"read m@{SHA40}:src/a.py during review", Pin(SHA40, "src/a.py")),
        (f"github.com/o/r@{SHA40}:docs/", Pin(SHA40, "docs")),
        ("session-a1b2c3d", Pin("a1b2c3d", None)),
        ("A1B2C3D", Pin("a1b2c3d", None)),
        ("commit a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0", Pin("a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0", None)),
    ],
)
def test_pins(ref: str, expected: Pin) -> None:
    assert parse_source_ref(ref) == expected


@pytest.mark.parametrize(
    "ref",
    [
        # SPEC §8 cases
        "https://example.com/abc123def456/page",
        "bundle.a1b2c3d4.js",
        "src/a1b2c3d4e5f6.ts",
        "auth.ts",
        "session-1",
        "user",
        "ghijkl",
        "",
        "   ",
        "\t\n",
        None,
        # more of our own
        "a1b2c3",  # 6 hex: too short
        "a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0ab",  # 42 hex: too long
        "session-20261130",  # all digits: a date, not a SHA
        "issue-1234567",
        "defaced",  # all letters a-f: a word
        "a1b2c3d e4f5a6b",  # two different candidates: in doubt
        f"m@{SHA40}0",  # 41 hex after @
        f"@{SHA40}:src/a.py",  # no name before @, and holds a path
        "repo@a1b2c3d:src/a.py",  # short SHA with a path: not the named form
        # a path that climbs out of the repo names nothing: no pin (not a whole-repo pin)
        f"m@{SHA40}:../x",
        f"m@{SHA40}:src/../../x.py",
        f"m@{SHA40}:../x.py#L10-L20",
        f"m@{SHA40}:a\x00b",
    ],
)
def test_not_pins(ref: str | None) -> None:
    assert parse_source_ref(ref) is None


def test_hex_run_bounded_by_non_hex_letters() -> None:
    # 'x' is not hex, so "1b2c3d4" (7 hex) is a standalone run
    assert parse_source_ref("x1b2c3d4") == Pin("1b2c3d4", None)
    # the same SHA twice is one candidate
    assert parse_source_ref("a1b2c3d then a1b2c3d again") == Pin("a1b2c3d", None)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("src/a.py", "src/a.py"),
        ("./src/a.py", "src/a.py"),
        ("src//a.py", "src/a.py"),
        ("src/./a.py", "src/a.py"),
        ("/src/a.py", "src/a.py"),
        ("src/", "src"),
        ("  src/a.py  ", "src/a.py"),
        ("/ 0", "0"),  # whitespace uncovered by a dropped "/" is stripped too
        ("src/lib/../a.py", "src/a.py"),
        ("../outside.py", ""),
        ("a\x00b", ""),
        (".", None),
        ("/", None),
        ("", None),
        ("  ", None),
        (None, None),
    ],
)
def test_normalize_path(path: str | None, expected: str | None) -> None:
    assert normalize_path(path) == expected


def test_sha_helpers() -> None:
    assert is_sha_like("a1b2c3d")
    assert is_sha_like(" A1B2C3D ")
    assert is_sha_like(SHA40)
    assert not is_sha_like("a1b2c3")
    assert not is_sha_like(SHA40 + "0")
    assert not is_sha_like("main")
    assert not is_sha_like("HEAD~1")
    assert short_sha(" ABCDEF0123 ") == "abcdef0"
