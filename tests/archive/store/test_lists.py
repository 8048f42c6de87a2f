"""Lists' SQL (archive/store/lists.py), on SQLite and PostgreSQL: a list is created by its first
message with HyperKitty's defaults (archive-more.md, "Import"), found by its posting address in
any case (archive-more.md, "<list_address>") or by its Mailman 2 name, created once however many
writers race to create it, and its settings changed as Mailman core has them; the public lists
leave the private ones out."""

from __future__ import annotations

import threading
from datetime import datetime

from sathub import db
from sathub.archive.store import lists
from sathub.archive.store.listing import Page
from sathub.archive.tables import NEVER, PRIVATE, PUBLIC
from tests.archive.api_fixtures import MAIL

CREATED = datetime(2001, 1, 1, 10, 0, 0)


def write(engine, work, *args):
    with db.connect(engine, write=True) as conn:
        return work(conn, *args)


def read(engine, work, *args):
    with db.connect(engine) as conn:
        return work(conn, *args)


def settings(row) -> tuple:
    return (row.name, row.display_name, row.description, row.subject_prefix, row.archive_policy, row.created_at)


def test_a_list_created_by_its_first_message_has_hyperkittys_defaults(engine):
    created = write(engine, lists.create_list, "Dev@Example.ORG", {"created_at": CREATED})
    assert settings(created) == ("dev@example.org", "", None, "", PUBLIC, CREATED)
    for address in ("dev@example.org", "DEV@EXAMPLE.ORG", "dEv@eXample.org"):
        found = read(engine, lists.find_list, address)
        assert (found.id, settings(found)) == (created.id, settings(created))
    assert read(engine, lists.find_list, "other@example.org") is None
    assert read(engine, lists.find_list, "dev@example.or") is None


def test_a_list_is_created_with_the_settings_given(engine):
    values = {
        "display_name": "Dev",
        "description": "The developers' list",
        "subject_prefix": "[dev] ",
        "archive_policy": PRIVATE,
        "created_at": CREATED,
    }
    assert settings(write(engine, lists.create_list, "dev@example.org", values)) == (
        "dev@example.org",
        "Dev",
        "The developers' list",
        "[dev] ",
        PRIVATE,
        CREATED,
    )


def test_a_list_created_again_is_answered_as_it_is(engine):
    first = write(engine, lists.create_list, "dev@example.org", {"created_at": CREATED})
    again = write(
        engine,
        lists.create_list,
        "DEV@example.org",
        {"archive_policy": NEVER, "display_name": "X", "created_at": datetime(2020, 1, 1)},
    )
    assert (again.id, settings(again)) == (first.id, settings(first))
    assert read(engine, lists.list_names) == ["dev@example.org"]


def test_writers_racing_to_create_a_list_create_it_once(engine):
    """The first writer's transaction is still open when the second asks for the same list: the
    second waits for it (PostgreSQL's unique index, SQLite's write lock) and answers its list."""
    inserted, release = threading.Event(), threading.Event()
    answers, errors = {}, []

    def first():
        with db.connect(engine, write=True) as conn:
            answers["first"] = lists.create_list(conn, "race@example.org", {"created_at": CREATED})
            inserted.set()
            release.wait(10)

    def second():
        answers["second"] = write(
            engine,
            lists.create_list,
            "Race@example.org",
            {"archive_policy": PRIVATE, "created_at": datetime(2020, 1, 1)},
        )

    def started(work) -> threading.Thread:
        def run():
            try:
                work()
            except BaseException as error:  # raised again in the test's own thread
                errors.append(error)
                inserted.set()

        thread = threading.Thread(target=run)
        thread.start()
        return thread

    threads = [started(first)]
    assert inserted.wait(10)
    if errors:
        raise errors[0]
    threads.append(started(second))
    threads[1].join(0.5)
    waited = threads[1].is_alive()
    release.set()
    for thread in threads:
        thread.join(10)
    if errors:
        raise errors[0]
    assert waited  # the second writer waited for the first
    assert (answers["second"].id, settings(answers["second"])) == (answers["first"].id, settings(answers["first"]))
    assert settings(answers["second"]) == ("race@example.org", "", None, "", PUBLIC, CREATED)
    assert read(engine, lists.list_names) == ["race@example.org"]


def test_updating_a_list_changes_only_that_list_and_those_settings(engine):
    dev = write(engine, lists.create_list, "dev@example.org", {"created_at": CREATED})
    other = write(engine, lists.create_list, "other@example.org", {"created_at": CREATED})
    write(engine, lists.update_list, dev.id, {"display_name": "Dev", "archive_policy": NEVER})
    write(engine, lists.update_list, dev.id, {})  # nothing to change: nothing changes
    assert settings(read(engine, lists.find_list, "dev@example.org")) == (
        "dev@example.org",
        "Dev",
        None,
        "",
        NEVER,
        CREATED,
    )
    assert settings(read(engine, lists.find_list, "other@example.org")) == settings(other)


def test_list_names_in_order(engine):
    for address in ("b@example.org", "A@example.org", "c@example.com"):
        write(engine, lists.create_list, address, {"created_at": CREATED})
    assert read(engine, lists.list_names) == ["a@example.org", "b@example.org", "c@example.com"]


def test_public_lists_by_mailman_2_name_whatever_the_domain(engine):
    for address in ("dev@b.example.org", "dev@a.example.org", "devs@example.org", "d%v@example.org"):
        write(engine, lists.create_list, address, {"created_at": CREATED})
    write(engine, lists.create_list, "dev@0.example.org", {"created_at": CREATED, "archive_policy": PRIVATE})
    assert [row.name for row in read(engine, lists.public_lists_by_local_part, "DEV")] == [
        "dev@a.example.org",
        "dev@b.example.org",
    ]
    assert read(engine, lists.public_lists_by_local_part, "de") == []
    # LIKE's wildcards in a name are the characters themselves.
    assert [row.name for row in read(engine, lists.public_lists_by_local_part, "d%v")] == ["d%v@example.org"]
    assert read(engine, lists.public_lists_by_local_part, "d_v") == []


def test_the_public_lists_and_their_totals(engine, archive):
    # api_fixtures: dev (8 emails, the newest H), other (X), quiet (`never`, no mail); private left out.
    names = [row.name for row in read(engine, lists.public_lists, None)]
    assert names == ["dev@example.org", "other@example.org", "quiet@example.org"]
    assert [row.name for row in read(engine, lists.public_lists, Page(1, 1))] == ["other@example.org"]
    assert read(engine, lists.count_public_lists) == 3
    totals = [(row.name, row.emails_count, row.last_active) for row in read(engine, lists.public_lists_with_totals)]
    assert totals == [
        ("dev@example.org", 8, MAIL["H"].date),
        ("other@example.org", 1, MAIL["X"].date),
        ("quiet@example.org", 0, None),
    ]
