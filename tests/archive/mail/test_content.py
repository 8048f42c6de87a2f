"""`content` and attachments (sathub.archive.mail.content), per archive-more.md: no database."""

import pytest

from sathub.archive.mail.content import attachment_name, message_content
from sathub.archive.mail.message import parse_message
from tests.conftest import SHARED_DATA

EDGE = SHARED_DATA / "mail" / "edge"


def edge_content(name: str):
    return message_content(parse_message((EDGE / name).read_bytes().partition(b"\n")[2]))


def content_of(raw: str | bytes):
    return message_content(parse_message(raw.encode() if isinstance(raw, str) else raw))


MULTIPART = """\
Content-Type: multipart/mixed; boundary="B"

preamble
--B
Content-Type: text/plain; charset=utf-8

first part
--B
Content-Type: multipart/alternative; boundary="C"

--C
Content-Type: text/plain

second part, no newline at the end
--C
Content-Type: text/html; charset=iso-8859-1
Content-Transfer-Encoding: quoted-printable

<p>caf=E9</p>
--C--
--B
Content-Type: text/plain
Content-Disposition: attachment; filename="notes.txt"

attached text
--B
Content-Type: application/pgp-signature

sig
--B--
"""


def test_multipart_text_parts_are_joined_and_the_rest_are_attachments():
    content, attachments = content_of(MULTIPART)
    # The HTML alternative and the attached text each leave an empty placeholder ("\n") in the
    # join; the signature (not text) leaves none.
    assert content == "first part\n\nsecond part, no newline at the end\n\n\n\n\n"
    assert [(a.counter, a.name, a.content_type, a.encoding, a.content) for a in attachments] == [
        (4, "attachment.html", "text/html", "iso-8859-1", "<p>café</p>".encode("iso-8859-1")),
        (5, "notes.txt", "text/plain", None, b"attached text"),
        (6, "attachment.bin", "application/pgp-signature", None, b"sig"),
    ]


def test_non_multipart_html_becomes_an_attachment():
    content, attachments = content_of("Content-Type: text/html\n\n<b>hi</b>\n")
    assert content == "\n"
    assert [(a.counter, a.name, a.content) for a in attachments] == [(0, "attachment.html", b"<b>hi</b>\n")]


def test_pipermail_leftovers_and_nul_characters_are_cut():
    body = "text\x00 kept\n-------------- next part --------------\nAn HTML attachment was scrubbed...\n"
    assert content_of("Subject: x\n\n" + body) == ("text kept\n", [])
    assert (
        content_of("Subject: x\n\nno cut: -------------- next part --------------\n")[0]
        == "no cut: -------------- next part --------------\n"
    )


def test_single_part_bodies_are_kept_as_they_are():
    body = "> quoted\n\n-- \nsignature\n\n\n"
    assert content_of("Subject: x\n\n" + body) == (body, [])


@pytest.mark.parametrize(
    "filename, content_type, name",
    [
        ("signature.asc", "application/pgp-signature", "signature.asc"),
        ("../../etc/passwd", "text/plain", "passwd.txt"),
        ("C:\\Users\\me\\report.pdf", "application/pdf", "report.pdf"),
        ("..hidden.tar.gz", "application/gzip", "hidden.tar.gz"),
        ("My File (1).png", "image/png", "MyFile1.png"),
        ("long\r\n name.txt", "text/plain", "longname.txt"),
        ("Décembre 2013.pdf", "application/pdf", "Décembre2013.pdf"),
        ("noextension", "image/png", "noextension.png"),
        ("noextension", "binary/octet-stream", "noextension.bin"),
        ("forwarded", "message/rfc822", "forwarded.txt"),
        (None, "text/html", "attachment.html"),
        (None, "application/x-unheard-of", "attachment.bin"),
        ("???", "image/jpeg", "attachment.jpg"),
        ("", "text/plain", "attachment.bin"),  # a name that cannot be decoded
    ],
)
def test_attachment_names(filename, content_type, name):
    assert attachment_name(filename, content_type) == name


def test_text_attachments_are_stored_in_their_declared_charset():
    raw = (
        "Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\n\nhi\n--B\n"
        "Content-Type: text/csv; charset=iso-8859-1\nContent-Transfer-Encoding: base64\n\nY2Fm6Q==\n--B--\n"
    )
    (attachment,) = content_of(raw)[1]
    assert (attachment.name, attachment.encoding, attachment.content) == ("attachment.csv", "iso-8859-1", b"caf\xe9")


def test_attached_messages_are_attachments_and_their_text_is_not_inlined():
    raw = (
        "Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\n\nmine\n--B\n"
        "Content-Type: message/rfc822\n\nSubject: forwarded\n\nnot mine\n--B--\n"
    )
    content, attachments = content_of(raw)
    assert content == "mine\n\n\n"  # the attached message's placeholder, joined after a blank line
    assert [(a.counter, a.name, a.content_type) for a in attachments] == [(2, "attachment.txt", "message/rfc822")]
    assert b"not mine" in attachments[0].content


def test_edge_signature_attachment():
    content, attachments = edge_content("attachment-2.txt")
    assert content.startswith("I'm happy to announce a new list for Mailman 3 users")
    assert [(a.counter, a.name, a.content_type, a.encoding, a.content[:27]) for a in attachments] == [
        (2, "signature.asc", "application/pgp-signature", None, b"-----BEGIN PGP SIGNATURE---")
    ]


def test_edge_text_attachments():
    attached = edge_content("attachment-3.txt")[1]
    assert [(a.counter, a.name, a.content_type) for a in attached] == [(2, "webpage.txt", "text/plain")]
    assert attached[0].content.startswith(b"HTTPError at /mailman3/")
    (bogus,) = edge_content("attachment-4.txt")[1]
    assert (bogus.name, bogus.encoding) == ("bogus.txt", "us-ascii")
    assert b"?" in bogus.content  # non-ascii characters of a us-ascii part become "?"
    assert bogus.content.startswith(b"All votes are reported in the form")


def test_edge_wrong_and_unknown_charsets():
    content, attachments = edge_content("another-wrong-encoding.txt")
    assert content.startswith("Dear Mailman,\n     I'm a graduate student")
    assert [(a.content_type, a.encoding) for a in attachments] == [("text/html", "gb2312")]
    content, attachments = edge_content("unknown-charset.txt")
    assert content == "\n"  # its only part is HTML: the placeholder
    assert [(a.counter, a.name, a.encoding) for a in attachments] == [(1, "attachment.html", "iso-0646-6")]
    content, _ = edge_content("payload-utf8-wrong.txt")
    assert "\ufffd" in content and content.startswith("diff --cc public_html/nl-NL/")


def test_edge_messages_that_hyperkitty_could_not_convert():
    content, attachments = edge_content("unconvertable_msg-2.txt")
    # A single-part message is text whatever its (here garbled) type; only text/html is not.
    assert (content, attachments) == ("%PD", [])
    content, attachments = edge_content("unicode_issue.txt")
    assert "\x00" not in content and attachments == []
    content, attachments = edge_content("bad_content_type.txt")
    assert content == "Some text\n"
    assert [(a.counter, a.name, a.content_type, a.content) for a in attachments] == [
        (2, "attachment.bin", "binary/octet-stream", b"Binary data\n")
    ]


def test_line_ends_become_lf_unless_the_part_is_base64_or_quoted_printable():
    assert content_of(b"Subject: x\n\none\r\ntwo\rthree\n") == ("one\ntwo\nthree\n", [])
    raw = (
        b"Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\n\nseven\r\nbit\n"
        b"--B\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\nb25lDQp0d28NCg==\n"
        b"--B\nContent-Type: text/plain\nContent-Transfer-Encoding: quoted-printable\n\nqp=0D=0Aend\n--B--\n"
    )
    assert content_of(raw)[0] == "seven\nbit\n\none\r\ntwo\r\n\nqp\r\nend\n"


def test_attachment_counters_skip_the_parts_of_an_attached_message():
    raw = (
        "Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\n\nmine\n--B\n"
        "Content-Type: message/rfc822\n\nContent-Type: multipart/mixed; boundary=C\n\n--C\n"
        "Content-Type: text/plain\n\ninner\n--C\nContent-Type: image/png\n\npng\n--C--\n"
        "--B\nContent-Type: image/gif\n\ngif\n--B--\n"
    )
    content, attachments = content_of(raw)
    assert content == "mine\n\n\n"
    assert [(a.counter, a.content_type) for a in attachments] == [(2, "message/rfc822"), (3, "image/gif")]
