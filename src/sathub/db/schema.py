"""The schema both interfaces' tables join, and its upgrade by the migrations shipped inside the
package (so that an installed sathub can still run `sathub db upgrade`)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from sathub.db.engines import connect, one_at_a_time

metadata = sa.MetaData()

MIGRATIONS = Path(__file__).parent.parent / "migrations"


def upgrade(engine: Engine) -> None:
    """Create or migrate the schema to the newest revision."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with connect(engine, write=True) as conn:
        one_at_a_time(conn)  # the second of two processes finds the schema migrated, not half-made
        config.attributes["connection"] = conn
        command.upgrade(config, "head")
