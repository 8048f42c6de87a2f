"""An archive in which one message, T, carries unique tokens (in its subject, body, sender's name,
an attachment's name and bytes), archived the real way (`import_archive` of an mbox, pipermail
numbers recorded), and every door a reader, crawler or client can reach it by.

The list doors@example.org, in mbox (and pipermail number) order:
    0 A  alice   2024-01-05  "Topic alpha"
    1 B  bob     2024-01-06  reply to A
    2 O  zed     2024-01-10  "Other topic" (T's sender has other mail)
    3 C  carol   2024-02-01  "Later"
    4 T  zed     2024-03-03  reply to B, alone in its month, the newest of the list
`reference` imports the mbox without T: the state of an archive that never had it, the independent
reference of what every door answers once T is gone (a leaf: nothing of the others depends on it).
`planted` then imports the whole mbox, as `archive import` of the list's full archive would.
secret@example.org (private) holds S, with a token of its own."""

from __future__ import annotations

import email.utils
import gzip
import time
from dataclasses import dataclass

from sathub.archive.ingest.importer import import_archive
from sathub.archive.mail.ids import message_id_hash
from sathub.archive.removal.operations import run, scope_of
from tests.archive.messages import raw_message

LIST = "doors@example.org"
SECRET = "secret@example.org"
ZED = "zed@example.net"
SUBJECT_TOKEN, BODY_TOKEN, NAME_TOKEN, FILE_TOKEN, BYTES_TOKEN = (
    "zqxsubjtoken",
    "zqxbodytoken",
    "zqxnametoken",
    "zqxfiletoken",
    "zqxbytestoken",
)
SECRET_TOKEN = "zqxsecrettoken"
TOKENS = (SUBJECT_TOKEN, BODY_TOKEN, NAME_TOKEN, FILE_TOKEN, BYTES_TOKEN)


def msgid(key: str) -> str:
    return f"{key.lower()}-planted@example.org"


def mhash(key: str) -> str:
    return message_id_hash(msgid(key))


T = mhash("T")
A = mhash("A")
# What no answer may hold once T is gone: its words, and its hash (every link to it).
GONE = (*TOKENS, T)

_ATTACHED = (
    "--B\nContent-Type: text/plain; charset=utf-8\n\nThe plan: {body}.\n"
    "--B\nContent-Type: text/plain\nContent-Disposition: attachment; filename={file}.txt\n\n{bytes}\n--B--\n"
)


def _envelope(date: str) -> str:
    """The mbox From_ line of a message of `date`: the import's archived date, hence its month."""
    return "From list@example.org " + time.asctime(email.utils.parsedate(date))


def _mail(key: str, sender: str, subject: str, date: str, reply_to: str | None = None, body: str = "") -> str:
    return raw_message(
        msgid(key),
        sender=sender,
        to=LIST,
        subject=subject,
        reply_to=reply_to and msgid(reply_to),
        date=date,
        body=body or f"Words of {key}.\n",
        envelope=_envelope(date),
        content_type="text/plain; charset=utf-8",
    ).decode()


def planted_message(envelope: bool = True) -> str:
    """T as an mbox holds it (its From_ line first), or as Mailman hands it over (`envelope` False)."""
    return raw_message(
        msgid("T"),
        sender=f"Zed {NAME_TOKEN.capitalize()} <{ZED}>",
        to=LIST,
        subject=f"Re: Topic alpha {SUBJECT_TOKEN}",
        reply_to=msgid("B"),
        date="Sun, 03 Mar 2024 10:00:00 +0000",
        body=_ATTACHED.format(body=BODY_TOKEN, file=FILE_TOKEN, bytes=BYTES_TOKEN),
        envelope=_envelope("Sun, 03 Mar 2024 10:00:00 +0000") if envelope else None,
        content_type='multipart/mixed; boundary="B"',
    ).decode()


OTHERS = (
    _mail("A", "Alice <alice@example.org>", "Topic alpha", "Fri, 05 Jan 2024 10:00:00 +0000"),
    _mail("B", "Bob <bob@example.org>", "Re: Topic alpha", "Sat, 06 Jan 2024 10:00:00 +0000", "A"),
    _mail("O", f"Zed <{ZED}>", "Other topic", "Wed, 10 Jan 2024 10:00:00 +0000"),
    _mail("C", "Carol <carol@example.org>", "Later", "Thu, 01 Feb 2024 10:00:00 +0000"),
)
SECRET_MAIL = _mail("S", f"Zed <{ZED}>", f"Secret {SECRET_TOKEN}", "Fri, 05 Jan 2024 11:00:00 +0000")


def reference(engine, tmp_path) -> None:
    """The archive without T (and the private list with S)."""
    (tmp_path / "others.mbox").write_text("".join(OTHERS))
    (tmp_path / "secret.mbox").write_text(SECRET_MAIL)
    import_archive(engine, LIST, [tmp_path / "others.mbox"], parse_processes=0, pipermail_numbers=True)
    import_archive(engine, SECRET, [tmp_path / "secret.mbox"], parse_processes=0, private=True)


def full_mbox(tmp_path):
    path = tmp_path / "full.mbox"
    path.write_text("".join(OTHERS) + planted_message())
    return path


def planted(engine, tmp_path):
    """T archived by an import of the list's whole mbox; the summary."""
    return import_archive(engine, LIST, [full_mbox(tmp_path)], parse_processes=0, pipermail_numbers=True)


def remove(engine, action: str, key: str = "T", list_name: str = LIST):
    return run(engine, action, scope_of(message_id_hash_=mhash(key), list_name=list_name), "probe", "test")


# The doors ---------------------------------------------------------------------------------------

API_PREFIXES = ("/archive/api/", "/archives/api/", "/hyperkitty/api/")
L = f"list/{LIST}/"


def api_doors() -> list[str]:
    """Every read API answer T is in, or counted in, under each prefix."""
    paths = [
        "lists/",
        L,
        f"{L}threads/",
        f"{L}threads/?limit=1",
        f"{L}thread/{A}/",
        f"{L}thread/{A}/emails/",
        f"{L}thread/{A}/emails/?limit=1",
        f"{L}emails/",
        f"{L}emails/?limit=1",
        f"{L}email/{mhash('B')}/",  # T's parent: its children
        f"{L}email/{T}/",
        f"sender/{ZED}/emails/",
        f"sender/{ZED}/emails/?limit=1",
        *(f"search/?q={token}" for token in (SUBJECT_TOKEN, BODY_TOKEN, NAME_TOKEN, FILE_TOKEN)),
        "search/?q=alpha",  # a search that finds T's thread-mates: T must not be among them
    ]
    return [prefix + path for prefix in API_PREFIXES for path in paths]


W = "/archive/"
LW = f"{W}list/{LIST}/"


def web_doors() -> list[str]:
    """Every page, feed, export, source, sitemap and pipermail link T is in, or counted in."""
    searches = [f"{W}search?q={token}" for token in (SUBJECT_TOKEN, BODY_TOKEN, NAME_TOKEN, FILE_TOKEN)]
    return [
        W,
        LW,
        f"{LW}latest",
        f"{LW}2024/01/",
        f"{LW}2024/03/",
        f"{LW}thread/{A}/",
        f"{LW}message/{mhash('B')}/",
        f"{LW}message/{T}/",
        f"{LW}message/{T}/raw",
        f"{LW}message/{T}/attachment/2/{FILE_TOKEN}.txt",
        *searches,
        f"{W}search?q=alpha",
        f"{W}search/feed/atom/?q={BODY_TOKEN}",
        f"{W}search/export/s.mbox.gz?q={BODY_TOKEN}",
        f"{LW}export/all.mbox.gz",
        f"{LW}export/march.mbox.gz?start=2024-03-01&end=2024-04-01",
        f"{LW}export/thread.mbox.gz?thread={A}",
        f"{LW}export/message.mbox.gz?message={T}",
        f"{LW}export/search.mbox.gz?q={BODY_TOKEN}",
        f"{LW}feed/",
        f"{LW}feed/atom/",
        f"{LW}thread/{A}/feed/atom/",
        f"{W}sender/{ZED}/feed/atom/",
        f"{W}pipermail/doors/2024-March/000004.html",
        f"{W}pipermail/doors/2024-March.txt.gz",
        f"{LW}sitemap.xml",
        f"{LW}sitemap-2024-03-1.xml",
        f"{LW}sitemap-2024-01-1.xml",
    ]


def public_inbox_doors() -> list[str]:
    """public-inbox's forms (docs/public-inbox.md) T is in, or counted in: the inbox `doors`."""
    inbox, everywhere = "/pi/doors/", "/pi/all/"
    return [
        inbox,
        f"{inbox}{msgid('T')}/",
        f"{inbox}{msgid('T')}/raw",
        f"{everywhere}{msgid('T')}/raw",
        f"{inbox}{msgid('A')}/T/",
        f"{inbox}{msgid('A')}/t/",
        f"{inbox}{msgid('A')}/t.mbox.gz",
        f"{inbox}{msgid('A')}/t.atom",
        f"{inbox}new.atom",
        *(f"{inbox}?q={token}" for token in (SUBJECT_TOKEN, BODY_TOKEN, NAME_TOKEN)),
        f"{inbox}?q={BODY_TOKEN}&x=A",
        f"{everywhere}?q=alpha",
    ]


@dataclass(frozen=True)
class Answer:
    status: int
    body: str
    location: str | None
    etag: str | None
    last_modified: str | None

    def holds(self, words=GONE) -> list[str]:
        """The words of `words` this answer holds, in its body or its redirect."""
        text = self.body + (self.location or "")
        return [word for word in words if word.lower() in text.lower()]


def fetch(client, path: str, **headers) -> Answer:
    response = client.get(path, headers=headers, follow_redirects=False)
    body = response.content
    if body[:2] == b"\x1f\x8b":
        body = gzip.decompress(body)
    return Answer(
        response.status_code,
        body.decode("utf-8", "replace"),
        response.headers.get("location"),
        response.headers.get("etag"),
        response.headers.get("last-modified"),
    )


def answers(client, paths: list[str]) -> dict[str, Answer]:
    return {path: fetch(client, path) for path in paths}
