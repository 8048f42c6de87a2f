"""OVER's fields (archive/nntp/overview.py): the kept fields made from an email's values, and the
lines and HDR values served from them. Expected values from RFC 3977 8.3.2 and RFC 5322's date."""

from datetime import datetime

from sathub.archive.nntp.overview import field_values, kept_overview, overview_line


def fields(**changes) -> str:
    values = {
        "subject": "Re: hello",
        "name": "Ann Example",
        "address": "ann@example.org",
        "date": datetime(2020, 1, 6, 10, 0, 0),
        "message_id": "m@x",
        "named": "r@x> <p@x",
        "size": 321,
        "lines": 12,
    }
    return kept_overview(**(values | changes))


def test_an_overview_line_in_overview_fmts_order():
    assert overview_line(4, fields(), "news.example", "org.example.dev") == (
        b"4\tRe: hello\tAnn Example <ann@example.org>\tMon, 06 Jan 2020 10:00:00 +0000\t<m@x>\t<r@x> <p@x>\t321\t12\t"
        b"Xref: news.example org.example.dev:4"
    )


def test_asked_by_message_id_the_number_is_zero_and_the_xref_keeps_it():
    line = overview_line(4, fields(), "n", "g", by_message_id=True)
    assert line.startswith(b"0\t") and line.endswith(b"\tXref: n g:4")


def test_fields_hold_no_tab_nor_line_end_and_non_ascii_is_encoded():
    values = field_values(4, fields(subject="a\tb\r\nc", name="Zoë", named="", size=None, lines=None), "n", "g")
    assert values["subject"] == "a b  c"
    assert values["from"] == "=?utf-8?q?Zo=C3=AB?= <ann@example.org>"
    assert values["references"] == values[":bytes"] == values[":lines"] == ""


def test_hdr_values_of_every_field():
    assert field_values(7, fields(), "news.example", "org.example.dev") == {
        "subject": "Re: hello",
        "from": "Ann Example <ann@example.org>",
        "date": "Mon, 06 Jan 2020 10:00:00 +0000",
        "message-id": "<m@x>",
        "references": "<r@x> <p@x>",
        ":bytes": "321",
        ":lines": "12",
        "xref": "news.example org.example.dev:7",
        "newsgroups": "org.example.dev",
    }


def test_a_sender_named_by_the_address_is_the_address():
    assert field_values(1, fields(name="ann@example.org"), "n", "g")["from"] == "ann@example.org"
