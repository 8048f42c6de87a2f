"""Query parameters as PHP's $_GET reads them (status-api.md 2.5): the last occurrence of a name
wins, and `name[]=…` or `name[key]=…` make an array. An array is no value for any parameter:
as a string it reads "Array" (so `name[]=x` matches no satellite), as an integer it is refused
with the raw array in the error's details, as a boolean it is false."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl

from starlette.requests import Request

from sathub.status import rules
from sathub.status.api.responses import invalid_parameter

_ARRAY_KEY = re.compile(r"([^\[]+)\[([^\]]*)\]")
_INDEX = re.compile(r"0|[1-9][0-9]{0,18}")
_SCOPE_KEY = "sathub.php_query"

PhpValue = str | list | dict


def parse_php_query(query: str) -> dict[str, PhpValue]:
    params: dict[str, str | dict] = {}
    for key, value in parse_qsl(query, keep_blank_values=True):
        match = _ARRAY_KEY.match(key)
        if match is None:
            params[key] = value
            continue
        name, index = match.groups()
        array = params.get(name)
        if not isinstance(array, dict):
            array = params[name] = {}
        if index == "":  # the next integer index, as PHP appends
            index = max((k for k in array if isinstance(k, int)), default=-1) + 1
        elif _INDEX.fullmatch(index) and int(index) < 2**63:  # PHP's integer keys; a larger one stays text
            index = int(index)
        array[index] = value
    return {name: _as_json(value) for name, value in params.items()}


def _as_json(value: str | dict) -> PhpValue:
    """An array as PHP's json_encode writes it: a list when its keys are 0, 1, 2…, else an object."""
    if isinstance(value, str):
        return value
    if list(value) == list(range(len(value))):
        return list(value.values())
    return {str(key): item for key, item in value.items()}


def raw(request: Request, name: str) -> PhpValue | None:
    params = request.scope.get(_SCOPE_KEY)
    if params is None:
        params = request.scope[_SCOPE_KEY] = parse_php_query(request.url.query)
    return params.get(name)


def text(request: Request, name: str) -> str | None:
    """A string parameter: trimmed, and absent when empty."""
    value = raw(request, name)
    if value is None:
        return None
    return rules.php_trim(value if isinstance(value, str) else "Array") or None


def integer(request: Request, name: str, default: int, low: int, high: int) -> int:
    """An integer parameter: default when absent or empty, 400 when not numeric, else clamped."""
    value = raw(request, name)
    if value is None or value == "":
        return default
    number = rules.php_int(value) if isinstance(value, str) else None
    if number is None:
        raise invalid_parameter(name, value)
    return rules.clamp(number, low, high)


def boolean(request: Request, name: str) -> bool:
    value = raw(request, name)
    return isinstance(value, str) and rules.query_bool(value)
