"""The repository stands on its own: no tracked file points outside it to the sibling folder."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.conftest import REPO_ROOT

# the sibling folder a checkout once needed (SIBLING), its fixtures folder, or a path built from
# parts ("shared" / "fixtures"); spelled in pieces so this file does not name them itself
SIBLING, FIXTURES = "../" + "shared", "shared" + "/fixtures"
OUTSIDE = re.compile(re.escape(SIBLING) + "|" + re.escape(FIXTURES)
                     + r"""|["']shared["']\s*/\s*["']fixtures["']""")


def tracked_text_files(root: Path) -> list[Path]:
    """Tracked files that are text (no NUL byte), leaving out SVG snapshots."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True,
                           capture_output=True).stdout.decode().split("\0")
    files = []
    for name in filter(None, names):
        path = root / name
        if name.endswith(".svg") or not path.is_file():
            continue
        if b"\0" in path.read_bytes()[:8192]:
            continue  # binary (the reference-written databases)
        files.append(path)
    return files


def offenders(root: Path) -> list[str]:
    found = []
    for path in tracked_text_files(root):
        text = path.read_text(encoding="utf-8", errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line) and path.name != "test_standalone.py":
                found.append(f"{path.relative_to(root)}:{n}")
    return found


def test_no_tracked_file_refers_to_the_shared_folder_beside_the_checkout() -> None:
    files = tracked_text_files(REPO_ROOT)
    assert any(p.name == "README.md" for p in files) and len(files) > 100  # the listing works
    assert offenders(REPO_ROOT) == []


def test_the_check_names_a_file_that_does(tmp_path: Path) -> None:
    """The same check over a tiny repository finds each spelling and names file and line."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "a.md").write_text(f"see {SIBLING}/SPEC.md\n")
    (tmp_path / "b.py").write_text('x = 1\nroot = parents[2] / "shared" / "fixtures"\n')
    (tmp_path / "c.txt").write_text(f"MEMHARNESS_FIXTURES=/x/{FIXTURES}\n")
    (tmp_path / "ok.md").write_text("a shared 2-core machine\n")
    (tmp_path / "snap.svg").write_text(f"{SIBLING}\n")
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True)
    assert offenders(tmp_path) == ["a.md:1", "b.py:2", "c.txt:1"]


def test_every_spec_section_the_code_cites_is_in_docs_spec() -> None:
    """Comments cite "SPEC §N": the contract is docs/spec.md, and section N is there."""
    spec = (REPO_ROOT / "docs" / "spec.md").read_text(encoding="utf-8")
    headings = {int(n) for n in re.findall(r"^## (\d+)\. ", spec, flags=re.MULTILINE)}
    cited = set()
    for path in tracked_text_files(REPO_ROOT):
        if path.suffix in (".py", ".md", ".toml"):
            text = path.read_text(encoding="utf-8", errors="replace")
            cited |= {int(n) for n in re.findall(r"SPEC §(\d+)", text)}
    assert len(cited) >= 10  # the code cites most sections
    assert cited <= headings
    assert headings == set(range(1, 12))
    assert '"SPEC §N" refer to section N of this document' in spec
    for doc in ("README.md", "docs/development.md"):
        assert "spec.md" in (REPO_ROOT / doc).read_text(encoding="utf-8")
