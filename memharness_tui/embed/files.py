"""The model's files: where they live, and the one-time download into the cache folder.

The files are the ones transformers.js runs for the reference's embed package
(``Xenova/bge-small-en-v1.5``): the full-precision ``onnx/model.onnx`` (transformers.js 3
on Node runs on the CPU, whose default dtype is fp32) and the tokenizer. Nothing here
touches the network until ``download`` is called.
"""

from __future__ import annotations

import contextlib
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
            raise ModelError(f"could not download {name} from {url}: {reason}") from None
        fetched.append(name)
    return fetched
