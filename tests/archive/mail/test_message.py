"""One raw message -> one `emails` row (sathub.archive.mail.message), on the edge files too (no database)."""

from datetime import datetime

import pytest

from sathub.archive.mail.ids import generated_message_id, message_id_hash
from sathub.archive.mail.message import parse_email
from tests.conftest import SHARED_DATA

EDGE = SHARED_DATA / "mail" / "edge"
IMPORT_TIME = datetime(2030, 1, 1)


def edge_email(name: str):
    """The first message of an edge file, parsed as the importer does."""
    from_line, _, data = (EDGE / name).read_bytes().partition(b"\n")
    return parse_email(data, from_line.decode("latin-1"), IMPORT_TIME)


def test_a_message_answering_itself_is_a_root():
    email = parse_email(b"Message-ID: <me@x>\nIn-Reply-To: <me@x>\nFrom: a@x\n\nbody\n", None, IMPORT_TIME)
    assert email.in_reply_to is None


def test_bad_folding_keeps_the_text_on_one_line():
    email = edge_email("bad_folding.txt")
    assert email.subject == "[<redacted>]  Sicherheit 2005: Stichworte und Vorschlag PC-Mitglieder; Ergänzung!"


def test_bad_subject_header_is_decoded_with_its_declared_charset():
    # The text before the encoded word is kept; iso-8859-1 maps byte 0x85 to U+0085.
    assert edge_email("bad-subject-header.txt").subject == "(et en plus, en local\x85)"


@pytest.mark.parametrize(
    "name, date",
    [
        ("resent-date.txt", datetime(1999, 11, 9, 2, 53, 5)),
        ("unixfrom-date.txt", datetime(1999, 11, 9, 21, 54, 11)),
        ("non-ascii-date-header.txt", datetime(2001, 6, 27, 15, 23, 36)),
        ("bad_date_tz.txt", datetime(1999, 12, 1, 0, 56, 19)),  # -3000: the From_ line's date
    ],
)
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
    # From: test at example.com (Dummy Person)
    assert (email.sender_address, email.sender_name) == ("test@example.com", "test@example.com")


def test_wrong_in_reply_to_header_gives_no_parent():
    assert edge_email("wrong-in-reply-to-header.txt").in_reply_to is None


def test_pipermail_message():
    email = edge_email("non-ascii-headers.txt")
    assert email.message_id == "4FFC1228.3060409@redhat.com"
    assert email.message_id_hash == message_id_hash("4FFC1228.3060409@redhat.com")
    # From: vondruch at redhat.com (=?ISO-8859-2?Q?V=EDt_Ondruch?=) -- the comment is no name
    assert (email.sender_address, email.sender_name) == ("vondruch@redhat.com", "vondruch@redhat.com")
    assert email.subject == "[Fedora-packaging] RPM macros"
    assert email.date == email.archived_date == datetime(2012, 7, 10, 11, 29, 44)
    assert email.content.startswith("Hi,\n\nI noticed that in revised haskell guidelines [1]")


def nested_message(levels: int) -> bytes:
    """`levels` multiparts, each the second part of the one before, each with the text `level <i>` first."""
    opening = [f'--b{i}\nContent-Type: multipart/mixed; boundary="b{i + 1}"\n\n' for i in range(levels - 1)]
    texts = [f"--b{i}\nContent-Type: text/plain\n\nlevel {i}\n" for i in range(levels)]
    body = "".join(text + inner for text, inner in zip(texts, [*opening, ""], strict=True))
    body += "".join(f"--b{i}--\n" for i in reversed(range(levels)))
    return (
        b"From: a@example.com\nMessage-ID: <deep@x>\nMIME-Version: 1.0\n"
        b'Content-Type: multipart/mixed; boundary="b0"\n\n' + body.encode()
    )


def test_parts_nested_too_deep_are_left_out_not_refused():
    # Issue 40's neighbour: 1,000 nested multiparts took Python's parser past the recursion limit
    # ("cannot be decoded": a refusal Mailman re-sends for ever). Parts nested more than 32 levels
    # deep (docs/archive-import.md) stay in the source only; the levels above them are archived.
    email = parse_email(nested_message(1000), None, IMPORT_TIME)
    assert email.content == "\n".join(f"level {i}\n" for i in range(32))
    assert email.attachments == []
