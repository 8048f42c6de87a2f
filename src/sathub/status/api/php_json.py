"""PHP's two JSON layouts, byte for byte: the envelope endpoints print JSON_PRETTY_PRINT |
JSON_UNESCAPED_SLASHES, the legacy arrays print json_encode()'s compact default."""

from __future__ import annotations

import json
import re
from json.encoder import encode_basestring_ascii

# Python's ASCII escaping writes DEL (U+007F) as \u007f; PHP's json_encode writes it as it is.
# The escape is undone where it is one: after an even number of backslashes (\\u007f is a
# backslash followed by the text "u007f").
_ESCAPED_DEL = re.compile(r"(?<!\\)((?:\\\\)*)\\u007f")


def _unescape_del(text: str) -> str:
    return _ESCAPED_DEL.sub("\\1\x7f", text) if "\\u007f" in text else text


def _php_string(text: str) -> str:
    encoded = encode_basestring_ascii(text)
    return _unescape_del(encoded) if "\x7f" in text else encoded


class PrettyFragment(str):
    """JSON text already rendered by php_pretty_json at the indent where it will be placed."""


def php_pretty_json(value, indent: str = "") -> str:
    """PHP json_encode(JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES): 4-space indent, \\uXXXX escapes.
    Each container is joined in one pass (an answer holds up to 500 rows of 8 fields)."""
    if isinstance(value, str):
        return value if isinstance(value, PrettyFragment) else _php_string(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return int.__repr__(value)
    if isinstance(value, (int, float)):
        return json.dumps(value)
    inner = indent + "    "
    if isinstance(value, dict):
        if not value:
            return "{}"
        members = [f"{_php_string(key)}: {php_pretty_json(item, inner)}" for key, item in value.items()]
    else:
        members = [php_pretty_json(item, inner) for item in value]
        if not members:
            return "[]"
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    return f"{opening}\n{inner}" + f",\n{inner}".join(members) + f"\n{indent}{closing}"


def php_compact_json(value) -> bytes:
    """PHP json_encode() defaults: no whitespace, \\uXXXX escapes, every '/' written as '\\/'."""
    # '/' never occurs in JSON syntax outside strings, so a global replace only touches strings.
    return _unescape_del(json.dumps(value, separators=(",", ":"))).replace("/", "\\/").encode()
