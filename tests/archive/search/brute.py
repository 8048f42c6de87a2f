"""A brute-force matcher of the search language, written apart from the SQL path: a plain Python
scan over every stored email, with the normalisation docs/archive-search.md states (words are runs
of letters and digits; case folded; the diacritics of Latin letters removed; no stemming)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from sathub.archive.search.query import And, DateRange, Exact, Not, Or, Term

_MARKS = re.compile("([\u0001-\u024f\u1e00-\u1eff])[\u0300-\u036f]+")


def normal_words(text: str) -> list[str]:
    text = unicodedata.normalize("NFC", _MARKS.sub(r"\1", unicodedata.normalize("NFD", text))).lower()
    return [w for w in re.split(r"[\W_]+", text) if w]


@dataclass
class Doc:
    id: int
    list_name: str
    message_id: str
    date: object
    fields: dict[str, list[str]] = field(default_factory=dict)
    # Each field's words as a set: a word the field lacks rules the email out before any scan (the
    # scans of every token made the property tests of tests/archive/store/test_search.py take
    # 130 s a backend, most of the suite's longest test).
    vocabulary: dict[str, frozenset[str]] = field(init=False)

    def __post_init__(self) -> None:
        self.vocabulary = {name: frozenset(words) for name, words in self.fields.items()}

    def has_phrase(self, name: str, words: tuple[str, ...], prefix: bool) -> bool:
        vocabulary = self.vocabulary[name]
        if not all(word in vocabulary for word in (words[:-1] if prefix else words)):
            return False
        if len(words) == 1:
            return not prefix or any(token.startswith(words[0]) for token in vocabulary)
        return has_phrase(self.fields[name], words, prefix)


def has_phrase(tokens: list[str], words: tuple[str, ...], prefix: bool) -> bool:
    n = len(words)
    for i in range(len(tokens) - n + 1):
        if all(tokens[i + k] == words[k] for k in range(n - 1)):
            last = tokens[i + n - 1]
            if last.startswith(words[-1]) if prefix else last == words[-1]:
                return True
    return False


def matches(doc: Doc, node) -> bool:
    if isinstance(node, Term):
        names = [node.field] if node.field else list(doc.fields)
        return any(doc.has_phrase(name, node.words, node.prefix) for name in names)
    if isinstance(node, And):
        return all(matches(doc, item) for item in node.items)
    if isinstance(node, Or):
        return any(matches(doc, item) for item in node.items)
    if isinstance(node, Not):
        return not matches(doc, node.item)
    if isinstance(node, DateRange):
        return (node.start is None or doc.date >= node.start) and (node.end is None or doc.date < node.end)
    if isinstance(node, Exact):
        return doc.message_id == node.value if node.field == "m" else doc.list_name == node.value
    raise TypeError(node)
