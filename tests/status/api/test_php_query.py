"""Query parameters as PHP's $_GET reads them (status/api/php_query.py; status-api.md 2.5): the last
occurrence of a name wins, `name[]=…` and `name[key]=…` make an array (which is no value for any
parameter), and the string, integer and boolean readers of the table in 2.5.

The arrays are checked against a model of PHP's own parser (main/php_variables.c,
php_register_variable_ex, one bracket level) and of json_encode, which writes the raw value of an
array into an error's details: written here as PHP keeps the array, a hash table with a "next
free element" counter, rather than as php_query.py computes it."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.requests import Request

from sathub.status.api import php_query
from sathub.status.api.responses import ApiError


def request(query_string: str) -> Request:
    return Request(
        {
            "type": "http",
            "method": "GET",
            "scheme": "http",
            "server": ("sathub.test", 80),
            "path": "/api/v1/reports.php",
            "raw_path": b"/api/v1/reports.php",
            "headers": [],
            "query_string": query_string.encode(),
        }
    )


# --- a model of PHP --------------------------------------------------------------------------


class PhpArray:
    """A PHP array as $_GET builds it: ordered keys, and the next integer key `[]` takes."""

    def __init__(self):
        self.items: dict[int | str, str] = {}
        self.next_free = 0

    def set(self, key: int | str | None, value: str) -> None:
        if key is None:  # `name[]`
            key = self.next_free
        if isinstance(key, int) and key >= self.next_free:
            self.next_free = key + 1
        self.items[key] = value

    def json(self):
        """json_encode: a list when the keys are 0, 1, 2… in that order, else an object."""
        if list(self.items) == list(range(len(self.items))):
            return list(self.items.values())
        return {str(key): value for key, value in self.items.items()}


def php_key(index: str) -> int | str:
    """An array index that is a canonical decimal integer ("7", not "07" or "+7") is an integer key."""
    if index.isascii() and index.isdigit() and (index == "0" or not index.startswith("0")):
        return int(index)
    return index


def php_get(pairs: list[tuple[str, str]]) -> dict:
    """$_GET of decoded (name, value) pairs, each array as json_encode writes it."""
    variables: dict[str, str | PhpArray] = {}
    for name, value in pairs:
        opening = name.find("[")
        closing = name.find("]", opening + 1)
        if opening <= 0 or closing < 0:  # a plain variable (an unclosed "[" does not make an array)
            variables[name if opening < 0 else name[:opening] + "_" + name[opening + 1 :]] = value
            continue
        base, index = name[:opening], name[opening + 1 : closing]
        if not isinstance(variables.get(base), PhpArray):  # an array replaces a string of that name
            variables[base] = PhpArray()
        variables[base].set(None if index == "" else php_key(index), value)
    return {name: value.json() if isinstance(value, PhpArray) else value for name, value in variables.items()}


NAMES = ["hours", "name", "include_stats"]
indexes = st.one_of(st.just(""), st.integers(0, 12).map(str), st.sampled_from(["a", "07", "+1", "-", "0x1", "é"]))
keys = st.one_of(
    st.sampled_from(NAMES),
    st.tuples(st.sampled_from(NAMES), indexes).map(lambda pair: f"{pair[0]}[{pair[1]}]"),
    st.tuples(st.sampled_from(NAMES), indexes).map(lambda pair: f"{pair[0]}[{pair[1]}]tail"),  # ignored after "]"
    st.sampled_from(NAMES).map(lambda name: f"{name}[3"),  # unclosed: PHP's name_3, no array
)
values = st.text(st.characters(blacklist_categories=["Cs"]), max_size=6)
pairs = st.lists(st.tuples(keys, values), max_size=8)


def written(value) -> str:
    """The value as an error's details show it: an object's keys in their order."""
    return json.dumps(value)


def encoded(pairs: list[tuple[str, str]], encode_brackets: bool) -> str:
    safe = "" if encode_brackets else "[]"
    return "&".join(f"{quote(key, safe=safe)}={quote(value, safe='')}" for key, value in pairs)


@given(pairs, st.booleans())
def test_parameters_and_arrays_are_read_as_php_reads_them(pairs, encode_brackets):
    parsed = php_query.parse_php_query(encoded(pairs, encode_brackets))
    expected = php_get(pairs)
    for name in NAMES:
        assert written(parsed.get(name)) == written(expected.get(name)), name


@pytest.mark.parametrize(
    "query_string, value",
    [
        ("hours=5&hours=6", "6"),  # 2.5: the last occurrence wins
        ("hours[]=5&hours=24", "24"),  # a string after an array replaces it
        ("hours=5&hours[]=6", ["6"]),  # and an array after a string
        ("hours[]=5&hours[]=6", ["5", "6"]),
        ("hours[a]=5", {"a": "5"}),
        ("hours[1]=5", {"1": "5"}),  # keys 0, 1, 2… only make a list
        ("hours[1]=5&hours[0]=6", {"1": "5", "0": "6"}),  # in that order
        ("hours[0]=5&hours[1]=6", ["5", "6"]),
        ("hours[5]=a&hours[]=b", {"5": "a", "6": "b"}),  # [] takes the next integer key
        ("hours[x]=a&hours[]=b", {"x": "a", "0": "b"}),
        ("hours[07]=a&hours[]=b", {"07": "a", "0": "b"}),  # "07" is a string key
        ("hours[]=a&hours[0]=b", ["b"]),  # a key set again keeps its place
        ("hours%5B%5D=5", ["5"]),  # brackets percent-encoded are brackets
        ("hours=a+b%26c", "a b&c"),  # "+" is a space; "&" encoded is part of the value
        ("hours", ""),  # a name without "=" is an empty value
        ("hours[a]junk=5", {"a": "5"}),
        # PHP's integer keys end at PHP_INT_MAX; a larger one is a string key (issue 23: int() once
        # refused 5,000 digits)
        ("hours[9223372036854775807]=a", {"9223372036854775807": "a"}),
        ("hours[9223372036854775808]=a&hours[]=b", {"9223372036854775808": "a", "0": "b"}),
        (f"hours[{'9' * 5000}]=a", {"9" * 5000: "a"}),
    ],
)
def test_examples(query_string, value):
    assert written(php_query.parse_php_query(query_string)["hours"]) == written(value)


def test_what_the_parameters_are_not():
    parsed = php_query.parse_php_query("hours[3=1&Hours=2")
    assert "hours" not in parsed  # an unclosed "[" makes no array of that name; names are case-sensitive


# --- the readers of 2.5 ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query_string, value",
    [
        ("", None),
        ("name=", None),
        ("name=%20%09%0A%0D%00%0B", None),  # trimmed of space, tab, LF, CR, NUL, vertical tab: nothing left
        ("name=%20AO-91%09%0A%0D%00%0B", "AO-91"),
        ("name=%0CAO-91", "\fAO-91"),  # a form feed is not trimmed
        ("name=AO%2091", "AO 91"),
        ("name=a&name=AO-91", "AO-91"),
        ("name[]=AO-91", "Array"),  # an array reads as the text "Array"
        ("name[x]=AO-91", "Array"),
    ],
)
def test_text(query_string, value):
    assert php_query.text(request(query_string), "name") == value


@pytest.mark.parametrize(
    "query_string, value",
    [
        ("", 24),  # absent: the default
        ("hours=", 24),  # exactly empty: the default
        ("hours=5", 5),
        ("hours=%205", 5),
        ("hours=5%20", 5),
        ("hours=%09%0A5%0D%0B%0C", 5),  # whitespace around a number
        ("hours=%2B3", 3),
        ("hours=5.9", 5),
        ("hours=.5", 1),
        ("hours=1e3", 720),  # truncated toward zero, then clamped
        ("hours=-3", 1),
        ("hours=0", 1),
        ("hours=721", 720),
        ("hours=720", 720),
        ("hours=1", 1),
        ("hours=" + "9" * 400, 720),  # absurdly large values saturate
        ("hours=-" + "9" * 400, 1),
        ("hours=abc&hours=7", 7),  # the last occurrence wins
    ],
)
def test_integer(query_string, value):
    assert php_query.integer(request(query_string), "hours", 24, 1, 720) == value


@pytest.mark.parametrize(
    "query_string, raw",
    [
        ("hours=%20", " "),  # only spaces is not numeric
        ("hours=0x1A", "0x1A"),
        ("hours=1_000", "1_000"),
        ("hours=12abc", "12abc"),
        ("hours=abc", "abc"),
        ("hours=7&hours=x", "x"),
        ("hours[]=5", ["5"]),  # an array: the raw array in the details
        ("hours[]=5&hours[]=6", ["5", "6"]),
        ("hours[a]=5", {"a": "5"}),
    ],
)
def test_integer_refused(query_string, raw):
    with pytest.raises(ApiError) as refused:
        php_query.integer(request(query_string), "hours", 24, 1, 720)
    error = refused.value
    assert (error.status, error.code, written(error.details)) == (400, "invalid_parameter", written({"hours": raw}))


@pytest.mark.parametrize(
    "query_string, value",
    [
        ("", False),
        ("include_stats=", False),
        ("include_stats=1", True),
        ("include_stats=true", True),
        ("include_stats=yes", True),
        ("include_stats=on", True),
        ("include_stats=%20TRUE%20", True),
        ("include_stats=On", True),
        ("include_stats=false", False),
        ("include_stats=0", False),
        ("include_stats=2", False),
        ("include_stats=y", False),
        ("include_stats=truee", False),
        ("include_stats=1&include_stats=0", False),
        ("include_stats[]=1", False),  # an array is false
    ],
)
def test_boolean(query_string, value):
    assert php_query.boolean(request(query_string), "include_stats") is value


def test_absent_is_none_for_raw():
    assert php_query.raw(request("hours=1"), "name") is None
