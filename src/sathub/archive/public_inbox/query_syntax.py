"""public-inbox's search syntax (1.9's Xapian QueryParser, PublicInbox::Search) translated into
sathub's search language (docs/archive-search.md), in this one place, pure.

What lei sends is what `lei q` made of its arguments (Search::query_argv_to_string): its dates
already rewritten (`d:2018-07-01..` arrives as `d:20180701..`, `d:2.weeks.ago..` as
`dt:20240101120000..`, a saved search's `(…) AND dt:…..`), an argument with spaces quoted
(`s:"a b"`); the web form's `q=` is the user's own text, whose dates public-inbox reads with git's
approxidate (a subset here: `YYYY-MM-DD`, `YYYYMMDD`, `now`, `today`, `yesterday`, `N.<unit>.ago`,
`last.<unit>`).

    s: f: b: n: m:         the same fields in sathub's language
    mid:                   m: (the whole Message-ID)
    bs:                    (s:… OR b:…)
    q: nq: dfn: dfa: dfb: dfhh: dfctx: dfpre: dfpost: dfblob:
                           b: (sathub does not split quoted text or diffs out of the body)
    l: lid:                l: of the list whose List-Id it is (`a.example.org`: a@example.org)
    d:                     d: (a day alone, YYYYMMDD, is that day and the next: public-inbox's
                           inclusive range of the day and the day after)
    dt: rt:                d: to the second (rt:'s epoch seconds; sathub has one date, the Date's)
    t: c: tc: a: tcf: patchid: z: uid:    refused (sathub keeps no To/Cc, patch-id or size index)
    + (required word)      dropped: every word is required, as public-inbox's default AND
    “…” (curly quotes)     "…"
    XOR, NEAR, ADJ         refused

The rest (words, `"phrases"`, `word*`, `-`, AND, OR, NOT, parentheses) is sathub's language as it
is."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from sathub.archive.search.query import QueryError

_SAME = {"s": "s", "f": "f", "b": "b", "n": "n", "m": "m", "mid": "m", "l": "l", "lid": "l"}
_BODY = ("q", "nq", "dfn", "dfa", "dfb", "dfhh", "dfctx", "dfpre", "dfpost", "dfblob")
_DATES = ("d", "dt", "rt")
_REFUSED = {
    **dict.fromkeys(("t", "c", "tc", "a", "tcf"), "sathub does not index To and Cc: search f: (From), s: or b:"),
    "patchid": "sathub does not index patch-ids",
    "z": "sathub does not search by size",
    "uid": "uid: is for lei's own store",
}
_OPERATORS_REFUSED = ("XOR", "NEAR", "ADJ")
_PREFIXED = re.compile(r"([+-]?)([a-z]+):(.*)", re.S)
_CURLY = str.maketrans("\u201c\u201d", '""')
_UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 7 * 86400}
_AGO = re.compile(r"(\d+|last|a|an)[._ ]?(second|minute|hour|day|week|month|year)s?(?:[._ ]ago)?")
_STAMP = re.compile(r"\d{14}")
_DAY8 = re.compile(r"(\d{4})(\d{2})(\d{2})")
_DASHED_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def translate(text: str, now: datetime | None = None) -> str:
    """sathub's query for public-inbox's `text` (`now`, UTC: what relative dates count from);
    QueryError for what sathub does not search."""
    now = now or datetime.now(UTC).replace(tzinfo=None)
    return " ".join(_translated(token, position, now) for token, position in _tokens(text.translate(_CURLY)))


def _tokens(text: str) -> list[tuple[str, int]]:
    """Blank-separated pieces, a quoted phrase kept whole with what stands against it
    (`s:"a b"*`), parentheses their own pieces; each with its position from 1."""
    tokens, i, length = [], 0, len(text)
    while i < length:
        if text[i].isspace():
            i += 1
            continue
        if text[i] in "()":
            tokens.append((text[i], i + 1))
            i += 1
            continue
        start = i
        while i < length and not text[i].isspace() and text[i] not in "()":
            if text[i] == '"':
                close = text.find('"', i + 1)
                i = length if close < 0 else close + 1
            else:
                i += 1
        tokens.append((text[start:i], start + 1))
    return tokens


def _translated(token: str, position: int, now: datetime) -> str:
    if token in _OPERATORS_REFUSED or token.startswith("NEAR/") or token.startswith("ADJ/"):
        raise QueryError(f"sathub does not search with {token.split('/')[0]}", position)
    named = _PREFIXED.fullmatch(token)
    if named is None:
        return token.removeprefix("+") if len(token) > 1 else token
    sign, prefix, value = named.groups()
    sign = sign.replace("+", "")
    if prefix in _REFUSED:
        raise QueryError(f"{prefix}: is not searched here: {_REFUSED[prefix]}", position)
    if prefix in _DATES:
        return f"{sign}d:{_date_range(prefix, value, now, position)}"
    if prefix == "bs":
        return f"{sign}(s:{value} OR b:{value})"
    if prefix in _BODY:
        return f"{sign}b:{value}"
    if prefix in ("l", "lid"):
        value = _list_address(value)
    if prefix in _SAME:
        return f"{sign}{_SAME[prefix]}:{value}"
    return token.removeprefix("+")  # not a prefix of public-inbox's: words, as Xapian reads them


def _list_address(value: str) -> str:
    """The list address of a List-Id (`<a.example.org>` or `a.example.org`); an address as is."""
    bare = value.strip('"').strip().removeprefix("<").removesuffix(">")
    return bare if "@" in bare else bare.replace(".", "@", 1)


def _date_range(prefix: str, value: str, now: datetime, position: int) -> str:
    """sathub's range (`start..end`, an end inclusive to its day or second) of public-inbox's."""
    start, dots, end = value.partition("..")
    if dots:
        return f"{_end(prefix, start, now, position)}..{_end(prefix, end, now, position)}"
    single = _end(prefix, start, now, position)
    if len(single) == 8:  # a day alone: it and the next (Search::date_parse_prepare's "+1 day")
        after = datetime.strptime(single, "%Y%m%d") + timedelta(days=1)
        return f"{single}..{after:%Y%m%d}"
    if len(single) == 14:
        after = datetime.strptime(single, "%Y%m%d%H%M%S") + timedelta(days=1)
        return f"{single}..{after:%Y%m%d%H%M%S}"
    return single  # sathub's own YYYY, YYYY-MM


def _end(prefix: str, text: str, now: datetime, position: int) -> str:
    """One end of a range as sathub's d: reads it: YYYYMMDD, YYYYMMDDHHMMSS, or sathub's forms."""
    if text == "":
        return ""
    if prefix == "rt" and text.isascii() and text.isdigit() and len(text) >= 5:
        return f"{datetime.fromtimestamp(int(text), UTC):%Y%m%d%H%M%S}"
    if _STAMP.fullmatch(text) or _DAY8.fullmatch(text):
        return text
    if dashed := _DASHED_DAY.fullmatch(text):
        return "".join(dashed.groups())
    if re.fullmatch(r"\d{4}(?:-?\d{2})?", text):
        return text
    return f"{_approxidate(text.lower(), now, position):%Y%m%d%H%M%S}"


def _approxidate(text: str, now: datetime, position: int) -> datetime:
    """The instant git's approxidate gives for the forms public-inbox's help shows."""
    if text in ("now", "today"):
        return now
    if text == "yesterday":
        return now - timedelta(days=1)
    ago = _AGO.fullmatch(text)
    if ago is None:
        raise QueryError(
            f"{text!r} is not a date: YYYY-MM-DD, YYYYMMDD, YYYYMMDDHHMMSS, now, yesterday, N.days.ago", position
        )
    count = 1 if ago[1] in ("last", "a", "an") else int(ago[1])
    unit = ago[2]
    try:
        if unit in _UNITS:
            return now - timedelta(seconds=count * _UNITS[unit])
    except OverflowError:
        raise QueryError(f"{text!r} is before year 1", position) from None
    months = count * (12 if unit == "year" else 1)
    year, month = divmod(now.year * 12 + now.month - 1 - months, 12)
    if year < 1:
        raise QueryError(f"{text!r} is before year 1", position)
    day = min(now.day, 28) if month + 1 == 2 else min(now.day, 30 if month + 1 in (4, 6, 9, 11) else 31)
    return now.replace(year=year, month=month + 1, day=day)
