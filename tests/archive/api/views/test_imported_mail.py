"""From an mbox file to the API answers: the archived date (the From_ line's, when that line names
an address) orders the sender's and the list's emails, while `date` shows the Date header; each
email shows its own spelling of the sender's address, all under one mailman_id."""

import uuid

from sathub.archive.ingest.importer import import_archive

LIST = "dates@example.org"
MBOX = """\
From alice@example.com Wed Jan  8 10:00:00 2020
From: Alice <alice@example.com>
Date: Mon, 06 Jan 2020 10:00:00 +0000
Message-ID: <one@example.org>
Subject: one

first
From ALICE@Example.com Mon Jan  6 12:00:00 2020
From: ALICE@Example.com
Date: Wed, 08 Jan 2020 12:00:00 +0000
Message-ID: <two@example.org>
Subject: two

second
From alice@example.com Tue Jan  7 09:00:00 2020
From: alice at example.com (Alice)
Date: Tue, 07 Jan 2020 09:00:00 +0100
Message-ID: <three@example.org>
Subject: three

third
"""
ALICE = uuid.uuid5(uuid.NAMESPACE_URL, "mailto:alice@example.com").hex


def test_archived_date_orders_and_date_shows(client, engine, tmp_path):
    path = tmp_path / "dates.mbox"
    path.write_text(MBOX)
    assert import_archive(engine, LIST, [path]).imported == 3
    expected = [  # newest archived first: From_ lines Jan 8, Jan 7, Jan 6
        ("one@example.org", "2020-01-06T10:00:00Z", "alice (a) example.com", "Alice"),
        ("three@example.org", "2020-01-07T08:00:00Z", "alice (a) example.com", "alice@example.com"),
        ("two@example.org", "2020-01-08T12:00:00Z", "ALICE (a) Example.com", "ALICE@Example.com"),
    ]
    for path in (f"sender/{ALICE}/emails/", "sender/Alice@EXAMPLE.com/emails/", f"list/{LIST}/emails/"):
        body = client.get(f"/archive/api/{path}").json()
        assert [(e["message_id"], e["date"], e["sender"]["address"], e["sender_name"]) for e in body] == expected
        assert {e["sender"]["mailman_id"] for e in body} == {ALICE}
    # Threads are ordered by date_active, the Date of their last email: two, three, one.
    threads = client.get(f"/archive/api/list/{LIST}/threads/").json()
    assert [(t["subject"], t["date_active"]) for t in threads] == [
        ("two", "2020-01-08T12:00:00Z"),
        ("three", "2020-01-07T08:00:00Z"),
        ("one", "2020-01-06T10:00:00Z"),
    ]
