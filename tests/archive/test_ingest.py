"""Mail rules of sathub.archive.ingest: identifiers, senders, headers, dates (no database)."""

from datetime import datetime

import pytest

from sathub.archive.charsets import decode_header
from sathub.archive.ingest import (
    PLACEHOLDER_ADDRESS, clean_message_id, default_mailman_id, first_headers, generated_message_id, message_dates,
    message_id_hash, parent_reference, parse_date, parse_email, parse_message, sender,
)
from tests.conftest import SHARED_DATA

EDGE = SHARED_DATA / "mail" / "edge"
IMPORT_TIME = datetime(2030, 1, 1)


def edge_email(name: str):
    """The first message of an edge file, parsed as the importer does."""
    from_line, _, data = (EDGE / name).read_bytes().partition(b"\n")
    return parse_email(data, from_line.decode("latin-1"), IMPORT_TIME)


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


def test_a_message_answering_itself_is_a_root():
    email = parse_email(b"Message-ID: <me@x>\nIn-Reply-To: <me@x>\nFrom: a@x\n\nbody\n", None, IMPORT_TIME)
    assert email.in_reply_to is None


def test_default_mailman_id_is_uuid5_of_the_lowercase_mailto_url():
    assert default_mailman_id("esr@thyrsus.com") == "c5ed4be36a3d596f84b61607e27f11c8"
    assert default_mailman_id("ESR@Thyrsus.COM") == "c5ed4be36a3d596f84b61607e27f11c8"


@pytest.mark.parametrize("header, address, name", [
    ("esr at thyrsus.com (Eric S. Raymond)", "esr@thyrsus.com", "Eric S. Raymond"),
    ("esr at snark.thyrsus.com", "esr@snark.thyrsus.com", "esr@snark.thyrsus.com"),
    ("bbolli at ewanet.ch (Beat Bolli <bbolli@ewanet.ch>)", "bbolli@ewanet.ch", "Beat Bolli <bbolli@ewanet.ch>"),
    ("vondruch at redhat.com (=?ISO-8859-2?Q?V=EDt_Ondruch?=)", "vondruch@redhat.com", "Vít Ondruch"),
    ("wk0 at o2.pl (=?UTF-8?Q? Wojciech=20Kazubski ?=)", "wk0@o2.pl", "Wojciech Kazubski"),
    ('"Some One" <zzz@cse.unl.edu>', "zzz@cse.unl.edu", "Some One"),
    ("Tomas =?utf-8?q?Toftg=C3=A5rd?= <tomas.toftgard@ERICSSON.COM>", "tomas.toftgard@ericsson.com",
     "Tomas Toftgård"),
    ("  <xxx@korea.com>", "xxx@korea.com", "xxx@korea.com"),
    ("SOME@ONE.NET", "some@one.net", "SOME@ONE.NET"),
    ("John Doe", PLACEHOLDER_ADDRESS, "John Doe"),
    ("", PLACEHOLDER_ADDRESS, PLACEHOLDER_ADDRESS),
    (None, PLACEHOLDER_ADDRESS, PLACEHOLDER_ADDRESS),
])
def test_sender_forms(header, address, name):
    assert sender(header) == (address, name)


@pytest.mark.parametrize("raw, decoded", [
    ("[Gpsd-dev] plain", "[Gpsd-dev] plain"),
    ("=?iso-8859-1?q?Caf=E9?= au lait", "Café au lait"),
    ("=?utf-8?b?w6k=?= =?utf-8?b?w6k=?=", "éé"),  # whitespace between encoded words is dropped
    ("=?utf-8?b?ww==?= =?utf-8?b?qQ==?=", "é"),  # one character split over two words
    ("=?utf-8?q?=C3?=\n =?utf-8?q?=A9t=C3=A9?=", "été"),
    ("a\n\tfolded subject", "a\tfolded subject"),
    ("=?x-unknown?q?caf=E9?=", "caf\ufffd"),
    ("Y=?", "Y=?"),
    ("raw 8-bit caf\udce9", "raw 8-bit café"),  # undeclared 8-bit header bytes: iso8859-15
    ("nul\x00byte", "nulbyte"),
])
def test_decode_header(raw, decoded):
    assert decode_header(raw) == decoded


def test_bad_folding_keeps_the_text_on_one_line():
    email = edge_email("bad_folding.txt")
    assert email.subject == "[<redacted>]  Sicherheit 2005: Stichworte und Vorschlag PC-Mitglieder; Ergänzung!"


def test_bad_subject_header_is_decoded_with_its_declared_charset():
    # The text before the encoded word is kept; iso-8859-1 maps byte 0x85 to U+0085.
    assert edge_email("bad-subject-header.txt").subject == "(et en plus, en local\x85)"


@pytest.mark.parametrize("value, utc", [
    ("Thu, 19 Aug 2004 18:02:18 -0400", datetime(2004, 8, 19, 22, 2, 18)),
    ("Fri,  6 Apr 2007 15:43:55 -0700 (PDT)", datetime(2007, 4, 6, 22, 43, 55)),
    ("Tue, 30 Nov 1999 23:56:33 +05-30", datetime(1999, 11, 30, 18, 26, 33)),
    ("Tue, 30 Nov 1999 23:56:33 +05:30", datetime(1999, 11, 30, 18, 26, 33)),
    ("Tue, 30 Nov 1999 23:56:33 -3000 (CST)", datetime(1999, 11, 30, 23, 56, 33)),  # no such zone: UTC
    ("Mon Nov  9 21:54:11 1999", datetime(1999, 11, 9, 21, 54, 11)),  # asctime, From_ lines
    ("Thu, 19 Aug 2004 18:02:60 +0000", datetime(2004, 8, 19, 18, 2, 59)),  # leap second
    ("\u00bc\u00f6, 27 6 2001 15:23:36", None),
    ("yesterday", None),
    ("", None),
])
def test_parse_date(value, utc):
    assert parse_date(value) == utc


def dates(headers: str, from_line: str | None):
    return message_dates(first_headers(parse_message(headers.encode() + b"\n\nbody\n")), from_line, IMPORT_TIME)


def test_date_falls_back_to_resent_date_then_from_line_then_import_time():
    line = "From zzz@example.com  Mon Nov  9 21:54:11 1999"
    assert dates("Date: Mon, 8 Nov 1999 20:53:05 -0600", line)[0] == datetime(1999, 11, 9, 2, 53, 5)
    assert dates("Resent-Date: Mon, 8 Nov 1999 20:53:05 -0600", line)[0] == datetime(1999, 11, 9, 2, 53, 5)
    assert dates("Date: garbage", line)[0] == datetime(1999, 11, 9, 21, 54, 11)
    assert dates("Subject: no date", None)[0] == IMPORT_TIME


def test_archived_date_is_the_from_line_date_only_when_that_line_names_an_address():
    header = "Date: Mon, 8 Nov 1999 20:53:05 -0600"
    assert dates(header, "From zzz@example.com  Mon Nov  9 21:54:11 1999")[1] == datetime(1999, 11, 9, 21, 54, 11)
    # pipermail's separator reads `user at example.org`: no address, so the Date header
    assert dates(header, "From zzz at example.com  Mon Nov  9 21:54:11 1999")[1] == datetime(1999, 11, 9, 2, 53, 5)
    assert dates(header, "From MAILER-DAEMON Sat Aug 28 14:17:14 2021")[1] == datetime(1999, 11, 9, 2, 53, 5)
    assert dates(header, None)[1] == datetime(1999, 11, 9, 2, 53, 5)


@pytest.mark.parametrize("name, date", [
    ("resent-date.txt", datetime(1999, 11, 9, 2, 53, 5)),
    ("unixfrom-date.txt", datetime(1999, 11, 9, 21, 54, 11)),
    ("non-ascii-date-header.txt", datetime(2001, 6, 27, 15, 23, 36)),
    ("bad_date_tz.txt", datetime(1999, 11, 30, 23, 56, 33)),
])
def test_edge_dates(name, date):
    assert edge_email(name).date == date


def test_missing_message_id_is_generated_from_the_content():
    data = b"From: a@example.com\nSubject: no id\n\nbody\n"
    first = parse_email(data, None, IMPORT_TIME)
    assert first.message_id == generated_message_id(data)
    assert parse_email(data, None, datetime(2040, 1, 1)).message_id_hash == first.message_id_hash
    assert parse_email(data + b"more\n", None, IMPORT_TIME).message_id != first.message_id
    assert parse_email(b"Message-ID: <>\n" + data, None, IMPORT_TIME).message_id.endswith("@generated.sathub.invalid")


def test_missing_subject_is_empty():
    assert parse_email(b"Message-ID: <a@x>\nFrom: a@x\n\nbody\n", None, IMPORT_TIME).subject == ""


def test_strange_in_reply_to_header():
    email = edge_email("strange-in-reply-to-header.txt")
    assert email.in_reply_to == "200704070053.46646.other.person@example.com"
    assert (email.sender_address, email.sender_name) == ("test@example.com", "Dummy Person")


def test_wrong_in_reply_to_header_gives_no_parent():
    assert edge_email("wrong-in-reply-to-header.txt").in_reply_to is None


def test_pipermail_message():
    email = edge_email("non-ascii-headers.txt")
    assert email.message_id == "4FFC1228.3060409@redhat.com"
    assert email.message_id_hash == message_id_hash("4FFC1228.3060409@redhat.com")
    assert (email.sender_address, email.sender_name) == ("vondruch@redhat.com", "Vít Ondruch")
    assert email.subject == "[Fedora-packaging] RPM macros"
    assert email.date == email.archived_date == datetime(2012, 7, 10, 11, 29, 44)
    assert email.content.startswith("Hi,\n\nI noticed that in revised haskell guidelines [1]")
