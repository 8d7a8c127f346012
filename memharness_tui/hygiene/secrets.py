"""Credentials written into facts: detect-secrets' plugins and false-positive filters over
the text of every row (current, superseded and retracted — a revision rarely removes what its
predecessor leaked).

detect-secrets is imported on the first text that could hold a credential (``maybe_secret``: a
cheap test every plugin's pattern implies), so a clean store never pays for it. Its high-entropy
plugins are kept only next to a key word (``password``, ``token``, ``secret``, …): a bare
40-character hex run in a fact is far more often a commit than a key.

A ``SecretSpan`` holds the rule, the span and a masked form (``AKIA…MPLE (20 chars)``), never
the secret: reports, the screen and a crash log's traceback see only that.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["SecretSpan", "find_secrets", "mask", "masked_text", "maybe_secret"]

# Every detect-secrets plugin's pattern implies one of these (a prefix, a key word, a URL with
# a password, or a long token-like run); a text matching none is skipped without the library.
# Every detect-secrets plugin's pattern implies one of these (a key word, a prefix, a URL with
# a password, or a long token-like run with a digit and a letter); a text with none is skipped
# without the library. Plain substring tests: a regex of case-blind alternatives costs ten
# times as much on every fact of the store.
_SECRET_WORDS = ("pass", "pwd", "secret", "token", "key_", "_key", "-key", "key ", "apikey",
                 "auth", "contrase", "credential", "bearer", "private")
_SECRET_PREFIXES = ("AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
                    "glpat-", "gldt-", "glrt-", "glft-", "glsoat-", "glcbt-", "glptt-", "glimt-",
                    "glagent-", "gloas-", "xox", "hooks.slack", "k_live_", "k_test_", "eyJ",
                    "npm_", "pypi-", "SG.", "sq0")
_LONG_RUN = re.compile(r"[A-Za-z0-9+/=_-]{20,}")
_DIGIT = re.compile(r"[0-9]")
_LETTER = re.compile(r"[A-Za-z]")
# The key words a high-entropy string must stand beside (detect-secrets' keyword list, and
# the words agents write: "token", "api key").
_KEYWORD = re.compile(
    r"(?i)(?:api[_ -]?key|apikey|access[_ -]?key|secret|token|passw(?:or)?d|pwd|auth"
    r"|credential|private[_ -]?key|client[_ -]?key|bearer|contrase[ñn]a)")
#: How far (characters) before a high-entropy string its key word may stand.
_KEYWORD_WINDOW = 40
_ENTROPY_TYPES = frozenset({"Base64 High Entropy String", "Hex High Entropy String"})
# A password (in a URL, or after a key word) ends where the pattern says; a token runs on.
_EXACT_TYPES = frozenset({"Secret Keyword", "Basic Auth Credentials", "Private Key"})
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_\-+/=]*")
_JWT_TAIL = re.compile(r"[A-Za-z0-9_\-+/=.]*")
_PEM_END = re.compile(r"-----END[ A-Z0-9]*PRIVATE KEY[ A-Z]*-----")

_RULES = {  # detect-secrets' type → our rule name (short, stable, for --format json)
    "AWS Access Key": "aws-access-key",
    "GitHub Token": "github-token",
    "GitLab Token": "gitlab-token",
    "Slack Token": "slack-token",
    "Slack Webhook": "slack-webhook",
    "Stripe Access Key": "stripe-key",
    "Private Key": "private-key",
    "JSON Web Token": "jwt",
    "Basic Auth Credentials": "password-in-url",
    "Secret Keyword": "keyword-secret",
    "Base64 High Entropy String": "high-entropy-base64",
    "Hex High Entropy String": "high-entropy-hex",
}

_lock = threading.Lock()
_engine: Any = None


def rule_name(detect_secrets_type: str) -> str:
    known = _RULES.get(detect_secrets_type)
    if known is not None:
        return known
    return re.sub(r"[^a-z0-9]+", "-", detect_secrets_type.lower()).strip("-")


def mask(secret: str) -> str:
    """A form that names a secret without giving it: ``AKIA…MPLE (20 chars)``."""
    n = len(secret)
    if n >= 20:
        return f"{secret[:4]}…{secret[-4:]} ({n} chars)"
    if n >= 12:
        return f"{secret[:4]}…({n} chars)"
    return f"…({n} chars)"


@dataclass(frozen=True, slots=True)
class SecretSpan:
    """One credential in a text: its rule, ``[start, end)`` and masked form (never the secret)."""

    rule: str
    start: int
    end: int
    masked: str

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "start": self.start, "end": self.end, "masked": self.masked}


def maybe_secret(text: str) -> bool:
    """Whether ``text`` could hold a credential at all (the test before the library runs)."""
    low = text.lower()
    if any(w in low for w in _SECRET_WORDS) or any(p in text for p in _SECRET_PREFIXES):
        return True
    if "://" in text and "@" in text:  # a password in a URL
        return True
    return any(_DIGIT.search(m.group(0)) and _LETTER.search(m.group(0))
               for m in _LONG_RUN.finditer(text))


class _Engine:
    """detect-secrets with all its plugins and its default filters, set up once per process
    (its ``scan_line`` re-reads the settings and rebuilds every plugin on each call)."""

    def __init__(self) -> None:
        import logging

        from detect_secrets.core import scan as ds_scan
        from detect_secrets.core.log import log as ds_log
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        from detect_secrets.settings import (
            configure_settings_from_baseline,
            get_filters,
            get_plugins,
            get_settings,
        )
        from detect_secrets.util.code_snippet import get_code_snippet

        ds_log.setLevel(logging.WARNING)  # its INFO lines quote the secrets it skips
        ds_log.propagate = False
        # every plugin detect-secrets ships, configured for this process (as its
        # default_settings() does, without a context to leave at interpreter exit)
        classes: list[Any] = list(get_mapping_from_secret_type_to_class().values())
        configure_settings_from_baseline(
            {"plugins_used": [{"name": cls.__name__} for cls in classes]})
        get_settings().disable_filters("detect_secrets.filters.common.is_invalid_file")
        get_filters.cache_clear()
        self._plugins = list(get_plugins())
        self._scan_line = ds_scan._scan_line
        self._filtered = ds_scan._is_filtered_out
        self._snippet = get_code_snippet

    def secrets(self, line: str) -> Iterator[tuple[str, int, int]]:
        """(type, start, end) of each secret detect-secrets reports in ``line``."""
        context = self._snippet(lines=[line], line_number=1)
        for plugin in self._plugins:
            for found in self._scan_line(plugin=plugin, filename="adhoc-string-scan",
                                         line=line, line_number=0, context=context,
                                         enable_eager_search=True):
                value = found.secret_value
                if not value or self._filtered(
                        required_filter_parameters=["context"], filename=found.filename,
                        secret=value, plugin=plugin, line=line, context=context):
                    continue
                yield from _where(plugin, found.type, value, line)


def _where(plugin: Any, kind: str, value: str, line: str) -> Iterator[tuple[str, int, int]]:
    """Where ``value`` stands in ``line``. A pattern whose group is only the token's prefix
    (GitHub's ``(ghp|…)_…``) reports that prefix: the whole match is the token then."""
    for regex in getattr(plugin, "denylist", ()):
        for m in regex.finditer(line):
            if m.group(0).startswith(value) and len(m.group(0)) > len(value):
                yield kind, m.start(), m.end()
                return
    at = line.find(value)
    while at >= 0:
        yield kind, at, at + len(value)
        at = line.find(value, at + len(value))


def _get_engine() -> _Engine:
    global _engine
    if _engine is None:
        _engine = _Engine()
    return _engine  # type: ignore[no-any-return]


def _beside_keyword(line: str, start: int) -> bool:
    return _KEYWORD.search(line, max(0, start - _KEYWORD_WINDOW), start) is not None


#: Shorter finds are noise (a high-entropy plugin's words like "argon2id"); a password may be short.
_MIN_CHARS = 8
_MIN_ENTROPY_CHARS = 16
_MIN_KEYWORD_CHARS = 4


def find_secrets(text: str) -> list[SecretSpan]:
    """The credentials in ``text``, by position (overlapping finds merged, the specific rule
    named over a high-entropy one)."""
    if not maybe_secret(text):
        return []
    spans: list[tuple[int, int, str]] = []
    offset = 0
    with _lock:  # detect-secrets keeps its settings process-wide
        engine = _get_engine()
        for line in text.split("\n"):
            if maybe_secret(line):
                for kind, s, e in engine.secrets(line):
                    entropy = kind in _ENTROPY_TYPES
                    least = (_MIN_KEYWORD_CHARS if kind == "Secret Keyword"
                             else _MIN_ENTROPY_CHARS if entropy else _MIN_CHARS)
                    if e - s < least:
                        continue
                    if entropy and not _beside_keyword(line, s):
                        continue
                    if kind not in _EXACT_TYPES:  # the whole token, not the pattern's piece
                        grow = _JWT_TAIL if kind == "JSON Web Token" else _TOKEN_TAIL
                        tail = grow.match(line, e)
                        e = tail.end() if tail else e
                    start, end = offset + s, offset + e
                    if kind == "Private Key":
                        if text[max(0, start - 5):start] == "-----":
                            start -= 5
                        close = _PEM_END.search(text, end)
                        end = close.end() if close else len(text)
                    spans.append((start, end, rule_name(kind)))
            offset += len(line) + 1
    return [SecretSpan(rule, s, e, mask(text[s:e])) for s, e, rule in _merged(spans)]


def _merged(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    for s, e, rule in sorted(spans, key=lambda x: (x[0], -x[1])):
        if out and s < out[-1][1]:
            ps, pe, prule = out[-1]
            if prule.startswith("high-entropy") and not rule.startswith("high-entropy"):
                prule = rule
            out[-1] = (ps, max(e, pe), prule)
            continue
        out.append((s, e, rule))
    return out


def masked_text(text: str, spans: list[SecretSpan]) -> str:
    """``text`` with every span replaced by its masked form (what the screen shows)."""
    out, last = [], 0
    for sp in spans:
        out.append(text[last:sp.start])
        out.append(f"[{sp.masked}]")
        last = sp.end
    out.append(text[last:])
    return "".join(out)
