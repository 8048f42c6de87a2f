"""`sathub archive import` and `sathub archive senders load` through the command line."""

import gzip
from random import Random

import sqlalchemy as sa
from click.testing import CliRunner

from sathub.archive.commands import list_address_from_name
from sathub.archive.tables import attachments, emails, mailing_lists, senders
from sathub.cli import main
from tests.archive.messages import many_parts_message

MBOX = (
    b"From alice@example.com Mon Jan  6 10:00:00 2020\nFrom: Alice <alice@example.com>\n"
    b"Message-ID: <1@x>\nSubject: one\nDate: Mon, 06 Jan 2020 10:00:00 +0000\n\nbody\n"
)


def invoke(engine, *args):
    url = engine.url.render_as_string(hide_password=False)
    return CliRunner().invoke(main, [*args, "--database-url", url], catch_exceptions=False)


def test_list_address_from_file_name(tmp_path):
    assert list_address_from_name(tmp_path / "gpsd-dev@lists.berlios.de.mbox.gz") == "gpsd-dev@lists.berlios.de"
    assert list_address_from_name(tmp_path / "Dev@Example.org.mbox") == "dev@example.org"
    assert list_address_from_name(tmp_path / "2004-August.txt.gz") is None
    assert list_address_from_name(tmp_path / "dev@example.org") is None


def test_import_takes_the_list_from_the_file_name(engine, tmp_path):
    path = tmp_path / "dev@example.org.mbox.gz"
    path.write_bytes(gzip.compress(MBOX))
    result = invoke(engine, "archive", "import", str(path))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("dev@example.org: 1 imported, 0 duplicates skipped, 0 skipped")
    again = invoke(engine, "archive", "import", "--list", "dev@example.org", str(path))
    assert again.output.startswith("dev@example.org: 0 imported, 1 duplicates skipped")
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(emails)).scalar_one() == 1


def test_import_needs_a_list_address(engine, tmp_path):
    path = tmp_path / "2004-August.txt"
    path.write_bytes(MBOX)
    result = invoke(engine, "archive", "import", str(path))
    assert result.exit_code == 2 and "Give --list ADDRESS" in result.output
    result = invoke(engine, "archive", "import", "--list", "not-an-address", str(path))
    assert result.exit_code == 2 and "not a posting address" in result.output
    with engine.connect() as conn:
        assert conn.execute(sa.select(mailing_lists)).all() == []


def test_import_refuses_a_list_address_mailman_could_not_have(engine, tmp_path):
    path = tmp_path / "2004-August.txt"
    path.write_bytes(MBOX)
    for address in ["a b@c.org", "a@b\r\nx: y", "..@..", "l" * 300 + "@example.org"]:
        result = invoke(engine, "archive", "import", "--list", address, str(path))
        assert result.exit_code == 2 and "not a posting address" in result.output, result.output
    with engine.connect() as conn:
        assert conn.execute(sa.select(mailing_lists)).all() == []


def test_private_import(engine, tmp_path):
    path = tmp_path / "x.mbox"
    path.write_bytes(MBOX)
    assert invoke(engine, "archive", "import", "--private", "--list", "secret@example.org", str(path)).exit_code == 0
    with engine.connect() as conn:
        assert conn.execute(sa.select(mailing_lists.c.archive_policy)).scalar_one() == "private"


def test_senders_load(engine, tmp_path):
    csv_file = tmp_path / "ids.csv"
    csv_file.write_text("address,mailman_id\nalice@example.com,c5ed4be3-6a3d-596f-84b6-1607e27f11c8\n")
    result = invoke(engine, "archive", "senders", "load", str(csv_file))
    assert (result.exit_code, result.output) == (0, "1 sender ids loaded, 0 rejected\n")
    csv_file.write_text("address,mailman_id\nbob@example.com,nope\n")
    result = invoke(engine, "archive", "senders", "load", str(csv_file))
    assert result.exit_code == 1 and "line 2: 'nope' is not a Mailman user id" in result.output
    csv_file.write_text("email,id\n")
    assert invoke(engine, "archive", "senders", "load", str(csv_file)).exit_code == 2
    with engine.connect() as conn:
        assert conn.execute(sa.select(senders.c.address, senders.c.mailman_id)).all() == [
            ("alice@example.com", "c5ed4be36a3d596f84b61607e27f11c8")
        ]


def mbox_of(count: int) -> bytes:
    """`count` messages with incompressible bodies of 6 KB: several MB once decompressed."""
    random = Random(13)
    return b"".join(
        MBOX.replace(b"<1@x>", f"<{n}@x>".encode()) + random.randbytes(3000).hex().encode() + b"\n\n"
        for n in range(count)
    )


def test_a_truncated_gzip_fails_the_import_and_a_rerun_of_the_whole_file_completes_it(engine, tmp_path):
    whole = gzip.compress(mbox_of(400))
    path = tmp_path / "dev@example.org.mbox.gz"
    path.write_bytes(whole[: len(whole) // 2])
    result = CliRunner().invoke(
        main, ["archive", "import", str(path), "--database-url", engine.url.render_as_string(hide_password=False)]
    )
    assert result.exit_code == 1
    assert "could not be read to their end" in result.stderr and "not read to its end" in result.stdout
    with engine.connect() as conn:
        stored = conn.execute(sa.select(sa.func.count()).select_from(emails)).scalar_one()
    assert 0 < stored < 400  # what was read before the damage stays stored
    path.write_bytes(whole)
    again = invoke(engine, "archive", "import", str(path))
    assert again.exit_code == 0
    assert again.output.startswith(f"dev@example.org: {400 - stored} imported, {stored} duplicates")


def test_a_corrupt_gzip_fails_the_import(engine, tmp_path):
    path = tmp_path / "dev@example.org.mbox.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00" + b"\x00" * 200)
    result = invoke(engine, "archive", "import", str(path))
    assert result.exit_code == 1 and "could not be read to their end" in result.output
    with engine.connect() as conn:
        assert conn.execute(sa.select(mailing_lists)).all() == []


def test_a_file_without_mail_creates_no_list(engine, tmp_path):
    empty, binary = tmp_path / "empty@example.org.mbox", tmp_path / "binary@example.org.mbox"
    empty.write_bytes(b"")
    binary.write_bytes(bytes(range(256)) * 4)
    for path in (empty, binary):
        result = invoke(engine, "archive", "import", str(path))
        assert result.exit_code == 1 and "no message could be archived" in result.output
    with engine.connect() as conn:
        assert conn.execute(sa.select(mailing_lists)).all() == []


def test_import_splits_out_the_parts_sathub_max_message_parts_allows(engine, tmp_path, monkeypatch):
    path = tmp_path / "dev@example.org.mbox"
    path.write_bytes(b"From alice@example.com Mon Jan  6 10:00:00 2020\n" + many_parts_message("many@x", 20))
    monkeypatch.setenv("SATHUB_MAX_MESSAGE_PARTS", "none")
    refused = CliRunner().invoke(main, ["archive", "import", str(path), "--database-url", "sqlite://"])
    assert refused.exit_code == 2 and "SATHUB_MAX_MESSAGE_PARTS must be an integer" in refused.output
    monkeypatch.setenv("SATHUB_MAX_MESSAGE_PARTS", "10")
    result = invoke(engine, "archive", "import", str(path))
    assert result.exit_code == 0 and "kept in the source only: <many@x>" in result.output
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(attachments)).scalar_one() == 8
