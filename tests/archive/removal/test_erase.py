"""Erase means erase (issue 36): a real list's mbox and one message carrying a unique token in its
subject, body, sender's name and address, References and an attachment's bytes are imported; `archive delete`
then `archive compact` (the documented maintenance) leave the token in no byte of SQLite's files
and in no row of any PostgreSQL table. The token is found before the delete, so the search can fail."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from sathub.cli import main
from tests.archive.messages import raw_message
from tests.conftest import SHARED_DATA, scratch_engine

LIST = "3gpp_tsg_sa_wg4_evs@list.etsi.org"
MBOX = SHARED_DATA / "mail" / f"{LIST}.mbox.gz"  # 50 messages of a real list
TOKEN = "qzxerase7319"  # lower case, as the search index keeps words
ADDRESS = f"{TOKEN}@example.net"
MESSAGE_ID = "erase-me-1@example.net"
ATTACHMENT = b"\x00\x01binary " + TOKEN.encode() + b" bytes\xff"


def token_message() -> bytes:
    body = (
        f'--B\nContent-Type: text/plain; charset="utf-8"\n\nMy secret is {TOKEN}, please forget it.\n'
        "--B\nContent-Type: application/octet-stream\nContent-Disposition: attachment; filename=notes.bin\n"
        f"Content-Transfer-Encoding: base64\n\n{base64.b64encode(ATTACHMENT).decode()}\n--B--\n"
    )
    return raw_message(
        MESSAGE_ID,
        sender=f"Zed {TOKEN.capitalize()} <{ADDRESS}>",
        to=LIST,
        subject=f"About {TOKEN}",
        headers=(f"References: <{TOKEN}-thread@example.net>",),
        content_type='multipart/mixed; boundary="B"',
        body=body,
        envelope="From someone@example.net Mon Jan  6 10:00:00 2020",
    )


def sathub(url: str, *args: str) -> str:
    result = CliRunner().invoke(main, ["archive", *args, "--database-url", url], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def sqlite_files_holding(path: str) -> list[str]:
    """The database's files (the WAL and shared memory too, when present) whose bytes hold the token."""
    files = [Path(path), Path(f"{path}-wal"), Path(f"{path}-shm")]
    return [file.name for file in files if file.exists() and TOKEN.encode() in file.read_bytes().lower()]


def postgres_tables_holding(engine) -> list[str]:
    """The tables with a row whose text holds the token, as text (any case) or as bytea's hex."""
    with engine.connect() as conn:
        names = conn.scalars(sa.text("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).all()
        return [
            name
            for name in names
            if conn.scalar(
                sa.text(f'SELECT count(*) FROM "{name}" AS r WHERE lower(r::text) LIKE :text OR r::text LIKE :hex'),
                {"text": f"%{TOKEN}%", "hex": f"%{TOKEN.encode().hex()}%"},
            )
        ]


@pytest.mark.parametrize(
    "scope", [["--message-id", MESSAGE_ID], ["--sender", ADDRESS, "--list", LIST]], ids=["message", "sender"]
)
def test_delete_then_compact_leaves_no_byte_of_the_message(database_url, tmp_path, scope):
    mbox = tmp_path / "token.mbox"
    mbox.write_bytes(token_message())
    with scratch_engine(database_url, tmp_path) as engine:
        url = engine.url.render_as_string(hide_password=False)
        sathub(url, "import", "--list", LIST, str(MBOX))
        assert sathub(url, "import", "--list", LIST, str(mbox)).startswith(f"{LIST}: 1 imported")
        sqlite = engine.dialect.name == "sqlite"
        if sqlite:
            assert sqlite_files_holding(engine.url.database)
        else:
            # Each place the token is kept: the email's text, its sender, its attachment's bytes, the
            # Message-ID its References name, the search.
            kept = {"emails", "senders", "attachments", "email_references", "email_search"}
            assert kept <= set(postgres_tables_holding(engine))
        assert sathub(url, "delete", *scope, "--reason", "GDPR erasure request").endswith(": 1 message(s) deleted.\n")
        sathub(url, "compact")
        if sqlite:
            assert sqlite_files_holding(engine.url.database) == []
        else:
            # No row holds it. The deleted rows' old versions stay in the tables' pages as dead
            # tuples, invisible to every query, until VACUUM (which compact runs) frees their space
            # for new rows; VACUUM FULL rewrites the files (docs/archive-removal.md).
            assert postgres_tables_holding(engine) == []
        with engine.connect() as conn:  # the rest of the list is still there
            assert conn.scalar(sa.text("SELECT count(*) FROM emails")) == 49
