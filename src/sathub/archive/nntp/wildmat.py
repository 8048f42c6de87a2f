"""RFC 3977's wildmats (section 4): comma-separated patterns of `*` (any text) and `?` (one
character), each optionally negated with `!`; the last pattern a name matches decides. Pure."""

from __future__ import annotations

import re
from functools import lru_cache


class BadWildmat(ValueError):
    """Not a wildmat (an empty pattern): the command answers 501."""


@lru_cache(maxsize=64)
def _compiled(wildmat: str) -> tuple[tuple[bool, re.Pattern[str]], ...]:
    patterns = []
    for part in wildmat.split(","):
        negated = part.startswith("!")
        pattern = part[1:] if negated else part
        if not pattern:
            raise BadWildmat(wildmat)
        text = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
        patterns.append((negated, re.compile(text, re.DOTALL)))
    return tuple(patterns)


def matches(wildmat: str, name: str) -> bool:
    """Whether `name` matches `wildmat` (BadWildmat when it is none)."""
    matched = False
    for negated, pattern in _compiled(wildmat):
        if pattern.fullmatch(name):
            matched = not negated
    return matched
