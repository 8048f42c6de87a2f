"""A message rebuilt from its stored fields (sathub.archive.mail.rebuild), checked against the rules
of docs/archive-export.md ("Mail without a source") by reading it back with Python's own parser."""

from __future__ import annotations

from datetime import datetime
from email import message_from_bytes, policy
from types import SimpleNamespace

from sathub.archive.mail.rebuild import rebuilt_message


def row(**fields):
    values = {
        "sender_address": "ann@example.com",
        "sender_name": "Ann Example",
        "subject": "[dev] hello",
        "content": "Hello.\n",
        "date": datetime(2020, 1, 6, 10, 0, 0),
        "message_id": "one@example.org",
        "in_reply_to": None,
    }
    return SimpleNamespace(**{**values, **fields})


def test_the_headers_in_their_order():
    data = rebuilt_message(row(in_reply_to="parent@example.org"), [])
    headers = data.split(b"\n\n", 1)[0].decode().split("\n")
    assert headers[:6] == [
        "From: Ann Example <ann@example.com>",
        "Subject: [dev] hello",
        "Date: Mon, 06 Jan 2020 10:00:00 +0000",
        "Message-ID: <one@example.org>",
        "In-Reply-To: <parent@example.org>",
        "MIME-Version: 1.0",
    ]
    message = message_from_bytes(data, policy=policy.default)
    assert message.get_content_type() == "text/plain" and message.get_content_charset() == "utf-8"
    assert message["Content-Transfer-Encoding"] == "7bit" and message.get_content() == "Hello.\n"


def test_a_name_that_is_the_address_is_left_out_and_text_beyond_ascii_is_encoded():
    data = rebuilt_message(row(sender_name="ann@example.com", subject="Grüße", content="ça va\n"), [])
    assert data.startswith(b"From: ann@example.com\n")
    message = message_from_bytes(data, policy=policy.default)
    assert message["Subject"] == "Grüße" and b"Subject: =?utf-8?" in data
    assert message["Content-Transfer-Encoding"] == "8bit" and message.get_content() == "ça va\n"
    assert b"In-Reply-To" not in data


def test_a_stored_line_break_never_becomes_a_header_of_its_own():
    data = rebuilt_message(row(subject="one\nBcc: victim@example.org"), [])
    assert b"\nBcc:" not in data.split(b"\n\n", 1)[0]


def test_attachments_follow_the_text_in_a_multipart_mixed():
    files = [
        SimpleNamespace(
            name="report.html", content_type="text/html", encoding="gb2312", content="<p>报告</p>".encode("gb2312")
        ),
        SimpleNamespace(name="data.bin", content_type="", encoding=None, content=b"\x00\x01"),
    ]
    message = message_from_bytes(rebuilt_message(row(), files), policy=policy.default)
    assert message.get_content_type() == "multipart/mixed"
    text, html, binary = message.iter_parts()
    assert text.get_content() == "Hello.\n"
    assert (html.get_content_type(), html.get_content_charset(), html.get_filename()) == (
        "text/html",
        "gb2312",
        "report.html",
    )
    assert html["Content-Transfer-Encoding"] == "base64" and html.get_payload(decode=True) == files[0].content
    assert (binary.get_content_type(), binary.get_payload(decode=True)) == ("application/octet-stream", b"\x00\x01")
