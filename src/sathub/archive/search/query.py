"""The archive's query language (docs/archive-search.md): text in, a small tree out.

    query    := or_expr
    or_expr  := and_expr ("OR" and_expr)*
    and_expr := unary (["AND"] unary)*          juxtaposition is AND
    unary    := "NOT" unary | "-" primary | primary
    primary  := "(" or_expr ")" | [field ":"] (word | word* | "a phrase" | "a phrase"*)

Fields: s (subject), b (body), f (sender name or address), n (attachment file names), m
(Message-ID, exact), l (list address, exact), d (a date range). OR, AND and NOT are operators
only in capitals; `or` is a word. Both database backends compile the same tree (store/search.py),
and the tests compare them with a plain Python scan over the same tree.

A query the service will not run raises QueryError with what is wrong and where (the character
position, from 1): the API and the page answer it as a 400."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sathub.archive.search.text import words

# The limits (docs/archive-search.md, "Limits"): beyond them a query costs more than it is worth.
MAX_LENGTH = 500  # characters of the query
MAX_WORDS = 32  # words of every term together
MAX_DEPTH = 8  # parentheses and NOT inside one another
MIN_PREFIX = 3  # characters before a `*`
# Prefixes and phrases (a fielded value of several words is one) of one query together, wherever
# they stand (under OR or NOT too): an index reads every word a prefix expands to, and every
# position of a phrase's words. On the corpus (27,970 messages), 32 prefixes of 3 letters ORed
# took 199 ms on SQLite, 8 phrases of common words ORed 102 ms on PostgreSQL; within this limit
# the worst found took 73 and 75 ms (docs/archive-search.md, "Limits").
MAX_COSTLY = 4

TEXT_FIELDS = {"s": "subject", "b": "body", "f": "sender", "n": "files"}
EXACT_FIELDS = {"m": "message_id", "l": "list"}
FIELDS = {*TEXT_FIELDS, *EXACT_FIELDS, "d"}


class QueryError(ValueError):
    def __init__(self, message: str, position: int) -> None:
        super().__init__(f"{message} (at character {position})")
        self.position = position


@dataclass(frozen=True)
class Term:
    """Words that must follow one another (one word, or a phrase) in `field`, or in any text
    field when `field` is None; with `prefix`, the last word is a prefix."""

    words: tuple[str, ...]
    field: str | None = None
    prefix: bool = False


@dataclass(frozen=True)
class Exact:
    """`m:` (the Message-ID without angle brackets) or `l:` (the list address, lowercase)."""

    field: str
    value: str


@dataclass(frozen=True)
class DateRange:
    """Emails whose date is at or after `start` and before `end` (either may be open)."""

    start: datetime | None
    end: datetime | None


@dataclass(frozen=True)
class And:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Or:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Not:
    item: Node


Node = Term | Exact | DateRange | And | Or | Not

_FIELD = re.compile(r"([a-z]):", re.IGNORECASE)
_OPERATORS = ("OR", "AND", "NOT")


@dataclass
class _Token:
    kind: str  # "(", ")", "OR", "AND", "NOT", "-", "term"
    position: int
    text: str = ""
    field: str | None = None


def parse(text: str) -> Node:
    """The tree of `text`; QueryError when it cannot be parsed or would cost too much."""
    if len(text) > MAX_LENGTH:
        raise QueryError(f"the query is longer than {MAX_LENGTH} characters", MAX_LENGTH + 1)
    if "\x00" in text:
        raise QueryError("the query contains a NUL character", text.index("\x00") + 1)
    parser = _Parser(_tokens(text), len(text))
    if not parser.tokens:
        raise QueryError("the query is empty", 1)
    node = parser.or_expr(0)
    if parser.index < len(parser.tokens):
        token = parser.tokens[parser.index]
        raise QueryError("unexpected ')'" if token.kind == ")" else f"unexpected {token.kind}", token.position)
    if node is None:
        raise QueryError("the query has no word to search for", 1)
    if _count_words(node) > MAX_WORDS:
        raise QueryError(f"the query has more than {MAX_WORDS} words", 1)
    if len(parser.costly) > MAX_COSTLY:
        raise QueryError(f"the query has more than {MAX_COSTLY} prefixes and phrases", parser.costly[MAX_COSTLY])
    return node


def _tokens(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    i, length = 0, len(text)
    while i < length:
        char = text[i]
        if char.isspace():
            i += 1
        elif char in "()":
            tokens.append(_Token(char, i + 1))
            i += 1
        elif char == "-" and i + 1 < length and not text[i + 1].isspace() and text[i + 1] not in ")-":
            tokens.append(_Token("-", i + 1))
            i += 1
        else:
            start, field = i, None
            named = _FIELD.match(text, i)
            if named and named.group(1).lower() in FIELDS:
                field, i = named.group(1).lower(), named.end()
            if i < length and text[i] == '"':
                close = text.find('"', i + 1)
                if close < 0:
                    raise QueryError("unclosed quote", i + 1)
                end = close + 2 if close + 1 < length and text[close + 1] == "*" else close + 1
            else:
                end = i
                while end < length and not text[end].isspace() and text[end] not in '()"':
                    end += 1
            value, i = text[i:end], end
            if field is None and value in _OPERATORS:
                tokens.append(_Token(value, start + 1))
            else:
                tokens.append(_Token("term", start + 1, value, field))
    return tokens


class _Parser:
    """The grammar's levels, each answering None for what holds no word: a run of punctuation
    alone (`--`) matches nothing and is left out beside words (`gps --` is `gps`, `a OR --` is
    `a`), and a group, a NOT or the query with nothing else is refused where it stands, so that no
    tree holds an empty AND or OR (`-- OR --` was `(() | ())` to PostgreSQL, an error)."""

    def __init__(self, tokens: list[_Token], length: int) -> None:
        self.tokens, self.index, self.length = tokens, 0, length
        self.costly: list[int] = []  # the position of each prefix and phrase

    def peek(self) -> _Token | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def or_expr(self, depth: int) -> Node | None:
        items = [self.and_expr(depth)]
        while (token := self.peek()) is not None and token.kind == "OR":
            self.index += 1
            items.append(self.and_expr(depth))
        return _joined(Or, items)

    def and_expr(self, depth: int) -> Node | None:
        items = [self.unary(depth)]
        while (token := self.peek()) is not None and token.kind not in ("OR", ")"):
            if token.kind == "AND":
                self.index += 1
            items.append(self.unary(depth))
        return _joined(And, items)

    def unary(self, depth: int) -> Node | None:
        token = self.peek()
        if token is None:
            raise QueryError("the query ends where a word was expected", self.length + 1)
        if token.kind in ("NOT", "-"):
            if depth >= MAX_DEPTH:
                raise QueryError(f"more than {MAX_DEPTH} levels of NOT and parentheses", token.position)
            self.index += 1
            following = self.peek()
            if token.kind == "-" and (following is None or following.kind not in ("term", "(")):
                raise QueryError("'-' must stand right before a word or '('", token.position)
            inner = self.primary(depth + 1) if token.kind == "-" else self.unary(depth + 1)
            if inner is None:
                raise QueryError("NOT of nothing searchable", token.position)
            return Not(inner)
        return self.primary(depth)

    def primary(self, depth: int) -> Node | None:
        token = self.peek()
        if token is None:
            raise QueryError("the query ends where a word was expected", self.length + 1)
        self.index += 1
        if token.kind == "(":
            if depth >= MAX_DEPTH:
                raise QueryError(f"more than {MAX_DEPTH} levels of NOT and parentheses", token.position)
            if (following := self.peek()) is not None and following.kind == ")":
                raise QueryError("empty parentheses", token.position)
            node = self.or_expr(depth + 1)
            close = self.peek()
            if close is None or close.kind != ")":
                raise QueryError("'(' is never closed", token.position)
            if node is None:
                raise QueryError("the parentheses hold no word to search for", token.position)
            self.index += 1
            return node
        if token.kind == "term":
            term = _term(token)
            if isinstance(term, Term) and (term.prefix or len(term.words) > 1):
                self.costly.append(token.position)
            return term
        raise QueryError(
            "unexpected ')'" if token.kind == ")" else f"{token.kind} where a word was expected", token.position
        )


def _joined(kind: type[And] | type[Or], items: list[Node | None]) -> Node | None:
    """The `kind` of the `items` that hold words (one alone is itself), None when none does."""
    kept = tuple(item for item in items if item is not None)
    if len(kept) > 1:
        return kind(kept)
    return kept[0] if kept else None


def _term(token: _Token) -> Node | None:
    """The term of `token`; None for a bare run of punctuation (`--`, `...`), which has no word."""
    text, field, position = token.text, token.field, token.position
    if field == "d":
        return _date_range(text, position)
    if field in EXACT_FIELDS:
        value = text[1:-1] if text.startswith('"') and text.endswith('"') and len(text) > 1 else text
        value = value.strip().removeprefix("<").removesuffix(">").strip()
        if not value:
            raise QueryError(f"{field}: needs a value", position)
        return Exact(field, value.lower() if field == "l" else value)
    prefix = text.endswith("*")
    body = text[:-1] if prefix else text
    if body.startswith('"') and body.endswith('"') and len(body) > 1:
        body = body[1:-1]
    found = tuple(words(body))
    if not found:
        if field:
            raise QueryError(f"{field}: needs a word", position)
        if prefix:
            raise QueryError("'*' must follow a word", position)
        return None
    if prefix and len(found[-1]) < MIN_PREFIX:
        raise QueryError(f"a prefix needs at least {MIN_PREFIX} characters before '*'", position)
    return Term(found, TEXT_FIELDS[field] if field else None, prefix)


_DAY = re.compile(r"(\d{4})(?:-?(\d{2})(?:-?(\d{2}))?)?")
_SECOND = re.compile(r"[0-9]{14}")


def _date_range(text: str, position: int) -> DateRange:
    start_text, dots, end_text = text.partition("..")
    if not dots:
        end_text = start_text
    if not start_text and not end_text:
        raise QueryError("d: needs a date: YYYY, YYYY-MM or YYYY-MM-DD, or a range a..b", position)
    start = _period(start_text, position)[0] if start_text else None
    end = _period(end_text, position + len(start_text) + len(dots))[1] if end_text else None
    if start and end and start >= end:
        raise QueryError("the date range ends before it starts", position)
    return DateRange(start, end)


def _period(text: str, position: int) -> tuple[datetime, datetime]:
    """The first instant of the year, month, day or second (YYYYMMDDHHMMSS: public-inbox's `dt:`,
    public_inbox/query_syntax.py) `text` names, and the first instant after it."""
    if _SECOND.fullmatch(text):
        try:
            first_second = datetime.strptime(text, "%Y%m%d%H%M%S")
        except ValueError:
            raise QueryError(f"{text!r} is not a date", position) from None
        last = first_second >= datetime.max - timedelta(seconds=1)
        return first_second, datetime.max if last else first_second + timedelta(seconds=1)
    match = _DAY.fullmatch(text)
    if match is None:
        raise QueryError(f"{text!r} is not a date: YYYY, YYYY-MM or YYYY-MM-DD", position)
    year, month, day = int(match[1]), int(match[2] or 1), int(match[3] or 1)
    try:
        first = date(year, month, day)
    except ValueError:
        raise QueryError(f"{text!r} is not a date", position) from None
    if match[3]:
        after = date.fromordinal(first.toordinal() + 1) if first < date.max else None
    elif match[2]:
        after = date(year + (month == 12), month % 12 + 1, 1) if year < 9999 or month < 12 else None
    else:
        after = date(year + 1, 1, 1) if year < 9999 else None
    end = datetime.combine(after, datetime.min.time()) if after else datetime.max
    return datetime.combine(first, datetime.min.time()), end


def _count_words(node: Node) -> int:
    if isinstance(node, Term):
        return len(node.words)
    if isinstance(node, And | Or):
        return sum(_count_words(item) for item in node.items)
    if isinstance(node, Not):
        return _count_words(node.item)
    return 1
