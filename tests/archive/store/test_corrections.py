"""An archive imported under older rules, imported again (sathub.archive.store.corrections and
store.rethreading.rethread_list through the importer): rows corrected in place, threads recomputed,
live mail kept."""

import sqlalchemy as sa

from sathub.archive.mailman import live_ingest
from sathub.archive.store.rethreading import rethread_list
from sathub.archive.tables import emails, threads
from tests.archive.import_fixtures import rows, run
from tests.archive.messages import raw_message

LIST = "python-committers@python.org"
# python-committers, October 2009 (lines 27010-27016 for the reply), shortened bodies.
MBOX = """\
From vstinner at redhat.com  Tue Oct 13 16:16:00 2009
From: vstinner at redhat.com (Victor Stinner)
Date: Tue, 13 Oct 2009 17:16:00 +0200
Subject: [python-committers] On track for Python 2.6.4
 final this Sunday?
Message-ID: <94bdd2610910130816g42826010w3d20901683678ed3@mail.gmail.com>

question
From pje at telecommunity.com  Tue Oct 13 17:30:26 2009
From: pje at telecommunity.com (P.J. Eby)
Date: Tue, 13 Oct 2009 11:30:26 -0400
Subject: [python-committers] [Python-Dev] On track for Python 2.6.4
 final this Sunday?
In-Reply-To: <94bdd2610910130816g42826010w3d20901683678ed3@mail.gmail.co
 m>
Message-ID: <20091013153056.E4D1A3A4116@sparrow.telecommunity.com>

answer
"""
PARENT = "94bdd2610910130816g42826010w3d20901683678ed3@mail.gmail.com"
REPLY = "20091013153056.E4D1A3A4116@sparrow.telecommunity.com"
LIVE = raw_message(
    "live@python.org",
    sender="Guido van Rossum <guido@python.org>",
    subject="live only",
    reply_to=PARENT,
    date="Wed, 14 Oct 2009 09:00:00 -0700",
    body="live\n",
)


def state(engine):
    return rows(
        engine,
        sa.select(
            emails.c.message_id,
            emails.c.sender_address,
            emails.c.sender_name,
            emails.c.subject,
            emails.c.in_reply_to,
            emails.c.parent_id.isnot(None),
            threads.c.thread_id,
            threads.c.emails_count,
        )
        .join(threads, threads.c.id == emails.c.thread_id)
        .order_by(emails.c.id),
    )


def test_reimport_corrects_rows_of_older_rules_and_keeps_live_mail(engine, tmp_path):
    path = tmp_path / "2009-October.txt"
    path.write_text(MBOX)
    run(engine, path, list_name=LIST)
    expected = state(engine)
    # What the older rules stored: the comment as name, lowercase addresses, whitespace removed
    # from the reference (so the reply joined its parent's thread), the fold's space kept.
    with engine.begin() as conn:
        conn.execute(
            emails.update()
            .where(emails.c.message_id == PARENT)
            .values(
                sender_name="Victor Stinner",
                subject="[python-committers] On track for Python 2.6.4  final this Sunday?",
            )
        )
        conn.execute(
            emails.update().where(emails.c.message_id == REPLY).values(sender_name="P.J. Eby", in_reply_to=PARENT)
        )
        live_ingest.store(conn, LIST, live_ingest.parse(LIVE))
        rethread_list(conn, conn.execute(sa.select(emails.c.list_id)).scalars().first())
    assert [row[5] for row in state(engine)] == [False, True, True]  # the old rule's parent link

    summary = run(engine, path, list_name=LIST)
    assert (summary.imported, summary.duplicates, summary.corrected) == (0, 2, 2)
    assert "2 emails stored before corrected" in summary.describe()
    after = state(engine)
    assert after[:2] == [(*expected[0][:7], 2), expected[1]]  # the live reply joined the parent's thread
    assert after[1][4] == "94bdd2610910130816g42826010w3d20901683678ed3@mail.gmail.co m"
    assert after[1][5] is False  # the reference with a space matches nothing: its own thread
    assert after[2][:6] == ("live@python.org", "guido@python.org", "Guido van Rossum", "live only", PARENT, True)
    assert [(r[1], r[2]) for r in after[:2]] == [
        ("vstinner@redhat.com", "vstinner@redhat.com"),
        ("pje@telecommunity.com", "pje@telecommunity.com"),
    ]
    again = run(engine, path, list_name=LIST)
    assert (again.imported, again.corrected) == (0, 0) and state(engine) == after
