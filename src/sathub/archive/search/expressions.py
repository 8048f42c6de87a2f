"""The query tree (query.py) as each engine's own query language: an FTS5 match expression for
SQLite, a tsquery for PostgreSQL. Pure text, no SQL: archive/store/search.py puts them in its
statements (docs/archive-search.md, "Engines, and why these")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sathub.archive.search import facets
from sathub.archive.search.query import And, DateRange, Exact, Node, Not, Or, Term

_SQLITE_COLUMNS = {"subject": "subject", "body": "body", "sender": "sender", "files": "files"}
_PG_WEIGHTS = {"subject": "A", "body": "B", "sender": "C", "files": "D"}


# SQLite's FTS5 expressions -------------------------------------------------------------------

# Words without a field that could be facets are asked of the four text columns alone (a column
# filter makes FTS5 read each match's positions: `gpsd` would count 40 % slower with one).
_TEXT_COLUMNS = "{" + " ".join(_SQLITE_COLUMNS.values()) + "}"
_NO_LIST = "l0"  # a facet no email has (list ids begin at 1): `l:` of a list that is not there


def _fts_term(term: Term) -> str:
    phrase = '"' + " ".join(term.words) + '"' + (" *" if term.prefix else "")
    if term.field:
        return f"{{{_SQLITE_COLUMNS[term.field]}}} : {phrase}"
    return f"{_TEXT_COLUMNS} : {phrase}" if facets.could_be_facets(term.words, term.prefix) else phrase


def facets_expression(words: Sequence[str]) -> str:
    """Any of the facet words `words` (facets.py), as FTS5 asks its facets column."""
    return "{facets} : " + (words[0] if len(words) == 1 else "(" + " OR ".join(words) + ")")


def fts_expression(node: Node, list_ids: Mapping[str, int]) -> str | None:
    """`node` as one FTS5 expression, or None when FTS5 cannot say it (`m:`, a NOT with nothing to
    subtract from, since FTS5's NOT is binary). Dates and lists are facets (archive/search/
    facets.py); `list_ids` maps list addresses to ids."""
    if isinstance(node, Term):
        return _fts_term(node)
    if isinstance(node, DateRange):
        return facets_expression(facets.date_words(node.start, node.end))
    if isinstance(node, Exact) and node.field == "l":
        return facets_expression([facets.list_word(list_ids[node.value]) if node.value in list_ids else _NO_LIST])
    if isinstance(node, Or):
        parts = [fts_expression(item, list_ids) for item in node.items]
        return None if None in parts else "(" + " OR ".join(p for p in parts if p) + ")"
    if isinstance(node, And):
        positive = [fts_expression(item, list_ids) for item in node.items if not isinstance(item, Not)]
        negative = [fts_expression(item.item, list_ids) for item in node.items if isinstance(item, Not)]
        if not positive or None in positive or None in negative:
            return None
        return "(" + " AND ".join(p for p in positive if p) + "".join(f" NOT {n}" for n in negative) + ")"
    return None


def has_words(node: Node) -> bool:
    """Whether `node` asks for words somewhere outside a NOT (else FTS5 has nothing to rank)."""
    if isinstance(node, Term):
        return True
    return isinstance(node, And | Or) and any(has_words(item) for item in node.items)


# PostgreSQL's tsquery ------------------------------------------------------------------------


def _ts_term(term: Term) -> str:
    def lexemes(weight: str) -> str:
        last = len(term.words) - 1
        return " <-> ".join(
            f"'{word}':{'*' if term.prefix and i == last else ''}{weight}" for i, word in enumerate(term.words)
        )

    if term.field:
        return "(" + lexemes(_PG_WEIGHTS[term.field]) + ")"
    if len(term.words) == 1:
        return "(" + lexemes("") + ")"
    # A phrase stays inside one field: positions of the fields follow one another in a document.
    return "(" + " | ".join(f"({lexemes(weight)})" for weight in _PG_WEIGHTS.values()) + ")"


def tsquery(node: Node) -> str | None:
    """`node` as a tsquery text (the lexemes are already words of text.py), or None when it holds
    dates or exact fields."""
    if isinstance(node, Term):
        return _ts_term(node)
    if isinstance(node, Not):
        inner = tsquery(node.item)
        return None if inner is None else f"!{inner}"
    if isinstance(node, And | Or):
        parts = [tsquery(item) for item in node.items]
        if None in parts:
            return None
        return "(" + (" & " if isinstance(node, And) else " | ").join(p for p in parts if p) + ")"
    return None
