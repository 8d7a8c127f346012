"""The model's files: where they live, and the one-time download into the cache folder.

The files are the ones transformers.js runs for the reference's embed package
(``Xenova/bge-small-en-v1.5``): the full-precision ``onnx/model.onnx`` (transformers.js 3
on Node runs on the CPU, whose default dtype is fp32) and the tokenizer. Nothing here
touches the network until ``download`` is called.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from ..paths import cache_dir

MODEL_NAME = "Xenova/bge-small-en-v1.5"
"""The model name stored in ``embedding_model``, the reference's ``EMBED_MODEL``."""
DIM = 384
ONNX_FILE = "onnx/model.onnx"
TOKENIZER_FILE = "tokenizer.json"
TOKENIZER_CONFIG_FILE = "tokenizer_config.json"
FILES: tuple[str, ...] = (TOKENIZER_FILE, TOKENIZER_CONFIG_FILE, ONNX_FILE)
DIR_ENV = "MEMHARNESS_TUI_MODEL_DIR"
URL_ENV = "MEMHARNESS_TUI_MODEL_URL"
DEFAULT_URL = f"https://huggingface.co/{MODEL_NAME}/resolve/main/"
CHUNK = 1 << 16
NAME_FILE = "memharness-model-name"
"""A one-line file beside the model's files naming the model (written by :func:`download`)."""
MAX_NAME = 200

Progress = Callable[[str, int, int | None], None]
"""``(file, bytes so far, total bytes or None)``, called as a download goes."""


class ModelError(Exception):
    """A model file missing, damaged or not downloadable: one sentence, shown as is."""


def model_dir() -> Path:
    """``MEMHARNESS_TUI_MODEL_DIR`` (a copy already on disk), else the cache folder's copy."""
    env = os.environ.get(DIR_ENV)
    if env:
        return Path(env).expanduser()
    return cache_dir() / "models" / MODEL_NAME


def model_name(folder: Path) -> str:
    """The name stored with this folder's vectors (``embedding_model``), from its files.

    The folder's ``memharness-model-name`` file (written by :func:`download`, or by hand for a
    copy of a known model); else the cache folder that only :func:`download` fills is
    ``MODEL_NAME``; else the model is named by a hash of its files (``sha256:…``). BGE's name
    is never given to files not known to be BGE's: vectors from another model must not pass
    for the agent's.
    """
    written = _name_file(folder / NAME_FILE)
    if written is not None:
        return written
    with contextlib.suppress(OSError):
        if folder.resolve() == (cache_dir() / "models" / MODEL_NAME).resolve():
            return MODEL_NAME
    digest = hashlib.sha256()
    for name in FILES:
        digest.update(name.encode() + b"\0")
        try:
            with open(folder / name, "rb") as fh:
                while chunk := fh.read(1 << 20):
                    digest.update(chunk)
        except OSError:
            digest.update(b"missing")
    return f"sha256:{digest.hexdigest()[:16]}"


def _name_file(path: Path) -> str | None:
    """The name in ``path``: one line of plain text, or None (absent, or not a usable name)."""
    from ..config import SettingsFileDamaged, read_config_bytes

    try:
        raw = read_config_bytes(path, limit=4096)
    except SettingsFileDamaged:
        return None
    if raw is None:
        return None
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        return None
    if not text or len(text) > MAX_NAME or not text.isprintable():
        return None
    return text


def missing_files(folder: Path) -> list[str]:
    """The model files not (yet) in ``folder``."""
    return [name for name in FILES if not (folder / name).is_file()]


def download(
    folder: Path | None = None,
    *,
    base_url: str | None = None,
    progress: Progress | None = None,
    timeout: float = 60.0,
) -> list[str]:
    """Fetch the files missing from ``folder`` (once: present files are kept). Returns the
    names fetched. Each file is written beside its place and renamed when complete, so an
    interrupted download leaves no half file behind."""
    folder = folder if folder is not None else model_dir()
    base = base_url or os.environ.get(URL_ENV) or DEFAULT_URL
    if not base.endswith("/"):
        base += "/"
    fetched: list[str] = []
    for name in missing_files(folder):
        target = folder / name
        part = target.with_name(target.name + ".part")
        url = base + name
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with urllib.request.urlopen(url, timeout=timeout) as response, open(part, "wb") as out:
                length = response.headers.get("Content-Length")
                total = int(length) if length and length.isdigit() else None
                done = 0
                if progress is not None:
                    progress(name, 0, total)
                while chunk := response.read(CHUNK):
                    out.write(chunk)
                    done += len(chunk)
                    if progress is not None:
                        progress(name, done, total)
            if total is not None and done != total:
                raise ModelError(f"the download of {name} from {url} stopped at {done:,} of "
                                 f"{total:,} bytes; run it again to retry")
            shutil.move(str(part), str(target))
        except ModelError:
            with contextlib.suppress(OSError):
                part.unlink()
            raise
        except (urllib.error.URLError, OSError, ValueError) as exc:
            if isinstance(exc, urllib.error.HTTPError):
                exc.close()  # an HTTP error holds the server's response (its socket) open
            with contextlib.suppress(OSError):
                part.unlink()
            reason = getattr(exc, "reason", None) or exc
            raise ModelError(f"could not download {name} from {url}: {reason}; to use a copy "
                             f"already on disk, set {DIR_ENV} to its folder") from None
        fetched.append(name)
    if fetched:  # these are BGE's files (the default URL, or a mirror of it)
        with contextlib.suppress(OSError):
            (folder / NAME_FILE).write_text(MODEL_NAME + "\n", encoding="utf-8")
    return fetched
