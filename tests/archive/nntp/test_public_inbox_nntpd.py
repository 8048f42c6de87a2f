"""sathub's NNTP beside public-inbox-nntpd 1.9 (Debian's public-inbox, `make public-inbox`) on the
same mail, command by command for the same group: LIST, GROUP, OVER's fields and ARTICLE's bytes
agree but for the differences docs/archive-nntp.md writes down, each asserted here as observed.
On SQLite and PostgreSQL; public-inbox's inbox is made once for the module."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.archive.messages import raw_message
from tests.archive.nntp.listener import SERVER, archive_live, listening

GROUP = "org.example.dev"
ADDRESS = "dev@example.org"
MESSAGES = [
    raw_message("a@x", subject="first", to=ADDRESS, body=".starts with a dot\nsecond line\n"),
    raw_message("b@x", subject="Re: first", reply_to="a@x", sender="Zoë <zoe@example.org>", body="8-bit: ü\n"),
    raw_message("c@x", subject="third", date="Tue, 02 Jan 2001 10:00:00 +0100"),
    # References naming a message never received and, as replies quoting an address do, its sender
    raw_message(
        "d@x",
        subject="Re: third",
        reply_to="c@x",
        headers=("References: <ghost@x>\r\n <c@x> <ann@example.com>",),
        newline="\r\n",
        body="ended\r\nby CRLF\r\n",
    ),
]
# Each message added to a v2 inbox as the file it is (public-inbox's own import, as its mda does).
IMPORT = r"""
use strict; use warnings;
use PublicInbox::Config; use PublicInbox::InboxWritable; use PublicInbox::Eml;
my ($name, @files) = @ARGV;
my $ibx = PublicInbox::InboxWritable->new(PublicInbox::Config->new->lookup_name($name));
my $im = $ibx->importer(0);
for my $file (@files) {
    open my $fh, '<', $file or die "$file: $!";
    my $raw = do { local $/; <$fh> };
    $im->add(PublicInbox::Eml->new(\$raw)) or die "not added: $file\n";
}
$im->done;
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def public_inbox_port(tmp_path_factory) -> Iterator[int]:
    """public-inbox-nntpd serving MESSAGES as GROUP, its server named SERVER as sathub's is."""
    assert shutil.which("public-inbox-nntpd"), "Debian's public-inbox is missing: `make public-inbox` installs it"
    folder = tmp_path_factory.mktemp("public-inbox")
    env = {**os.environ, "PI_CONFIG": str(folder / "config"), "HOME": str(folder)}
    files = []
    for number, message in enumerate(MESSAGES):
        files.append(folder / f"{number}.eml")
        files[-1].write_bytes(message)

    def run(*command: str | Path) -> None:
        subprocess.run([str(part) for part in command], env=env, check=True, capture_output=True, timeout=120)

    run("public-inbox-init", "-V2", "-L", "basic", "dev", folder / "dev", "http://127.0.0.1/dev", ADDRESS)
    run("perl", "-e", IMPORT, "dev", *files)
    run("public-inbox-index", folder / "dev")
    run("git", "config", "-f", folder / "config", "publicinbox.dev.newsgroup", GROUP)
    run("git", "config", "-f", folder / "config", "publicinbox.nntpserver", SERVER)
    port = free_port()
    log = open(folder / "nntpd.log", "wb")  # noqa: SIM115 (closed when the server has stopped)
    server = subprocess.Popen(
        ["public-inbox-nntpd", "-W0", "-l", f"nntp://127.0.0.1:{port}"], env=env, stdout=log, stderr=log
    )
    try:
        for _ in range(100):
            try:
                Raw(port).close()
                break
            except OSError:
                assert server.poll() is None, (folder / "nntpd.log").read_text()
                time.sleep(0.1)
        yield port
    finally:
        server.terminate()
        server.wait(10)
        log.close()


class Raw:
    """A bare connection: a command sent, its answer's lines read (without their CRLF)."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.file = self.sock.makefile("rb")
        self.greeting = self.file.readline()

    def ask(self, command: str, block: bool = True) -> tuple[bytes, list[bytes]]:
        self.sock.sendall(command.encode() + b"\r\n")
        first, lines = self.file.readline().rstrip(b"\r\n"), []
        if block and first[:1] == b"2":
            while (line := self.file.readline()) != b".\r\n":
                assert line.endswith(b"\r\n"), line
                lines.append(line[:-2])
        return first, lines

    def close(self) -> None:
        self.file.close()
        self.sock.close()


@pytest.fixture
def both(engine, public_inbox_port) -> Iterator[tuple[Raw, Raw]]:
    """A connection to sathub and one to public-inbox-nntpd, the same mail archived in each."""
    for message in MESSAGES:
        assert archive_live(engine, message, ADDRESS).new
    with listening(engine) as port:
        sathub, peer = Raw(port), Raw(public_inbox_port)
        try:
            yield sathub, peer
        finally:
            sathub.close()
            peer.close()


def test_list_and_group(both):
    sathub, peer = both
    assert sathub.ask("LIST")[1] == peer.ask("LIST")[1] == [f"{GROUP} 4 1 n".encode()]
    assert sathub.ask(f"LIST ACTIVE {GROUP}")[1] == peer.ask(f"LIST ACTIVE {GROUP}")[1]
    # GROUP: the same low, high and name; public-inbox counts last − first, one short (documented)
    assert sathub.ask(f"GROUP {GROUP}", block=False)[0] == f"211 4 1 4 {GROUP}".encode()
    assert peer.ask(f"GROUP {GROUP}", block=False)[0] == f"211 3 1 4 {GROUP}".encode()
    # a group's description: the list's (its address here) after a TAB, against public-inbox's
    # default after a space (RFC 3977 7.6.6 allows either)
    assert sathub.ask("LIST NEWSGROUPS")[1] == [f"{GROUP}\t{ADDRESS}".encode()]
    assert peer.ask("LIST NEWSGROUPS")[1] == [f"{GROUP} public inbox for {ADDRESS}".encode()]


def fields(line: bytes) -> dict[str, bytes]:
    names = ("number", "subject", "from", "date", "message-id", "references", ":bytes", ":lines", "xref")
    return dict(zip(names, line.split(b"\t"), strict=True))


def test_over_fields(both):
    sathub, peer = both
    for connection in both:
        connection.ask(f"GROUP {GROUP}", block=False)
    ours, theirs = (
        [fields(line) for line in sathub.ask("OVER 1-4")[1]],
        [fields(line) for line in peer.ask("OVER 1-4")[1]],
    )
    assert len(ours) == len(theirs) == len(MESSAGES)
    for message, mine, other in zip(MESSAGES, ours, theirs, strict=True):
        # :bytes: the source's size as received here; public-inbox counts each bare LF as a CRLF
        bare_line_ends = message.count(b"\n") - message.count(b"\r\n")
        assert int(other.pop(":bytes")) - int(mine.pop(":bytes")) == bare_line_ends
        if b"zoe@" in mine["from"]:  # a non-ASCII From: RFC 2047 here, the 8-bit header there
            assert mine.pop("from") == b"=?utf-8?q?Zo=C3=AB?= <zoe@example.org>"
            assert other.pop("from") == "Zoë <zoe@example.org>".encode()
        assert mine == other  # the number, Subject, Date in UTC, Message-ID, References, :lines, Xref
    # References: every Message-ID named, In-Reply-To's after References', once, the sender left out
    assert [mine["references"] for mine in ours] == [b"", b"<a@x>", b"", b"<ghost@x> <c@x>"]
    # the overview's format: RFC 3977's metadata names here, RFC 2980's header names there
    assert sathub.ask("LIST OVERVIEW.FMT")[1][5:7] == [b":bytes", b":lines"]
    assert peer.ask("LIST OVERVIEW.FMT")[1][5:7] == [b"Bytes:", b"Lines:"]


@pytest.mark.parametrize("part", ["ARTICLE", "HEAD", "BODY"])
def test_articles_by_number_are_the_same_bytes(both, part):
    sathub, peer = both
    for connection in both:
        connection.ask(f"GROUP {GROUP}", block=False)
    for number in range(1, len(MESSAGES) + 1):
        (ours, our_lines), (theirs, their_lines) = sathub.ask(f"{part} {number}"), peer.ask(f"{part} {number}")
        assert ours.split()[:3] == theirs.split()[:3]  # the code, the number and the Message-ID
        assert our_lines == their_lines, (part, number)


def test_by_message_id_the_number_is_zero_here(both):
    sathub, peer = both
    (ours, our_lines), (theirs, their_lines) = sathub.ask("ARTICLE <b@x>"), peer.ask("ARTICLE <b@x>")
    assert ours.split()[:3] == [b"220", b"0", b"<b@x>"]  # RFC 3977 6.2.1.3
    assert theirs.split()[:3] == [b"220", b"2", b"<b@x>"]
    assert our_lines == their_lines
