"""Reading archives (sathub.archive.ingest.archive_files): mbox splitting, compression, maildir, pipermail
continuation pieces. Files are written under tmp_path."""

import bz2
import gzip
import io
import lzma

import pytest

from sathub.archive.ingest.archive_files import RawMessage, Unreadable, read_archives, read_mbox, split_mbox

MBOX = (
    b"From alice@example.com Mon Jan  6 10:00:00 2020\n"
    b"From: alice@example.com\nMessage-ID: <1@x>\nSubject: one\n\nfirst body\n\n"
    b"From bob at example.com  Mon Jan  6 11:00:00 2020\n"
    b"From: bob at example.com (Bob)\nMessage-ID: <2@x>\n\nsecond body\n"
    b"From the point of view of an unescaped line, this is body text\n"
    b"and so is this.\n\n"
    b"From carol@example.com Mon Jan  6 12:00:00 2020\n"
    b"Subject: three\n\nthird body\n"
)


def read(data: bytes):
    return list(read_mbox(io.BytesIO(data), "test.mbox"))


def test_mbox_messages_and_a_continuation_piece():
    first, second, third = read(MBOX)
    assert (first.data, first.from_line, first.origin) == (
        b"From: alice@example.com\nMessage-ID: <1@x>\nSubject: one\n\nfirst body\n",
        "From alice@example.com Mon Jan  6 10:00:00 2020",
        "test.mbox #1",
    )
    # The unescaped "From " line and what follows it are the rest of the second message.
    assert second.data == (
        b"From: bob at example.com (Bob)\nMessage-ID: <2@x>\n\nsecond body\n"
        b"From the point of view of an unescaped line, this is body text\nand so is this.\n"
    )
    assert second.appended_pieces == 1
    assert (third.data, third.appended_pieces) == (b"Subject: three\n\nthird body\n", 0)


def test_a_pasted_git_patch_is_body_text_but_a_mailed_one_is_a_message():
    patch = (
        b"From 5d6b028a3c953df47d697dd972fae391cc42b02b Mon Sep 17 00:00:00 2001\n"
        b"From: M Joonas Pihlaja <jpihlaja at cc.helsinki.fi>\nDate: Sat, 29 Aug 2009 19:03:36 +0300\n"
        b"Subject: [PATCH] Shuffle children\n\n---\n"
    )
    pasted = read(b"From a@x Mon Jan  6 10:00:00 2020\nMessage-ID: <1@x>\n\nHere it is:\n" + patch)
    assert len(pasted) == 1 and pasted[0].data.endswith(patch) and pasted[0].appended_pieces == 1
    mailed = read(
        b"From a@x Mon Jan  6 10:00:00 2020\nMessage-ID: <1@x>\n\nHere it is:\n"
        + patch.replace(b"Date:", b"Message-ID: <patch@x>\nDate:")
    )
    assert len(mailed) == 2


def test_text_before_the_first_from_line_is_reported_not_imported():
    items = read(b"Subject: no separator\n\nbody\n" + MBOX)
    assert isinstance(items[0], Unreadable)
    assert items[0].reason == "text before the first From line (not an mbox message)"
    assert [type(item) for item in items[1:]] == [RawMessage] * 3
    assert read(b"\n\n" + MBOX)[0].data.startswith(b"From: alice")  # blank lines are no text


def test_a_continuation_with_nothing_before_it():
    (item,) = read(b"From the start, body text only\nno headers here\n")
    assert isinstance(item, Unreadable)


@pytest.mark.parametrize("chunk_size", [1, 5, 6, 7, 64, 1 << 20])
def test_splitting_is_the_same_for_every_chunk_size(chunk_size):
    pieces = list(split_mbox(io.BytesIO(b"junk\n" + MBOX), chunk_size))
    assert b"".join((line or b"") + text for line, text in pieces) == b"junk\n" + MBOX
    assert [line for line, _ in pieces] == [
        None,
        b"From alice@example.com Mon Jan  6 10:00:00 2020\n",
        b"From bob at example.com  Mon Jan  6 11:00:00 2020\n",
        b"From the point of view of an unescaped line, this is body text\n",
        b"From carol@example.com Mon Jan  6 12:00:00 2020\n",
    ]


@pytest.mark.parametrize(
    "suffix, compress",
    [
        (".mbox", lambda data: data),
        (".mbox.gz", gzip.compress),
        (".mbox.bz2", bz2.compress),
        (".mbox.xz", lzma.compress),
        (".txt", gzip.compress),  # recognised by content, not by name
    ],
)
def test_compressed_archives(tmp_path, suffix, compress):
    path = tmp_path / f"list{suffix}"
    path.write_bytes(compress(MBOX))
    assert [m.data for m in read_archives([path])] == [m.data for m in read(MBOX)]


def test_maildir_and_folders(tmp_path):
    maildir = tmp_path / "box"
    for folder in ("cur", "new", "tmp"):
        (maildir / folder).mkdir(parents=True)
    (maildir / "cur" / "2.host:2,S").write_bytes(b"Message-ID: <b@x>\n\nb\n")
    (maildir / "cur" / "1.host:2,S").write_bytes(b"From x@y Mon Jan  6 10:00:00 2020\nMessage-ID: <a@x>\n\na\n")
    (maildir / "new" / "3.host").write_bytes(b"Message-ID: <c@x>\n\nc\n")
    (maildir / "tmp" / "4.host").write_bytes(b"Message-ID: <d@x>\n\nbeing delivered\n")
    messages = list(read_archives([maildir]))
    assert [(m.data, m.from_line) for m in messages] == [
        (b"Message-ID: <a@x>\n\na\n", "From x@y Mon Jan  6 10:00:00 2020"),
        (b"Message-ID: <b@x>\n\nb\n", None),
        (b"Message-ID: <c@x>\n\nc\n", None),
    ]
    months = tmp_path / "pipermail"
    months.mkdir()
    (months / "2004-September.txt.gz").write_bytes(gzip.compress(MBOX[: MBOX.index(b"From carol")]))
    (months / "2004-August.txt").write_bytes(MBOX[MBOX.index(b"From carol") :])
    (months / ".hidden").write_bytes(b"junk")
    assert [m.origin.rsplit("/", 1)[1] for m in read_archives([months])] == [
        "2004-August.txt #1",
        "2004-September.txt.gz #1",
        "2004-September.txt.gz #2",
    ]


def test_a_corrupt_file_is_reported_and_the_next_one_is_read(tmp_path):
    broken, good = tmp_path / "a.mbox.gz", tmp_path / "b.mbox"
    broken.write_bytes(gzip.compress(MBOX)[:-20])
    good.write_bytes(MBOX)
    items = list(read_archives([broken, good]))
    assert [type(item).__name__ for item in items[-4:]] == ["Unreadable", "RawMessage", "RawMessage", "RawMessage"]
    assert items[-4].reason.startswith("unreadable archive file")
