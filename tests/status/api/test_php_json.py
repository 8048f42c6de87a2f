"""PHP's two JSON layouts (status/api/php_json.py; status-api.md 2.1), byte for byte: the envelope
endpoints' json_encode(JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES) and the legacy arrays'
json_encode() defaults."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sathub.status.api.php_json import PrettyFragment, php_compact_json, php_pretty_json

# Any character, astral ones included; DEL and backslashes often, since PHP writes DEL as it is.
text = st.text(st.one_of(st.characters(blacklist_categories=["Cs"]), st.sampled_from("\x7f\\u")), max_size=8)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), text)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(text, inner, max_size=4)),
    max_leaves=12,
)


def test_the_envelope_layout():
    body = {
        "data": [
            {
                "id": 1,
                "name": "AO-91",
                "website": "https://www.amsat.org/ao-91/",
                "ok": True,
                "none": None,
                "off": False,
                "links": {},
                "tags": [],
            }
        ],
        "meta": {"count": 1},
    }
    assert (
        php_pretty_json(body)
        == """{
    "data": [
        {
            "id": 1,
            "name": "AO-91",
            "website": "https://www.amsat.org/ao-91/",
            "ok": true,
            "none": null,
            "off": false,
            "links": {},
            "tags": []
        }
    ],
    "meta": {
        "count": 1
    }
}"""
    )


@pytest.mark.parametrize(
    "value, expected",
    [
        ("Ørsted", '"\\u00d8rsted"'),  # non-ASCII as \u escapes, lowercase hex
        ("😀", '"\\ud83d\\ude00"'),  # a surrogate pair above U+FFFF
        ("a/b", '"a/b"'),  # slashes unescaped
        ('q"b\\s', '"q\\"b\\\\s"'),
        ("\n\r\t\b\f\x01\x1f", '"\\n\\r\\t\\b\\f\\u0001\\u001f"'),
        ("<&'>", '"<&\'>"'),  # no JSON_HEX_* flag: written as they are
        ("a\x7fb", '"a\x7fb"'),  # DEL: PHP escapes only what is below U+0020 (and non-ASCII)
        ("\\u007f\x7f", '"\\\\u007f\x7f"'),  # a backslash and the text u007f stay so
        (-7, "-7"),
        (2**63 - 1, "9223372036854775807"),
        ([], "[]"),
        ({}, "{}"),
        ([[]], "[\n    []\n]"),
    ],
)
def test_pretty_values(value, expected):
    assert php_pretty_json(value) == expected


def test_a_fragment_is_placed_as_it_is():
    fragment = PrettyFragment(php_pretty_json({"a": 1}, " " * 4))
    assert php_pretty_json([fragment, "plain"]) == '[\n    {\n        "a": 1\n    },\n    "plain"\n]'


def test_the_legacy_layout():
    items = [
        {
            "id": 1,
            "name": "AO-7 [U/v]",
            "html_element_name": "AO-7_[U/v]",
            "website": "https://www.amsat.org/two-way-satellites/ao-91/",
        },
        {"grid_square": None, "x": "Ø"},
    ]
    assert php_compact_json(items) == (
        b'[{"id":1,"name":"AO-7 [U\\/v]","html_element_name":"AO-7_[U\\/v]",'
        b'"website":"https:\\/\\/www.amsat.org\\/two-way-satellites\\/ao-91\\/"},{"grid_square":null,"x":"\\u00d8"}]'
    )
    assert php_compact_json([]) == b"[]"


@given(values)
def test_pretty_print_is_phps_for_any_value(value):
    """PHP's pretty print is 4 spaces a level, "key": value, one member a line, [] and {} when
    empty, which is Python's json.dumps(indent=4) (ASCII, slashes unescaped) but for DEL, written
    as it is; no trailing newline."""
    written = php_pretty_json(value)
    assert json.loads(written) == value
    assert written == json.dumps(value, indent=4).replace("\\\\", "\0").replace("\\u007f", "\x7f").replace("\0", "\\\\")


@given(values)
def test_compact_is_phps_default_for_any_value(value):
    written = php_compact_json(value).decode("ascii")
    assert json.loads(written) == value
    # no whitespace outside strings, and every "/" escaped: the compact text with "\/" unescaped
    expected = json.dumps(value, separators=(",", ":")).replace("\\\\", "\0")
    assert written.replace("\\/", "/") == expected.replace("\\u007f", "\x7f").replace("\0", "\\\\")
    assert "/" not in written.replace("\\/", "")
