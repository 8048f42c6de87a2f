"""How text becomes words (docs/archive-search.md, "The query language"): runs of letters and
digits, case folded, Latin letters without their diacritics, other scripts' marks kept; held to the
examples of the documentation and to brute.py's normalisation, written apart."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sathub.archive.search.text import fold, spans, words
from tests.archive.search.brute import normal_words


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Horák", ["horak"]),
        ("HORAK horak", ["horak", "horak"]),
        ("Łódź", ["łodz"]),  # ł is a letter of its own, not an l with a mark
        ("Grüße", ["gruße"]),  # so is ß: no "ss"
        ("GRÜSSE", ["grusse"]),
        ("Ørsted", ["ørsted"]),
        ("йод", ["йод"]),  # the marks of other scripts stay
        ("don't", ["don", "t"]),
        ("abc_def", ["abc", "def"]),
        ("3gpp", ["3gpp"]),
        ("esr@thyrsus.com", ["esr", "thyrsus", "com"]),
        ("-- ... !", []),
    ],
)
def test_the_documented_words(text, expected):
    assert words(text) == expected


def test_fold_lowers_and_strips_latin_marks():
    assert fold("Ça VA") == "ca va"
    assert fold("Zoë Ünïcode") == "zoe unicode"


def test_spans_are_positions_in_the_text_as_given():
    text = "Un café, naïve ZOË"
    assert list(spans(text)) == [(0, 2, "un"), (3, 7, "cafe"), (9, 14, "naive"), (15, 18, "zoe")]
    assert [text[start:end] for start, end, _ in spans(text)] == ["Un", "café", "naïve", "ZOË"]


@given(st.text(alphabet="abzAZ019 _-.'@áÁèüÜßłŁøçÇйЙ日本\t\n", max_size=40))
def test_words_are_the_reference_normalisation(text):
    assert words(text) == normal_words(text)
    assert [word for _, _, word in spans(text)] == words(text)
