"""Snippets (docs/archive-search.md, "The JSON API"): the words a query asks for are marked where
they are whole words of the text, in any case; a prefix marks the words it begins. ASCII text is
searched by one regular expression, other text word by word: both are held here to a plain scan
of the text's words, written apart from either."""

import re

from hypothesis import given
from hypothesis import strategies as st

from sathub.archive.search.query import parse
from sathub.archive.search.snippets import END, START, matches, snippet


def scanned(text: str, words: frozenset[str], prefixes: tuple[str, ...]) -> list[tuple[int, int]]:
    """The matches of an ASCII text by the documented rule: a word is a run of letters and digits,
    compared in lower case, whole or by its beginning."""
    found = []
    for word in re.finditer(r"[A-Za-z0-9]+", text):
        lower = word.group().lower()
        if lower in words or any(lower.startswith(prefix) for prefix in prefixes):
            found.append(word.span())
    return found


VOCABULARY = ["gps", "gpsd", "GPSD", "Gps", "time", "timer", "ntp", "x1", "a_b", "e-mail", "naive"]
texts = st.lists(
    st.one_of(st.sampled_from(VOCABULARY), st.text(alphabet="abgpsdt01 _-.,\n", max_size=6)), max_size=30
).map(" ".join)
asked = st.frozensets(st.sampled_from(["gps", "gpsd", "time", "ntp", "x1", "mail", "naive"]), max_size=3)
begun = st.lists(st.sampled_from(["gp", "tim", "x", "na"]), max_size=2).map(tuple)


@given(texts, asked, begun)
def test_matches_are_the_whole_words_asked_for_or_begun(text, words, prefixes):
    assert list(matches(text, words, prefixes)) == scanned(text, words, prefixes)
    # Text that is not ASCII takes the word-by-word path: its ASCII words are marked alike.
    assert list(matches(text + " é", words, prefixes)) == scanned(text, words, prefixes)


def test_a_word_is_marked_whole_never_inside_a_longer_run_of_letters_and_digits():
    assert list(matches("1gps gps2 gps_x gps", frozenset({"gps"}), ())) == [(10, 13), (16, 19)]
    assert list(matches("x1gp gp3", frozenset(), ("gp",))) == [(5, 8)]


def test_folded_words_are_marked_in_text_that_is_not_ascii():
    assert list(matches("Un café naïve, NAIVE", frozenset({"naive", "cafe"}), ())) == [(3, 7), (8, 13), (15, 20)]


def test_the_snippet_marks_every_asked_word_of_its_window_and_no_negated_one():
    body = "Nothing here. " * 10 + "The gpsd daemon talks to GPS receivers; gpsd-python is not marked, python is not."
    result = snippet(parse("gpsd gps* -python"), "Subject", body)
    assert result.startswith("… ")
    assert f"{START}gpsd{END} daemon talks to {START}GPS{END} receivers; {START}gpsd{END}-python" in result
    assert f"{START}python" not in result


def test_without_a_match_in_the_body_the_subject_is_marked():
    assert snippet(parse("s:release"), "Release candidate 2", "no words") == f"{START}Release{END} candidate 2"
