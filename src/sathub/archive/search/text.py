"""How text becomes words for search (docs/archive-search.md, "Words"): the one normalisation the
query parser, the snippets and both database indexes share.

A word is a maximal run of letters and digits (underscore and every other character separate
words). Case is folded, and diacritics are removed from Latin letters (`Horák` → `horak`,
`Łódź` → `łodz`: `ł` is a letter of its own, not an `l` with a mark), as SQLite FTS5's
`unicode61 remove_diacritics 2` tokenizer does; other scripts keep their marks (`йод` stays).
PostgreSQL's trigger function `search_words` (migration 0010) applies the same steps in SQL.
There is no stemming: `release` is not `releases`."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

# A base letter of the Latin blocks followed by combining diacritical marks (after NFD).
_LATIN_MARKS = re.compile("([\u0001-\u024f\u1e00-\u1eff])[\u0300-\u036f]+")
WORD = re.compile(r"[^\W_]+")


def fold(text: str) -> str:
    """`text` lower-cased, without the diacritics of Latin letters, recomposed (NFC)."""
    if text.isascii():
        return text.lower()
    stripped = _LATIN_MARKS.sub(r"\1", unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFC", stripped).lower()


def words(text: str) -> list[str]:
    """The searchable words of `text`, in order."""
    return WORD.findall(fold(text))


def spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, folded word) of each word of `text`, positions in `text` itself (snippets)."""
    for match in WORD.finditer(text):
        found = match.group()
        if found.isascii():  # nearly every word of mail: folding is lower case, and it stays one word
            yield match.start(), match.end(), found.lower()
            continue
        for word in words(found):  # a word folds to one word, save for exotic marks
            yield match.start(), match.end(), word
