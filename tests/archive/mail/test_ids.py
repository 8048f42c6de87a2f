"""Identifiers (sathub.archive.mail.ids): Message-ID cleanup and hash, parent reference, default sender id."""

import pytest

from sathub.archive.mail.ids import (
    clean_message_id,
    default_mailman_id,
    message_id_hash,
    message_references,
    parent_reference,
)


def test_published_hash_vector():
    assert (
        message_id_hash(clean_message_id("<87myycy5eh.fsf@uwakimon.sk.tsukuba.ac.jp>"))
        == "JJIGKPKB6CVDX6B2CUG4IHAJRIQIOUTP"
    )


@pytest.mark.parametrize(
    "raw, cleaned",
    [
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
        # Header rules 5: non-ASCII characters dropped, the id ends where the parser ends it
        ("<a@b@c>", "a@b"),
        ("<caf\u00e9@example.org>", "caf@example.org"),
        # edge/non-ascii-headers.txt, edge/bad_date_tz.txt: real ids the steps leave alone
        ("<201207130149.23771.bjorn@xn--rombobjrn-67a.se>", "201207130149.23771.bjorn@xn--rombobjrn-67a.se"),
        ("<msg1>", "msg1"),
    ],
)
def test_message_id_cleanup(raw, cleaned):
    assert clean_message_id(raw) == cleaned


@pytest.mark.parametrize(
    "in_reply_to, references, parent",
    [
        ("<parent@x>", "<root@x> <other@x>", "parent@x"),
        ("<first@x> <second@x>", None, "first@x"),
        # gpsd-users line 54151 (unfolded): a trailing comment
        (
            "<Pine.LNX.4.64.0601171054590.28119@catbert.rellim.com> (from",
            None,
            "Pine.LNX.4.64.0601171054590.28119@catbert.rellim.com",
        ),
        # python-committers line 27014 (unfolded): the fold's space stays inside, so it matches nothing
        (
            "<94bdd2610910130816g42826010w3d20901683678ed3@mail.gmail.co m>",
            None,
            "94bdd2610910130816g42826010w3d20901683678ed3@mail.gmail.co m",
        ),
        # gpsd-users line 13515: In-Reply-To without brackets is used as it stands
        ("6667", "<root@x>", "6667"),
        # gpsd-users line 95224: In-Reply-To alone is used, even when it holds no id
        (
            'Your message of "Wed, 27 Sep 2006 11:50:45 PDT."',
            "<root@x>",
            'Your message of "Wed, 27 Sep 2006 11:50:45 PDT."',
        ),
        # edge/strange-in-reply-to-header.txt
        (
            "Other person's message of Saturday <200704070053.46646.other@example.com>",
            None,
            "200704070053.46646.other@example.com",
        ),
        (None, "<root@x> <middle@x> <last@x>", "last@x"),
        ("  ", "<root@x> <last@x>", "last@x"),  # a blank In-Reply-To does not count
        # References' last token is a bare id (Pine.LNX...@host form)
        (None, "<root@x> Pine.LNX.4.44.0401010000000.1234-100000@host", "Pine.LNX.4.44.0401010000000.1234-100000@host"),
        ("<200704070053.46646.other.person@example", None, None),  # `<` without a following `>`
        ("<>", None, None),
        (None, None, None),
    ],
)
def test_parent_reference(in_reply_to, references, parent):
    assert parent_reference(in_reply_to, references) == parent


def test_default_mailman_id_is_uuid5_of_the_lowercase_mailto_url():
    assert default_mailman_id("esr@thyrsus.com") == "c5ed4be36a3d596f84b61607e27f11c8"
    assert default_mailman_id("ESR@Thyrsus.COM") == "c5ed4be36a3d596f84b61607e27f11c8"


@pytest.mark.parametrize(
    ("references", "in_reply_to", "named"),
    [
        (["<a@x> <b@x>"], ["<b@x>"], ["a@x", "b@x"]),  # References first, each once
        (["<a@x>\n\t<b@x>", "<c@x>"], ["<d@x> (d's message)"], ["a@x", "b@x", "c@x", "d@x"]),  # every header
        (["<a@x> <me@x> <ann@x>"], ["<y>"], ["a@x"]),  # its own, a sender's address, git's `y` left out
        (["a@x"], ["n"], []),  # only what is between angle brackets
        (["<a @x>"], [], ["a@x"]),  # cleaned as a Message-ID is
    ],
)
def test_message_references_as_public_inbox_reads_them(references, in_reply_to, named):
    """PublicInbox::MID's references() and OverIdx's parse_references (public-inbox 1.9's source)."""
    assert message_references(references, in_reply_to, "me@x", {"ann@x"}) == named
