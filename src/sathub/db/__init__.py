"""The database as both interfaces use it: engines and connections (engines.py), the schema and
its upgrade (schema.py), SQL that differs by dialect (dialect.py), deadlines on a silent server
(deadlines.py) and the shared write transaction (group_commit.py).

The names a command or a test reaches for most are offered here."""

from sathub.db.engines import SILENT, DatabaseUnavailable, connect, create_engine, normalize_url, one_at_a_time
from sathub.db.schema import MIGRATIONS, metadata, upgrade

__all__ = [
    "MIGRATIONS",
    "SILENT",
    "DatabaseUnavailable",
    "connect",
    "create_engine",
    "metadata",
    "normalize_url",
    "one_at_a_time",
    "upgrade",
]
