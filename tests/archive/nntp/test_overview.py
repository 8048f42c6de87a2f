"""OVER's fields from the rows (archive/nntp/overview.py)."""

from datetime import datetime

from sathub.archive.nntp.overview import ROW_COLUMNS, field_values, overview_line


def row(**changes):
    values = {
        "list_id": 1,
        "article_number": 4,
        "subject": "Re: hello",
        "sender_name": "Ann Example",
        "sender_address": "ann@example.org",
        "date": datetime(2020, 1, 6, 10, 0, 0),
        "message_id": "m@x",
        "in_reply_to": "p@x",
        "named": "r@x> <p@x",
        "size": 321,
    }
    return tuple((values | changes)[column] for column in ROW_COLUMNS)


def test_an_overview_line_in_overview_fmts_order():
    assert overview_line(row(), "news.example", "org.example.dev") == (
        b"4\tRe: hello\tAnn Example <ann@example.org>\tMon, 06 Jan 2020 10:00:00 +0000\t<m@x>\t<r@x> <p@x>\t321\t\t"
        b"Xref: news.example org.example.dev:4"
    )


def test_asked_by_message_id_the_number_is_zero():
    assert overview_line(row(), "n", "g", by_message_id=True).startswith(b"0\t")


def test_fields_hold_no_tab_nor_line_end_and_non_ascii_is_encoded():
    values = field_values(
        row(subject="a\tb\r\nc", sender_name="Zoë", in_reply_to=None, named=None, size=None), "n", "g"
    )
    assert values["subject"] == "a b  c"
    assert values["from"] == "=?utf-8?q?Zo=C3=AB?= <ann@example.org>"
    assert values["references"] == values[":bytes"] == ""


def test_a_sender_named_by_the_address_is_the_address():
    assert field_values(row(sender_name="ann@example.org"), "n", "g")["from"] == "ann@example.org"


def test_mail_whose_references_are_not_read_yet_names_its_parent():
    assert field_values(row(named=None), "n", "g")["references"] == "<p@x>"
