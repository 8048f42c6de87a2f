"""Identifiers (sathub.archive.mail.ids): Message-ID cleanup and hash, parent reference, default sender id."""

import pytest

from sathub.archive.mail.ids import clean_message_id, default_mailman_id, message_id_hash, parent_reference


def test_published_hash_vector():
    assert message_id_hash(clean_message_id("<87myycy5eh.fsf@uwakimon.sk.tsukuba.ac.jp>")) == \
        "JJIGKPKB6CVDX6B2CUG4IHAJRIQIOUTP"


@pytest.mark.parametrize("raw, cleaned", [
    ("<abc@example.com>", "abc@example.com"),
    ("  <abc@example.com>  (added by postmaster)", "abc@example.com"),
    ("<abc@\n example.com>", "abc@example.com"),
    ("abc@example.com", "abc@example.com"),
    ("<first@x> <second@x>", "first@x"),
    ("<unclosed@x", "unclosed@x"),
    ("<>", ""),
    ("<nul\x00@x>", "nul@x"),
    ("", ""),
    (None, ""),
    ("<" + "a" * 300 + ">", "a" * 254),
])
def test_message_id_cleanup(raw, cleaned):
    assert clean_message_id(raw) == cleaned


@pytest.mark.parametrize("in_reply_to, references, parent", [
    ("<parent@x>", "<root@x> <other@x>", "parent@x"),
    ("<first@x> <second@x>", None, "first@x"),
    ("Other person's message of Saturday <200704070053.46646.other@example.com>", None,
     "200704070053.46646.other@example.com"),
    (None, "<root@x> <middle@x>\n <last@x>", "last@x"),
    ("not an id", "<root@x> <last@x>", "last@x"),
    ("<200704070053.46646.other.person@example", None, None),  # unclosed: no <...> at all
    ("<>", None, None),
    (None, None, None),
])
def test_parent_reference(in_reply_to, references, parent):
    assert parent_reference(in_reply_to, references) == parent


def test_default_mailman_id_is_uuid5_of_the_lowercase_mailto_url():
    assert default_mailman_id("esr@thyrsus.com") == "c5ed4be36a3d596f84b61607e27f11c8"
    assert default_mailman_id("ESR@Thyrsus.COM") == "c5ed4be36a3d596f84b61607e27f11c8"
