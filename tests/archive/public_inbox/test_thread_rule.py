"""public-inbox's thread rule: the subject keys are PublicInbox::OverIdx::subject_path's own answers
(perl -MPublicInbox::OverIdx, public-inbox 1.9)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from sathub.archive.public_inbox.thread_rule import same_thread, searched_word, subject_key


@pytest.mark.parametrize(
    ("subject", "key"),
    [
        ("Re:  Hello   world.. ", "hello_world"),
        ("[PATCH v2 1/3] net: fix it", "_patch_v2_1/3_net_fix_it"),
        ("RE: re: Re: twice", "re_re_twice"),  # one `Re: ` only
        ("Re:", "re_"),
        ("a+b=c (x)", "a_b_c_x_"),
    ],
)
def test_subject_key_is_public_inbox_subject_path(subject, key):
    assert subject_key(subject) == key


def test_an_empty_subject_has_no_key():
    assert subject_key("") is None and subject_key(None) is None


def test_the_searched_word_is_outside_the_list_tag():
    assert searched_word("Re: [python-committers] Azure build") == "Azure"
    assert searched_word("[python-committers]") == "committers"
    assert searched_word("?!") is None


def row(id, subject):
    return SimpleNamespace(id=id, subject=subject)


def test_same_thread_is_the_references_thread_or_the_subject():
    message = row(2, "[x] Plan")
    referenced = [row(1, "other"), message]
    candidates = [message, row(4, "[x] Plans"), row(3, "Re: [x] Plan."), row(5, "")]
    assert [found.id for found in same_thread(message, referenced, candidates)] == [1, 2, 3]


def test_without_a_subject_the_thread_is_the_references_thread():
    message = row(1, "")
    assert [found.id for found in same_thread(message, [message], [message, row(2, "")])] == [1]
