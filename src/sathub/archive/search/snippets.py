"""The snippet of a result: a short plain-text extract around the first place the query's words
match, each matched word between \\u0002 and \\u0003 (the page escapes the text, then turns the
markers into <mark>). Computed here, from the stored text, the same way on both backends."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from sathub.archive.search.query import And, Node, Or, Term
from sathub.archive.search.text import spans

START, END = "\x02", "\x03"
WIDTH = 200  # characters of text in a snippet, about
BEFORE = 60  # characters of context shown before the first match
LOOK = 20_000  # characters of a body searched for the first match (the rest of a long log is not)


def wanted(node: Node, field: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """(words, prefixes) the query asks for in `field` (or in any field), outside any NOT."""
    found: set[str] = set()
    prefixes: list[str] = []

    def walk(item: Node) -> None:
        if isinstance(item, Term) and item.field in (None, field):
            *whole, last = item.words
            found.update(whole)
            if item.prefix:
                prefixes.append(last)
            else:
                found.add(last)
        elif isinstance(item, And | Or):
            for child in item.items:
                walk(child)
        # Not: words that must be absent are never marked

    walk(node)
    return frozenset(found), tuple(prefixes)


def matches(text: str, words: frozenset[str], prefixes: tuple[str, ...]) -> Iterator[tuple[int, int]]:
    """(start, end) in `text` of each of its words that is one of `words` or begins with one of
    `prefixes` (words as text.py folds them), in order."""
    if text.isascii():
        # Nearly all mail: one regular expression finds the words, where text.spans would fold
        # and compare every word of the text (most of a search's Python time).
        finder = _ascii_finder(words, prefixes)
        if finder is not None:
            yield from (found.span() for found in finder.finditer(text.lower()))
        return
    for start, end, word in spans(text):
        if word in words or (prefixes and word.startswith(prefixes)):
            yield start, end


@lru_cache(maxsize=256)
def _ascii_finder(words: frozenset[str], prefixes: tuple[str, ...]) -> re.Pattern[str] | None:
    """The whole words `words` and the words beginning with `prefixes` in lower-cased ASCII text.
    A word folded from other letters never equals an ASCII one, so only ASCII words are sought.

    Each alternative begins with its word, and checks what precedes it after: a pattern that
    begins with a literal is scanned for by the regular expression engine's fast search, one that
    begins with a lookbehind (or ignores case) is tried at every position (the snippets of the ten
    results of `ephemeris` on the corpus: 0.48 -> 0.30 ms, in process)."""
    alternatives = [_whole(word) for word in sorted(words) if word.isascii()]
    alternatives += [_whole(prefix) + "[a-z0-9]*" for prefix in prefixes if prefix.isascii()]
    if not alternatives:
        return None
    # A word is a run of letters and digits (text.WORD); in ASCII text, of [a-z0-9].
    return re.compile(f"(?:{'|'.join(alternatives)})(?![a-z0-9])", re.ASCII)


def _whole(word: str) -> str:
    """`word`, not preceded by a letter or a digit."""
    return f"{re.escape(word)}(?<![a-z0-9]{re.escape(word)})"


def snippet(tree: Node, subject: str, body: str) -> str:
    """The extract of `body` around its first matched word (within its first LOOK characters),
    else the subject with its matches marked when it has some, else the start of the body."""
    body_words, body_prefixes = wanted(tree, "body")
    text = " ".join(body[:LOOK].split())
    first = next(matches(text, body_words, body_prefixes), None)
    if first is None:
        line = " ".join(subject.split())
        subject_marks = list(matches(line, *wanted(tree, "subject")))
        if subject_marks:
            return _marked(line, subject_marks, 0, len(line))
        return _cut(text, 0, WIDTH)
    start = 0 if first[0] <= BEFORE else text.rfind(" ", 0, first[0] - BEFORE) + 1
    end = min(len(text), start + WIDTH)
    if end < len(text):
        end = max(text.rfind(" ", start, end), first[1])
    inside = [(start + s, start + e) for s, e in matches(text[start:end], body_words, body_prefixes)]
    return ("… " if start else "") + _marked(text, inside, start, end) + (" …" if end < len(text) else "")


def _marked(text: str, marks: list[tuple[int, int]], start: int, end: int) -> str:
    parts, at = [], start
    for mark_start, mark_end in marks:
        parts += [text[at:mark_start], START, text[mark_start:mark_end], END]
        at = mark_end
    parts.append(text[at:end])
    return "".join(parts)


def _cut(text: str, start: int, width: int) -> str:
    if len(text) <= width:
        return text
    end = text.rfind(" ", start, start + width)
    return text[start : end if end > start else start + width] + " …"
