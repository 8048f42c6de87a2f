"""`sathub archive senders load` (sathub.archive.mailman.user_ids) on SQLite and PostgreSQL."""

import sqlalchemy as sa

from sathub.archive.mailman.user_ids import load_mailman_ids
from sathub.archive.tables import senders
from tests.archive.import_fixtures import archive, message, rows, run


def test_mailman_ids_replace_the_default_ones_before_or_after_the_import(engine, tmp_path):
    real = "0123456789abcdef0123456789abcdef"
    loaded = load_mailman_ids(engine, [("Bob@Example.com", "01234567-89ab-cdef-0123-456789abcdef")])
    assert (loaded.loaded, loaded.rejected) == (1, [])
    run(
        engine,
        archive(tmp_path, "a.mbox", message("1", sender="bob@example.com"), message("2", sender="carol@example.com")),
    )
    other = "fedcba9876543210fedcba9876543210"
    result = load_mailman_ids(
        engine,
        [("carol@example.com", other), ("dan@example.com", real), ("eve@example.com", "not-an-id"), ("nobody", other)],
    )
    assert result.loaded == 1
    assert result.rejected == [
        f"line 3: {real} already belongs to bob@example.com",
        "line 4: 'not-an-id' is not a Mailman user id",
        "line 5: 'nobody' is not an address",
    ]
    assert sorted(rows(engine, sa.select(senders.c.address, senders.c.mailman_id))) == [
        ("bob@example.com", real),
        ("carol@example.com", other),
    ]
