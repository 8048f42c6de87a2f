"""A batch news client mirrors a group (Debian's `suck`, installed by `make suck`): every article
it stores is the message `/raw` serves, byte for byte, with the three headers the server adds; a
second run, from the high water mark suck kept, takes only the mail archived since."""

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
