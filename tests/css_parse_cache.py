"""One parse of each piece of Textual CSS per test process, not one per app (#25).

Every ``App`` builds its own ``Stylesheet``, and Textual caches parsed rules per stylesheet
only, so each of the suite's ~460 Pilot apps parsed every widget's ``DEFAULT_CSS`` and the
app's CSS again: ~0.07 s of CPU an app start, ~15% of it. Parsing is a pure function of the
CSS text, where it was read from, its scope and the stylesheet's variables (the theme), so
the rules are shared between the apps of one process under exactly that key; Textual already
shares them between parses of one stylesheet (``Stylesheet._parse_cache``) and never changes
a parsed ``RuleSet``. CSS that fails to parse raises as before (a failure is not cached), and
rules with errors come back with their errors, which ``Stylesheet.parse`` reports as before.

If Textual renames the method, ``install`` does nothing: the suite is slower, not wrong.
"""

from __future__ import annotations

from typing import Any

_cache: dict[tuple[Any, ...], Any] = {}


def install() -> None:
    from textual.css.stylesheet import Stylesheet

    parse_rules = getattr(Stylesheet, "_parse_rules", None)
    if parse_rules is None or getattr(parse_rules, "shared_by_tests", False):
        return

    def shared_parse_rules(self: Any, css: str, read_from: Any, is_default_rules: bool = False,
                           tie_breaker: int = 0, scope: str = "") -> Any:
        key = (css, read_from, is_default_rules, tie_breaker, scope,
               tuple(sorted(self._variables.items())))
        try:
            return _cache[key]
        except KeyError:
            rules = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
            _cache[key] = rules
            return rules

    shared_parse_rules.shared_by_tests = True  # type: ignore[attr-defined]
    Stylesheet._parse_rules = shared_parse_rules  # type: ignore[method-assign]
