"""What `sathub archive import` says when it ends (sathub.archive.ingest.summary)."""

from __future__ import annotations

from collections import Counter

from sathub.archive.ingest.summary import ImportSummary


def test_a_clean_import_is_one_line():
    assert ImportSummary("dev@example.org", imported=3).describe() == (
        "dev@example.org: 3 imported, 0 duplicates skipped, 0 skipped"
    )


def test_every_kind_of_trouble_gets_a_line_of_its_own():
    summary = ImportSummary(
        "dev@example.org",
        imported=10,
        duplicates=2,
        corrected=1,
        appended_pieces=4,
        skipped=Counter({"not a message": 2, "cannot be decoded (ValueError)": 1}),
        damaged=["a.mbox.gz: truncated"],
        seconds=1.5,
    )
    assert summary.describe().split("\n") == [
        "dev@example.org: 10 imported, 2 duplicates skipped, 3 skipped in 1.5 s",
        "  1 emails stored before corrected: the current rules read them differently",
        "  4 pieces of message bodies cut at unescaped 'From ' lines, appended to the message before them",
        "  skipped 1: cannot be decoded (ValueError)",
        "  skipped 2: not a message",
        "  not read to its end: a.mbox.gz: truncated",
    ]


def test_each_message_archived_without_some_of_its_parts_is_named():
    summary = ImportSummary("dev@example.org", imported=2, parts_left_out=["a@x", "b@x"])
    assert summary.describe().split("\n")[1:] == [
        "  parts beyond SATHUB_MAX_MESSAGE_PARTS or nested too deep, kept in the source only: <a@x>",
        "  parts beyond SATHUB_MAX_MESSAGE_PARTS or nested too deep, kept in the source only: <b@x>",
    ]
