"""Every reader command (archive/nntp/session.py) through Python 3.11's nntplib, and the raw
exchanges nntplib cannot make, against a real listener on 127.0.0.1, on SQLite and PostgreSQL.
Expected answers are RFC 3977's (and RFC 2980's for XOVER and XHDR); the articles are the bytes
archived, with public-inbox's three headers."""

from __future__ import annotations

import socket
import warnings
from datetime import datetime, timedelta

import pytest

from sathub import db
from sathub.archive.mail.dates import utc_now
from sathub.archive.removal.operations import run, scope_of
from sathub.archive.store import lists
from sathub.archive.tables import PRIVATE
from tests.archive.messages import raw_message
from tests.archive.nntp.listener import SERVER, archive_live, listening

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # removed in 3.13; the reference client here
    import nntplib

GROUP = "org.example.dev"
A = raw_message("a@x", subject="first", to="dev@example.org", body=".starts with a dot\nsecond line\n")
B = raw_message("b@x", subject="Re: first", reply_to="a@x", sender="Zoë <zoe@example.org>")
C = raw_message("c@x", subject="third", date="Tue, 02 Jan 2001 10:00:00 +0100")
SECRET = raw_message("secret@x", subject="private matter")


@pytest.fixture
def port(engine):
    for data in (A, B, C):
        assert archive_live(engine, data).new
    with db.connect(engine, write=True) as conn:
        lists.create_list(conn, "secret@example.org", {"created_at": utc_now(), "archive_policy": PRIVATE})
        lists.create_list(conn, "empty@example.org", {"created_at": utc_now(), "description": "Nothing\tyet"})
    assert archive_live(engine, SECRET, "secret@example.org").new
    with listening(engine) as port:
        yield port


@pytest.fixture
def news(port):
    with nntplib.NNTP("127.0.0.1", port, readermode=True, timeout=10) as client:
        yield client


class Raw:
    """A bare connection: command lines sent as given, answers read as they come."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.file = self.sock.makefile("rb")
        self.greeting = self.file.readline()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def line(self) -> bytes:
        return self.file.readline()

    def block(self) -> list[bytes]:
        lines = []
        while (line := self.file.readline()) != b".\r\n":
            assert line.endswith(b"\r\n"), line
            lines.append(line[:-2])
        return lines

    def ask(self, command: bytes) -> bytes:
        self.send(command + b"\r\n")
        return self.line()

    def close(self) -> None:
        self.file.close()
        self.sock.close()


@pytest.fixture
def raw(port):
    connection = Raw(port)
    yield connection
    connection.close()


def article_lines(source: bytes, number: int) -> list[bytes]:
    """The article of an archived message as RFC 3977 and public-inbox's nntpd make it, its lines."""
    header, _, body = source.partition(b"\n\n")
    added = [f"Xref: {SERVER} {GROUP}:{number}".encode(), f"Newsgroups: {GROUP}".encode()]
    return [*header.split(b"\n"), *added, f"Path: {SERVER}!not-for-mail".encode(), b"", *body.split(b"\n")[:-1]]


def test_greeting_capabilities_mode_date_help_quit(news, raw):
    assert news.getwelcome().startswith("201 ")  # posting prohibited
    capabilities = news.getcapabilities()
    assert capabilities["VERSION"] == ["2"] and "READER" in capabilities and "HDR" in capabilities
    assert capabilities["LIST"] == ["ACTIVE", "NEWSGROUPS", "OVERVIEW.FMT", "HEADERS"]
    assert abs(news.date()[1] - datetime.utcnow()) < timedelta(seconds=5)
    assert news.help()[0].startswith("100 ")
    assert raw.ask(b"mode reader").startswith(b"201 ")
    assert raw.ask(b"MODE STREAM").startswith(b"501 ")
    assert raw.ask(b"QUIT").startswith(b"205 ")
    assert raw.line() == b""  # closed


def test_list_active_and_newsgroups_show_public_lists_only(news):
    _, groups = news.list()
    assert [(g.group, g.last, g.first, g.flag) for g in groups] == [
        ("org.example.dev", "3", "1", "n"),
        ("org.example.empty", "0", "1", "n"),  # empty: high one below low
    ]
    assert [g.group for g in news.list("*.dev")[1]] == ["org.example.dev"]
    assert news.list("org.*,!*.dev")[1][0].group == "org.example.empty"
    assert news.descriptions("org.example.*")[1] == {
        "org.example.dev": "dev@example.org",  # no description: its address
        "org.example.empty": "Nothing yet",
    }


def test_list_overview_fmt_and_headers(news, raw):
    assert news._getoverviewfmt() == [  # nntplib reads LIST OVERVIEW.FMT for OVER's names
        "subject",
        "from",
        "date",
        "message-id",
        "references",
        ":bytes",
        ":lines",
        "xref",
    ]
    raw.send(b"LIST HEADERS\r\n")
    assert raw.line().startswith(b"215 ") and raw.block() == [b":", b":bytes", b":lines"]
    assert raw.ask(b"LIST ACTIVE.TIMES").startswith(b"501 ")
    assert raw.ask(b"LIST ACTIVE [").startswith(b"215 ")  # a wildmat of one literal character
    raw.block()


def test_group_listgroup_next_last(news, raw):
    assert news.group(GROUP) == (f"211 3 1 3 {GROUP}", 3, 1, 3, GROUP)
    assert news.next() == ("223 2 <b@x> selected", 2, "<b@x>")
    assert news.next()[1] == 3
    with pytest.raises(nntplib.NNTPTemporaryError, match=r"^421"):
        news.next()
    assert news.last()[1:] == (2, "<b@x>")
    with pytest.raises(nntplib.NNTPTemporaryError, match=r"^411"):
        news.group("org.example.secret")  # a private list is no group
    with pytest.raises(nntplib.NNTPTemporaryError, match=r"^411"):
        news.group("org.example.nothing")
    assert raw.ask(b"NEXT").startswith(b"412 ")
    assert raw.ask(b"LISTGROUP").startswith(b"412 ")
    raw.send(b"LISTGROUP org.example.dev\r\n")
    assert raw.line() == b"211 3 1 3 org.example.dev list follows\r\n" and raw.block() == [b"1", b"2", b"3"]
    for given, numbers in ((b"2-", [b"2", b"3"]), (b"2-2", [b"2"]), (b"3-1", []), (b"7-", [])):
        raw.send(b"LISTGROUP org.example.dev " + given + b"\r\n")
        assert raw.line().startswith(b"211 3 1 3 ") and raw.block() == numbers
    assert raw.ask(b"LISTGROUP org.example.dev 1-x").startswith(b"501 ")
    raw.send(b"LISTGROUP org.example.empty\r\n")
    assert raw.line().startswith(b"211 0 1 0 ") and raw.block() == []
    assert raw.ask(b"NEXT").startswith(b"420 ")  # an empty group has no current article
    assert raw.ask(b"GROUP").startswith(b"501 ")


def test_article_head_body_stat_by_number_and_message_id(news, raw):
    news.group(GROUP)
    response, info = news.article()  # the current article: the first
    assert (response, info.number, info.message_id) == ("220 1 <a@x>", 1, "<a@x>")
    assert info.lines == article_lines(A, 1)  # un-dot-stuffed by nntplib
    assert news.head(2)[1].lines == article_lines(B, 2)[: article_lines(B, 2).index(b"")]
    assert news.body(3)[1].lines == [b"Body text"]
    assert news.stat()[1:] == (3, "<c@x>")  # BODY 3 made 3 current
    assert news.stat("<a@x>")[1:] == (0, "<a@x>")  # RFC 3977 6.2.1.3: 0, and nothing moves
    assert news.stat()[1] == 3
    assert news.article("<b@x>")[1].lines == article_lines(B, 2)
    for command in (news.article, news.head, news.body, news.stat):
        with pytest.raises(nntplib.NNTPTemporaryError, match=r"^423"):
            command(9)
    for command in (news.article, news.head, news.body, news.stat):
        with pytest.raises(nntplib.NNTPTemporaryError, match=r"^430"):
            command("<secret@x>")  # a private list's message is not there
    assert raw.ask(b"ARTICLE 1").startswith(b"412 ")
    assert raw.ask(b"ARTICLE").startswith(b"412 ")
    assert raw.ask(b"ARTICLE one").startswith(b"501 ")
    assert raw.ask(b"ARTICLE <no-bracket").startswith(b"501 ")
    raw.send(b"BODY <a@x>\r\n")  # no group needed, and the dot doubled on the wire
    assert raw.line() == b"222 0 <a@x>\r\n" and raw.block() == [b"..starts with a dot", b"second line"]


def test_over_and_xover(news, raw):
    news.group(GROUP)
    _, rows = news.over((1, 3))
    assert [number for number, _ in rows] == [1, 2, 3]
    _, fields = rows[1]
    assert fields == {
        "subject": "Re: first",
        "from": "=?utf-8?q?Zo=C3=AB?= <zoe@example.org>",
        "date": "Mon, 01 Jan 2001 10:00:00 +0000",
        "message-id": "<b@x>",
        "references": "<a@x>",
        ":bytes": str(len(B)),
        ":lines": str(B.split(b"\n\n", 1)[1].count(b"\n")),  # its body's line feeds, as public-inbox's
        "xref": f"{SERVER} {GROUP}:2",
    }
    assert news.over((3, 3))[1][0][1]["date"] == "Tue, 02 Jan 2001 09:00:00 +0000"  # stored in UTC
    assert [n for n, _ in news.over((2, None))[1]] == [2, 3]
    assert [n for n, _ in news.xover(1, 2)[1]] == [1, 2]
    assert news.over("<c@x>")[1][0][0] == 0
    with pytest.raises(nntplib.NNTPTemporaryError, match=r"^423"):
        news.over((5, 9))
    with pytest.raises(nntplib.NNTPTemporaryError, match=r"^430"):
        news.over("<secret@x>")
    assert raw.ask(b"OVER 1-3").startswith(b"412 ")
    assert raw.ask(b"GROUP org.example.dev").startswith(b"211 ")
    raw.send(b"OVER\r\n")  # the current article
    assert raw.line().startswith(b"224 ") and [line.split(b"\t")[0] for line in raw.block()] == [b"1"]
    assert raw.ask(b"OVER x-y").startswith(b"501 ")


def test_over_answers_at_most_its_range_cap(engine):
    for n in range(5):
        archive_live(engine, raw_message(f"m{n}@x"))
    with listening(engine, nntp_max_range=2) as port, nntplib.NNTP("127.0.0.1", port, timeout=10) as news:
        news.group(GROUP)
        assert [n for n, _ in news.over((1, 5))[1]] == [1, 2]
        assert [n for n, _ in news.over((4, 5))[1]] == [4, 5]


def test_a_setting_renames_a_group_everywhere_it_is_named(engine):
    archive_live(engine, A)
    archive_live(engine, B, "users@example.org")
    renames = "Dev@Example.org=example.renamed"
    with listening(engine, nntp_group_names=renames) as port, nntplib.NNTP("127.0.0.1", port, timeout=10) as news:
        assert [g.group for g in news.list()[1]] == ["example.renamed", "org.example.users"]
        assert news.group("example.renamed")[1:4] == (1, 1, 1)
        with pytest.raises(nntplib.NNTPTemporaryError, match=r"^411"):
            news.group(GROUP)  # lore's name is the rename's now
        assert f"Xref: {SERVER} example.renamed:1".encode() in news.article(1)[1].lines
        assert b"Newsgroups: example.renamed" in news.article("<a@x>")[1].lines
        assert news.over((1, 1))[1][0][1]["xref"] == f"{SERVER} example.renamed:1"


def test_hdr_and_xhdr_from_the_rows_and_from_the_sources(news, raw):
    news.group(GROUP)
    assert news.xhdr("subject", "1-3")[1] == [("1", "first"), ("2", "Re: first"), ("3", "third")]
    assert news.xhdr("Message-ID", "<b@x>")[1] == [("0", "<b@x>")]
    raw.ask(b"GROUP org.example.dev")
    raw.send(b"HDR To 1-2\r\n")  # no row holds To: read from the sources
    assert raw.line().startswith(b"225 ") and raw.block() == [b"1 dev@example.org", b"2 "]
    raw.send(b"HDR :bytes 3\r\n")
    assert raw.line().startswith(b"225 ") and raw.block() == [f"3 {len(C)}".encode()]
    raw.send(b"HDR :lines <c@x>\r\n")
    body_lines = C.split(b"\n\n", 1)[1].count(b"\n")
    assert raw.line().startswith(b"225 ") and raw.block() == [f"0 {body_lines}".encode()]
    raw.send(b"XHDR subject\r\n")  # the current article
    assert raw.line().startswith(b"221 ") and raw.block() == [b"1 first"]
    assert raw.ask(b"HDR subject 4-").startswith(b"423 ")
    assert raw.ask(b"HDR subject <secret@x>").startswith(b"430 ")
    assert raw.ask(b"HDR").startswith(b"501 ")


def test_newgroups_and_newnews(news):
    past, future = datetime(2000, 1, 1), datetime.utcnow() + timedelta(days=1)
    assert [g.group for g in news.newgroups(past)[1]] == ["org.example.dev", "org.example.empty"]
    assert news.newgroups(future)[1] == []
    assert news.newnews("org.example.*", past)[1] == ["<a@x>", "<b@x>", "<c@x>"]
    assert news.newnews("*", future)[1] == []
    assert news.newnews("org.example.secret", past)[1] == []


def test_post_and_ihave_are_refused_and_errors_are_answered(news, raw):
    with pytest.raises(nntplib.NNTPTemporaryError, match=r"^440"):
        news.post(b"From: a@b\r\nSubject: x\r\n\r\nbody\r\n")
    assert raw.ask(b"IHAVE <new@x>").startswith(b"440 ")
    assert raw.ask(b"XYZZY").startswith(b"500 ")
    assert raw.ask(b"").startswith(b"500 ")
    assert raw.ask(b"NEWGROUPS 2020").startswith(b"501 ")
    assert raw.ask(b"NEWGROUPS 20201301 000000").startswith(b"501 ")
    assert raw.ask(b"NEWNEWS *,, 20200101 000000").startswith(b"501 ")


def test_a_line_over_512_octets_is_answered_and_the_session_goes_on(raw):
    assert raw.ask(b"HELP " + b"x" * 600).startswith(b"501 ")
    assert raw.ask(b"GROUP " + b"y" * 504) == b"411 No such newsgroup\r\n"  # 512 with its CRLF: read
    assert raw.ask(b"GROUP " + b"y" * 505).startswith(b"501 ")  # 513
    assert raw.ask(b"DATE").startswith(b"111 ")


def test_commands_sent_ahead_are_answered_in_order(raw):
    raw.send(b"GROUP org.example.dev\r\nSTAT 2\r\nNEXT\r\nDATE\r\n")
    assert raw.line().startswith(b"211 ")
    assert raw.line() == b"223 2 <b@x>\r\n"
    assert raw.line().startswith(b"223 3 <c@x>")
    assert raw.line().startswith(b"111 ")


@pytest.mark.parametrize("action", ["hide", "delete"])
def test_removed_mail_is_in_no_answer(engine, port, news, action):
    """A hidden or deleted article leaves a gap: not by number, not by Message-ID, not in OVER,
    LISTGROUP or HDR; unhide brings a hidden one back under its number."""
    run(engine, action, scope_of(message_id="b@x"), "spam", "test")
    news.group(GROUP)
    for command in (news.article, news.head, news.body, news.stat):
        with pytest.raises(nntplib.NNTPTemporaryError, match=r"^423"):
            command(2)
        with pytest.raises(nntplib.NNTPTemporaryError, match=r"^430"):
            command("<b@x>")
    assert [number for number, _ in news.over((1, 3))[1]] == [1, 3]
    assert news.group(GROUP)[1:4] == (2, 1, 3)
    assert [number for number, _ in news.xhdr("subject", "1-3")[1]] == ["1", "3"]
    if action == "hide":
        run(engine, "unhide", scope_of(message_id="b@x"), "not spam", "test")
        assert news.stat(2)[1:] == (2, "<b@x>")
