"""Batch news clients mirror a group (Debian's `suck` and `slrnpull`, installed by `make suck` and
`make slrnpull`): every article each stores is the message `/raw` serves, byte for byte, with the
three headers the server adds; a second run, from the high water mark it kept, takes only the mail
archived since."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from sathub.archive.mail.ids import message_id_hash
from tests.archive.messages import raw_message
from tests.archive.nntp.listener import SERVER, archive_live, listening

GROUP = "org.example.dev"
MESSAGES = [
    raw_message("plain@x", subject="plain"),
    raw_message("dots@x", body=".a line that starts with a dot\n..and two\n.\nend\n"),
    raw_message("crlf@x", reply_to="plain@x", newline="\r\n", body="lines\r\nended\r\nby CRLF\r\n"),
    raw_message("utf8@x", sender="Zoë <zoe@example.org>", subject="Grüße", body="8-bit: ü\n"),
]
LATER = raw_message("later@x", subject="after the first mirror")


def suck_binary() -> str:
    found = shutil.which("suck")
    assert found, "Debian's suck is missing: `make suck` installs it (apt-get install suck)"
    return found


def mirror(port: int, folder: Path) -> dict[str, bytes]:
    """Run suck once in multifile mode; the articles it stored by now, by file name."""
    data, articles, temporary = folder / "data", folder / "articles", folder / "tmp"
    for made in (data, articles, temporary):
        made.mkdir(exist_ok=True)
    if not (data / "sucknewsrc").exists():
        (data / "sucknewsrc").write_text(f"{GROUP} -100\n")  # a new group: its newest 100
    command = [suck_binary(), "127.0.0.1", "-N", str(port), "-dd", str(data), "-dm", str(articles)]
    command += ["-dt", str(temporary), "-m", "-n", "-K", "-q", "-c"]  # -c: suck.newrc becomes sucknewsrc
    subprocess.run(command, check=True, capture_output=True, timeout=60)
    return {path.name: path.read_bytes() for path in sorted(articles.iterdir())}


def without_news_headers(article: bytes) -> bytes:
    """The article with the server's Xref, Newsgroups and Path lines taken out of its header."""
    header, _, body = article.partition(b"\n\n")
    kept = [line for line in header.split(b"\n") if not line.startswith((b"Xref: ", b"Newsgroups: ", b"Path: "))]
    return b"\n".join(kept) + b"\n\n" + body


def test_suck_mirrors_a_group_and_each_article_is_the_raw_source(engine, client, tmp_path):
    for message in MESSAGES:
        assert archive_live(engine, message).new
    with listening(engine) as port:
        first = mirror(port, tmp_path)
        assert len(first) == len(MESSAGES)
        by_message_id = {}
        for article in first.values():
            header = article.partition(b"\n\n")[0].split(b"\n")
            (message_id,) = [line[len(b"Message-ID: <") : -1] for line in header if line.startswith(b"Message-ID: ")]
            by_message_id[message_id.decode()] = article
        for number, message in enumerate(MESSAGES, start=1):  # numbered in arrival order
            message_id = message.split(b"Message-ID: <", 1)[1].split(b">", 1)[0].decode()
            assert f"\nXref: {SERVER} {GROUP}:{number}\n".encode() in by_message_id[message_id]
            raw = client.get(f"/archive/list/dev@example.org/message/{message_id_hash(message_id)}/raw")
            assert raw.status_code == 200
            # suck stores LF line ends: the CRLF source's lines are compared as such
            assert without_news_headers(by_message_id[message_id]) == raw.content.replace(b"\r\n", b"\n")
        assert (tmp_path / "data" / "sucknewsrc").read_text().split() == [GROUP, str(len(MESSAGES))]
        assert archive_live(engine, LATER).new
        second = mirror(port, tmp_path)
        new = [article for name, article in second.items() if name not in first]
        assert len(new) == 1 and b"Message-ID: <later@x>" in new[0]
        assert f"Xref: {SERVER} {GROUP}:{len(MESSAGES) + 1}".encode() in new[0]


def slrnpull(port: int, spool: Path) -> dict[str, bytes]:
    """Run slrnpull once on its spool; the articles it stored by now, by number."""
    binary = shutil.which("slrnpull")
    assert binary, "Debian's slrnpull is missing: `make slrnpull` installs it (apt-get install slrnpull)"
    (spool / "slrnpull.conf").write_text(f"{GROUP} 0 0 0\n")  # every article, none expired
    command = [binary, "-d", str(spool), "-h", f"127.0.0.1:{port}", "--no-post"]
    subprocess.run(command, check=True, capture_output=True, timeout=60)
    folder = spool / "news" / Path(*GROUP.split("."))
    return {path.name: path.read_bytes() for path in folder.iterdir() if path.name.isdigit()}


def test_slrnpull_mirrors_a_group_into_its_spool_and_each_article_is_the_raw_source(engine, client, tmp_path):
    for message in MESSAGES:
        assert archive_live(engine, message).new
    with listening(engine) as port:
        first = slrnpull(port, tmp_path)
        assert sorted(first) == [str(number) for number in range(1, len(MESSAGES) + 1)]
        for number, message in enumerate(MESSAGES, start=1):  # a file per article, named by its number
            article = first[str(number)]
            assert f"\nXref: {SERVER} {GROUP}:{number}\n".encode() in article
            message_id = message.split(b"Message-ID: <", 1)[1].split(b">", 1)[0].decode()
            raw = client.get(f"/archive/list/dev@example.org/message/{message_id_hash(message_id)}/raw")
            assert raw.status_code == 200
            assert without_news_headers(article) == raw.content.replace(b"\r\n", b"\n")  # LF in the spool
        for name in first:  # gone from the spool: a second run fetching them again would show
            (tmp_path / "news" / Path(*GROUP.split(".")) / name).unlink()
        assert archive_live(engine, LATER).new
        second = slrnpull(port, tmp_path)
        assert list(second) == [str(len(MESSAGES) + 1)] and b"Message-ID: <later@x>" in second[str(len(MESSAGES) + 1)]
