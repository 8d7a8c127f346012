"""The git checker. Only it, ``git_changes.py`` (what happened to a path, for triage) and
``git_head.py`` (watching HEAD) import pygit2.

One ``GitChecker`` wraps one ``pygit2.Repository``. libgit2 objects must not be
shared across threads, so each worker thread opens its own checker (cheap).

Cost model: HEAD's whole history (all parents) is walked once into a set, the
first time a pin other than HEAD is asked about; after that each pin is a
prefix lookup plus a set lookup, and path entries are cached per
(commit, path). Drift magnitude and diff text are computed only on demand.
"""

from __future__ import annotations

import contextlib
import os
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pygit2

from .pins import is_sha_like, normalize_path, normalize_sha, short_sha
from .verdicts import GitFacts, classify, classify_reached

__all__ = [
    "CorruptObject", "Drift", "GitChecker", "MissingObjects", "RepoError", "checker_for",
    "MAX_DIFF_BYTES", "MAX_DIFF_LINES", "BoundedPatch", "bounded_patch", "find_repo", "loose_damage", "size_text", "unreadable",
]

# libgit2 re-hashes every object it reads to check it against its name ("strict hash
# verification", on by default): a fifth of a 10,000-pin pass's instructions went to SHA-1
# over commits and trees already named by that SHA-1. git itself does not re-hash objects on
# ordinary reads; a damaged object still fails to inflate or parse (an unresolved verdict,
# as before). Process-wide, as every libgit2 option; this module is pygit2's one door.
pygit2.settings.enable_strict_hash_verification(False)

_MISSING = object()

#: a file bigger than this (either side) is diffed over its first MAX_DIFF_BYTES only: a 26 MB
#: file with every line changed cost minutes and gigabytes to diff and triage in full
MAX_DIFF_BYTES = 2 * 1024 * 1024
#: diff lines (all files) a diff's text or a triage reads at most; the rest is counted, not read
MAX_DIFF_LINES = 5000


class RepoError(Exception):
    """A repo that cannot be used for a pass (not a repo, empty, unreadable)."""


class MissingObjects(RepoError):
    """git could not read an object it needs (a treeless or blobless partial clone,
    a corrupt pack). A pass turns it into an ``unresolved`` verdict, never a crash."""


class CorruptObject(RepoError):
    """An object the repo has is damaged (it is there but cannot be read): a repo error,
    never a verdict. A pass writes nothing for the pins that need it and says which object."""

    def __init__(self, repo: str, oid: str, kind: str, why: str) -> None:
        self.repo, self.oid = repo, oid
        super().__init__(f"{repo}: git object {oid} ({kind}) is damaged and cannot be read "
                         f"({why}); run `git fsck` there")


def unreadable(path: Path) -> str | None:
    """Why a folder (or its ``.git``) cannot be read, when git found no repo there because of
    that: libgit2 calls a folder it may not list "not a git repository"."""
    for folder in (path, path / ".git"):
        try:
            if folder.is_dir():
                os.listdir(folder)
        except PermissionError:
            return f"{folder}: cannot be read (permission denied); check the folder's permissions"
        except OSError as e:
            return f"{folder}: cannot be read ({(e.strerror or str(e)).lower()})"
    return None


def loose_damage(git_dir: str | os.PathLike[str], oid: str) -> str | None:
    """Why the loose object file of ``oid`` is damaged (truncated, not zlib), or None when it
    is whole or not a loose object. libgit2 1.9 loops forever inflating a truncated loose
    object, so what the checker reads first is checked here, before libgit2 sees it."""
    # string paths: the pass asks once per commit's tree, and pathlib's joins cost more
    # than the read
    path = os.path.join(os.fspath(git_dir), "objects", oid[:2], oid[2:])
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None  # packed, absent (partial clone) or unreadable: libgit2 says which
    inflate = zlib.decompressobj()
    try:
        inflate.decompress(data)
    except zlib.error as e:
        return f"not a zlib stream: {e}"
    if not inflate.eof:
        return f"truncated: {len(data)} bytes end mid-stream"
    return None


def _missing(sha: str) -> str:
    return f"objects for {short_sha(sha)} are missing (partial clone?)"


def size_text(n: int) -> str:
    """``26.0 MB`` / ``512 KB`` / ``80 bytes``."""
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f} MB"
    return f"{n // 1024} KB" if n >= 1024 else f"{n} bytes"


def _head_of(data: bytes, limit: int) -> bytes:
    """The first ``limit`` bytes of ``data``, ending at a line end when there is one."""
    if len(data) <= limit:
        return data
    cut = data.rfind(b"\n", 0, limit)
    return data[: cut + 1] if cut >= 0 else data[:limit]


@dataclass(frozen=True, slots=True)
class BoundedPatch:
    """A patch and what it was made from: libgit2's patch points into the two sides' buffers,
    so they live as long as this does (a patch whose blobs were freed crashes when read)."""

    patch: pygit2.Patch
    note: str | None
    sides: tuple[object, ...]  # the two sides, or () when the patch holds its own


def bounded_patch(
    repo: pygit2.Repository, old_id: str | None, new_id: str | None, *, context_lines: int = 3,
    old_path: str | None = None, new_path: str | None = None,
) -> BoundedPatch:
    """The patch of one blob against another, and a note when it was too big to diff whole.

    Past :data:`MAX_DIFF_BYTES` on either side only the first ``MAX_DIFF_BYTES`` of each are
    diffed; the note says how big the file is and what was read (``diff too large: 26.0 MB,
    425,984 lines; read the first 2.0 MB of each side``).
    """
    names: dict[str, Any] = {k: v for k, v in (("old_as_path", old_path),
                                                ("new_as_path", new_path)) if v}
    # None: the file is new (or gone) on that side; the ids are blobs' (entries of trees)
    old = cast("pygit2.Blob | None", repo[old_id] if old_id else None)
    new = cast("pygit2.Blob | None", repo[new_id] if new_id else None)
    size = max(old.size if old is not None else 0, new.size if new is not None else 0)
    if size <= MAX_DIFF_BYTES and old is not None and new is not None:
        patch = old.diff(new, context_lines=context_lines, **names)  # type: ignore[call-arg]  # stubs omit context_lines
        return BoundedPatch(patch, None, (old, new))
    a = old.data if old is not None else b""
    b = new.data if new is not None else b""
    if size <= MAX_DIFF_BYTES:
        patch = pygit2.Patch.create_from(a, b, context_lines=context_lines, **names)
        return BoundedPatch(patch, None, (a, b))
    lines = max(a.count(b"\n"), b.count(b"\n"))
    note = (f"diff too large: {size_text(size)}, {lines:,} lines; "
            f"read the first {size_text(MAX_DIFF_BYTES)} of each side")
    a, b = _head_of(a, MAX_DIFF_BYTES), _head_of(b, MAX_DIFF_BYTES)
    patch = pygit2.Patch.create_from(a, b, context_lines=context_lines, **names)
    return BoundedPatch(patch, note, (a, b))


@dataclass(frozen=True, slots=True)
class Drift:
    """How far a path moved between a pin and HEAD.

    ``commits`` counts commits after the pin and up to HEAD that changed the path
    (every commit since the pin when no path is given). ``added``/``removed`` are
    the line counts of the diff pin → HEAD for that path (whole tree if none).
    """

    commits: int
    added: int
    removed: int
    files: int
    #: set when the file was too big to diff whole (the line counts are of what was read)
    note: str | None = None

    def describe(self) -> str:
        """E.g. ``3 commits since the pin, +12 -4 lines``."""
        noun = "commit" if self.commits == 1 else "commits"
        text = f"{self.commits} {noun} since the pin, +{self.added} -{self.removed} lines"
        return f"{text} ({self.note})" if self.note else text


def find_repo(path: str | os.PathLike[str] = ".") -> Path | None:
    """The git repo around ``path`` (a work tree, a folder inside one, or a bare repo)."""
    found = pygit2.discover_repository(str(path))
    return Path(found) if found else None


def checker_for(
    repos: list[str | os.PathLike[str]] | tuple[str | os.PathLike[str], ...], pin: str
) -> GitChecker | None:
    """The first usable repo in which ``pin`` resolves to a commit (for drift/diff on one fact)."""
    for r in repos:
        try:
            ch = GitChecker(r)
        except RepoError:
            continue
        if ch.resolve(pin)[1] is not None:
            return ch
    return None


class GitChecker:
    """Judge pins against one repo's HEAD."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        p = Path(path)
        if not p.exists():
            raise RepoError(f"{p}: no such folder")
        found = pygit2.discover_repository(str(p))
        if not found:
            raise RepoError(unreadable(p) or f"{p}: not a git repository")
        try:
            repo = pygit2.Repository(found)
        except (pygit2.GitError, KeyError, ValueError) as e:
            raise RepoError(unreadable(p) or f"{p}: cannot open git repository: {e}") from e
        if repo.head_is_unborn:
            if not any(True for _ in repo.references):
                raise RepoError(f"{p}: the git repository is empty (HEAD has no commits)")
            raise RepoError(f"{p}: HEAD is on a branch with no commits yet (unborn); check out a commit")
        self.repo = repo
        self.path = Path(repo.workdir or repo.path).resolve()
        self._repo_str = str(self.path)
        try:
            target = str(repo.head.target)
        except (pygit2.GitError, KeyError, ValueError) as e:
            raise RepoError(f"{p}: cannot read HEAD: {e}") from e
        self._check_loose(target, "HEAD's commit")
        try:
            head = repo.head.peel(pygit2.Commit)
        except (pygit2.GitError, KeyError, ValueError) as e:
            self._raise_if_damaged(target, "HEAD's commit", e)
            raise RepoError(f"{p}: cannot read HEAD: {e}") from e
        self._trees: dict[pygit2.Oid, pygit2.Tree] = {}
        # HEAD's tree is read for every path pin: a damaged one is the repo's error, found now
        with contextlib.suppress(MissingObjects):  # a bare treeless clone: judged pin by pin
            self._tree_of(head.id, head)
        self.head_commit = head
        self.head = str(head.id)
        self._head_id = head.id
        self.is_bare = repo.is_bare
        self.is_shallow = repo.is_shallow
        self._ancestors: set[pygit2.Oid] | None = None
        #: why HEAD's history could not be walked to the end (then ``ancestors`` is partial)
        self.ancestry_error: str | None = None
        self._resolve_errors: dict[str, str] = {}
        self._resolved: dict[str, tuple[str, pygit2.Commit | None, str | None]] = {}
        self._entries: dict[tuple[pygit2.Oid, str], tuple[str, bool] | None] = {}
        self._paths: dict[str | None, tuple[str | None, bool]] = {}
        self._pins: dict[str, tuple[str, pygit2.Commit | None, str | None, pygit2.Oid | None,
                                    bool, bool, str | None]] = {}
        # pin -> (commit id, commit, is HEAD, short SHA, full SHA) for a pin that resolved to
        # HEAD or an ancestor without an error; None for any other pin (see :meth:`judged`)
        self._fast: dict[str, tuple[pygit2.Oid, pygit2.Commit, bool, str, str] | None] = {}
        self._head_entries: dict[str, tuple[str, bool] | None] = {}  # HEAD's, by path

    def __repr__(self) -> str:
        return f"GitChecker({str(self.path)!r}, head={self.head[:7]})"

    # -- lookups ---------------------------------------------------------

    @property
    def ancestors(self) -> set[pygit2.Oid]:
        """Every commit reachable from HEAD (all parents), HEAD included; walked once.

        When git fails partway (a commit object is missing), the commits walked so
        far are kept (each is surely an ancestor) and ``ancestry_error`` says why;
        a pin outside that set is then unresolved rather than "another branch".
        """
        if self._ancestors is None:
            seen: set[pygit2.Oid] = {self._head_id}
            try:
                for c in self.repo.walk(self.head_commit.id, pygit2.enums.SortMode.NONE):
                    seen.add(c.id)
            except (pygit2.GitError, KeyError, ValueError) as e:
                self.ancestry_error = f"HEAD's history cannot be read to the end ({_one_line(e)})"
            self._ancestors = seen
        return self._ancestors

    def resolve(self, pin: str) -> tuple[str, pygit2.Commit | None, str | None]:
        """(resolution, commit, object type) for a pin: full or abbreviated, any case."""
        key = normalize_sha(pin)
        hit = self._resolved.get(key)
        if hit is not None:
            return hit
        result: tuple[str, pygit2.Commit | None, str | None]
        if not is_sha_like(key):
            result = ("invalid", None, None)
        else:
            try:
                obj = self.repo.get(key)
            except pygit2.AmbiguousError:
                obj, result = None, ("ambiguous", None, None)
            except ValueError:
                obj, result = None, ("unknown", None, None)
            except (pygit2.GitError, KeyError) as e:
                obj, result = None, ("unknown", None, None)
                self._resolve_errors[key] = f"{short_sha(key)} cannot be read ({_one_line(e)})"
            else:
                result = ("unknown", None, None)
            if obj is not None:
                if isinstance(obj, pygit2.Tag):
                    # a tag of a blob or tree does not peel: reported as a tag below
                    with contextlib.suppress(pygit2.GitError, ValueError, KeyError):
                        obj = obj.peel(pygit2.Commit)  # type: ignore[assignment]  # stubs: a Commit is an Object
                if isinstance(obj, pygit2.Commit):
                    result = ("commit", obj, "commit")
                else:
                    result = ("not_commit", None, _type_name(obj))
        self._resolved[key] = result
        return result

    def entry(self, commit: pygit2.Commit, path: str) -> tuple[str, bool] | None:
        """(entry id, is folder) at ``path`` in ``commit``, or None when absent. Cached.

        Raises MissingObjects when the commit's tree (or a folder on the way to
        ``path``) is not in the object store, as in a ``--filter=tree:0`` clone.
        """
        return self._entry(commit.id, commit, path)

    def _entry(self, cid: pygit2.Oid, commit: pygit2.Commit, path: str) -> tuple[str, bool] | None:
        """:meth:`entry` with the commit's id already in hand (``commit.id`` builds a new Oid)."""
        key = (cid, path)
        hit = self._entries.get(key, _MISSING)
        if hit is not _MISSING:
            return hit  # type: ignore[return-value]
        value: tuple[str, bool] | None
        if not path:
            value = None
        else:
            tree = self._trees.get(key[0]) or self._tree_of(key[0], commit)
            try:
                obj = tree[path]
            except (KeyError, ValueError):
                value = None
            except pygit2.GitError as e:
                self._raise_damaged_on_path(tree, path, e)
                raise MissingObjects(_missing(str(commit.id))) from e
            else:
                value = (str(obj.id), isinstance(obj, pygit2.Tree))
        self._entries[key] = value
        return value

    def _tree_of(self, cid: pygit2.Oid, commit: pygit2.Commit) -> pygit2.Tree:
        """The commit's root tree, cached. Raises CorruptObject when the repo has it damaged,
        MissingObjects when it is not there (a treeless partial clone)."""
        tree_id = str(commit.tree_id)
        self._check_loose(tree_id, f"the tree of {short_sha(str(cid))}")
        try:
            tree = commit.tree
        except (pygit2.GitError, KeyError) as e:
            self._raise_if_damaged(tree_id, f"the tree of {short_sha(str(cid))}", e)
            raise MissingObjects(_missing(str(cid))) from e
        self._trees[cid] = tree
        return tree

    def _check_loose(self, oid: str, kind: str) -> None:
        why = loose_damage(self.repo.path, oid)
        if why is not None:
            raise CorruptObject(self._repo_str, oid, kind, why)

    def _raise_if_damaged(self, oid: str, kind: str, error: BaseException) -> None:
        """After git failed to read ``oid``: CorruptObject when the repo has the object (so it
        is damaged, not missing); nothing when it is absent (the caller's MissingObjects)."""
        try:
            present = self.repo.odb.exists(oid)
        except (pygit2.GitError, ValueError):
            present = False
        if present:
            raise CorruptObject(self._repo_str, oid, kind, _one_line(error)) from error

    def _raise_damaged_on_path(self, tree: pygit2.Tree, path: str, error: BaseException) -> None:
        """Which folder on the way to ``path`` could not be read, if the repo has it."""
        parts = path.split("/")
        for i in range(len(parts) - 1):
            try:
                oid = str(tree[parts[i]].id)
            except (KeyError, ValueError, pygit2.GitError):
                return
            folder = "/".join(parts[: i + 1])
            self._check_loose(oid, f"the folder {folder}")
            try:
                tree = self.repo[oid]  # type: ignore[assignment]  # checked on the next line
                if not isinstance(tree, pygit2.Tree):
                    return
                list(tree)  # parse the entries
            except (pygit2.GitError, KeyError, ValueError) as e:
                self._raise_if_damaged(oid, f"the folder {folder}", e)
                return

    def _pin(self, pin: str) -> tuple[str, pygit2.Commit | None, str | None, pygit2.Oid | None,
                                       bool, bool, str | None]:
        """Everything about a pin that does not depend on a path, once per pin string:
        (resolution, commit, object type, commit id, is HEAD, is an ancestor, error)."""
        hit = self._pins.get(pin)
        if hit is not None:
            return hit
        resolution, commit, otype = self.resolve(pin)
        if commit is None:
            error = self._resolve_errors.get(normalize_sha(pin))
            hit = (resolution, None, otype, None, False, False, error)
        else:
            cid = commit.id
            is_head = cid == self._head_id
            is_ancestor = is_head or cid in self.ancestors
            error = None
            if not is_ancestor and self.ancestry_error:
                error = f"cannot tell whether {short_sha(pin)} is in HEAD's history: {self.ancestry_error}"
            hit = (resolution, commit, otype, cid, is_head, is_ancestor, error)
        self._pins[pin] = hit
        return hit

    def facts(self, pin: str, path: str | None = None) -> GitFacts:
        """Gather everything the pure classifier needs about one pin."""
        hit = self._paths.get(path)
        if hit is None:
            norm = normalize_path(path)
            bad_path = norm == ""  # climbs out of the repo: exists nowhere
            if bad_path and path is not None:
                norm = path.strip()
            hit = self._paths[path] = (norm, bad_path)
        norm, bad_path = hit
        resolution, commit, otype, cid, is_head, is_ancestor, error = self._pin(pin)
        if commit is None:
            return GitFacts(
                pin=pin,
                resolution=resolution,  # type: ignore[arg-type]
                head=self.head,
                object_type=otype,
                shallow=self.is_shallow,
                path=norm,
                repo=self._repo_str,
                error=error,
            )
        at_pin = at_head = None
        folder = False
        if norm is not None and is_ancestor and not bad_path:
            try:
                e_pin = self._entry(cid, commit, norm)  # type: ignore[arg-type]
                e_head = self._entry(self._head_id, self.head_commit, norm)
            except CorruptObject:
                raise
            except MissingObjects as e:
                error = str(e)
            else:
                at_pin = e_pin[0] if e_pin else None
                at_head = e_head[0] if e_head else None
                folder = bool((e_pin and e_pin[1]) or (e_head and e_head[1]))
        return GitFacts(
            pin=pin,
            resolution="commit",
            head=self.head,
            commit=str(cid),
            is_head=is_head,
            is_ancestor=is_ancestor,
            path=norm,
            path_at_pin=at_pin,
            path_at_head=at_head,
            path_is_folder=folder,
            shallow=self.is_shallow,
            repo=self._repo_str,
            error=error,
        )

    def judged(self, pin: str, path: str | None = None) -> tuple[str, str, str | None]:
        """(freshness, reason, resolved full SHA): ``classify(self.facts(pin, path))`` and
        the facts' commit, without building the facts for the common pin (HEAD or an ancestor,
        with a plain path or none). The pass calls this once per distinct (pin, path); every
        other pin goes through :meth:`facts` and :func:`classify` themselves."""
        got = self._fast.get(pin, _MISSING)
        fast: tuple[pygit2.Oid, pygit2.Commit, bool, str, str] | None
        if got is _MISSING:
            resolution, commit, _, cid, is_head, is_ancestor, error = self._pin(pin)
            fast = None
            if commit is not None and cid is not None and is_ancestor and error is None:
                fast = (cid, commit, is_head, short_sha(pin), str(cid))
            self._fast[pin] = fast
        else:
            fast = cast("tuple[pygit2.Oid, pygit2.Commit, bool, str, str] | None", got)
        paths = self._paths.get(path)
        if fast is None or paths is None or paths[1]:
            facts = self.facts(pin, path)
            return (*classify(facts), facts.commit)
        cid, commit, is_head, sha, full = fast
        norm = paths[0]
        if norm is None:
            return (*classify_reached(sha, is_head, None, "", None, None), full)
        try:
            e_pin = self._entry(cid, commit, norm)
            if norm in self._head_entries:
                e_head = self._head_entries[norm]
            else:
                e_head = self._head_entries[norm] = self._entry(self._head_id,
                                                                 self.head_commit, norm)
        except CorruptObject:
            raise
        except MissingObjects:
            facts = self.facts(pin, path)  # says which objects are missing
            return (*classify(facts), facts.commit)
        folder = (e_pin is not None and e_pin[1]) or (e_head is not None and e_head[1])
        return (*classify_reached(sha, is_head, norm, f"{norm}/" if folder else norm,
                                  e_pin[0] if e_pin is not None else None,
                                  e_head[0] if e_head is not None else None), full)

    def judge(self, pin: str, path: str | None = None) -> tuple[str, str]:
        """(freshness, reason) for one pin against this repo's HEAD."""
        return classify(self.facts(pin, path))

    # -- lazy magnitude --------------------------------------------------

    def _commit_or_error(self, pin: str) -> pygit2.Commit:
        resolution, commit, otype = self.resolve(pin)
        if commit is None:
            raise RepoError(f"{pin.strip()[:12]}: not a commit in this repo ({resolution})")
        return commit

    def drift(self, pin: str, path: str | None = None) -> Drift:
        """Commits since ``pin`` that touched ``path``, and lines added/removed pin → HEAD.

        Raises RepoError (MissingObjects when objects are missing) if git cannot say.
        """
        commit = self._commit_or_error(pin)
        try:
            return self._drift(commit, normalize_path(path))
        except (pygit2.GitError, KeyError) as e:
            raise MissingObjects(_missing(str(commit.id))) from e

    def _drift(self, commit: pygit2.Commit, norm: str | None) -> Drift:
        walker = self.repo.walk(self.head_commit.id, pygit2.enums.SortMode.NONE)
        walker.hide(commit.id)
        count = 0
        for c in walker:
            if norm is None:
                count += 1
                continue
            mine = self.entry(c, norm)
            parents = c.parents
            if not parents:
                count += mine is not None
            elif all(self.entry(p, norm) != mine for p in parents):
                count += 1
        added = removed = files = 0
        patches, note = self._bounded_patches(commit, norm)
        for bp in patches:
            _, adds, dels = bp.patch.line_stats
            added += adds
            removed += dels
            files += 1
        return Drift(commits=count, added=added, removed=removed, files=files, note=note)

    def diff_text(self, pin: str, path: str | None = None, *, context_lines: int = 3,
                  max_lines: int = MAX_DIFF_LINES) -> str:
        """Unified diff (``git diff PIN HEAD -- PATH``) of the path between pin and HEAD.

        Bounded: a file past :data:`MAX_DIFF_BYTES` is diffed over its start, and the text
        stops after ``max_lines`` lines; a first line says so (``diff too large: …``)."""
        commit = self._commit_or_error(pin)
        norm = normalize_path(path)
        try:
            patches, note = self._bounded_patches(commit, norm, context_lines)
            out: list[list[str]] = []
            total = 0
            for bp in patches:
                lines = (bp.patch.text or "").splitlines(keepends=True)
                room = max_lines - sum(len(x) for x in out)
                total += len(lines)
                out.append(lines[:room] if room > 0 else [])
        except (pygit2.GitError, KeyError) as e:
            raise MissingObjects(_missing(str(commit.id))) from e
        text = "".join(line for chunk in out for line in chunk)
        notes = [note] if note else []
        if total > max_lines:
            notes.append(f"showing the first {max_lines:,} of {total:,} diff lines")
        return "".join(f"# {n}\n" for n in notes) + text

    def _gitlink(self, commit: pygit2.Commit, path: str) -> str | None:
        """The commit a submodule at ``path`` is at in ``commit`` (None: not a submodule)."""
        tree = self._trees.get(commit.id) or self._tree_of(commit.id, commit)
        try:
            obj = tree[path]
        except (KeyError, ValueError, pygit2.GitError):
            return None
        return str(obj.id) if obj.filemode == pygit2.enums.FileMode.COMMIT else None

    def submodule_change(self, commit: pygit2.Commit, path: str) -> str | None:
        """A sentence when ``path`` is a submodule at the pin or at HEAD (its commits are in
        its own repo: this one can only say which commit it is at), else None."""
        at_pin = self._gitlink(commit, path)
        at_head = self._gitlink(self.head_commit, path)
        if at_pin is None and at_head is None:
            return None
        if at_pin == at_head:
            return f"{path} is a submodule at {short_sha(at_pin or '')}, unchanged since the pin"
        if at_pin is None or at_head is None:
            where = "at HEAD" if at_pin is None else "at the pin"
            return f"{path} is a submodule only {where} (at {short_sha(at_pin or at_head or '')})"
        return (f"{path} is a submodule: its commit moved from {short_sha(at_pin)} to "
                f"{short_sha(at_head)} (its changes are in its own repo)")

    def _bounded_patches(
        self, commit: pygit2.Commit, path: str | None, context_lines: int = 3
    ) -> tuple[list[BoundedPatch], str | None]:
        """:meth:`_patches`, but a single file too big to diff whole is diffed over its start
        (:func:`bounded_patch`); the note says so. A submodule has no diff here: the note says
        which commits it moved between."""
        if path is not None:
            sub = self.submodule_change(commit, path)
            if sub is not None:
                return [], sub
            e_pin = self.entry(commit, path)
            e_head = self.entry(self.head_commit, path)
            if e_pin is not None and e_head is not None and not (e_pin[1] or e_head[1]):
                if e_pin[0] == e_head[0]:
                    return [], None
                bp = bounded_patch(self.repo, e_pin[0], e_head[0], context_lines=context_lines,
                                   old_path=path, new_path=path)
                return [bp], bp.note
        return [BoundedPatch(p, None, ()) for p in self._patches(commit, path, context_lines)], None

    def _patches(
        self, commit: pygit2.Commit, path: str | None, context_lines: int = 3
    ) -> list[pygit2.Patch]:
        diff = self.repo.diff(commit.tree, self.head_commit.tree,  # type: ignore[call-overload]  # stubs omit Trees
                              context_lines=context_lines)
        out = []
        for patch in diff:
            if patch is None:
                continue
            d = patch.delta
            names = {d.old_file.path, d.new_file.path}
            if path is None or any(n == path or n.startswith(path + "/") for n in names):
                out.append(patch)
        return out


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text or type(e).__name__


def _type_name(obj: object) -> str:
    if isinstance(obj, pygit2.Blob):
        return "blob"
    if isinstance(obj, pygit2.Tree):
        return "tree"
    if isinstance(obj, pygit2.Tag):
        return "tag"
    return "object"
