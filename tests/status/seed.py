"""Test data for interface A: upstream's test fixture catalog and report helpers."""

from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from sathub import db
from sathub.status.store import catalog as catalog_store
from sathub.status.store import writes as report_writes

# A bcrypt hash made by PHP itself (the example of PHP's manual for password_verify), of "rasmuslerdorf".
PHP_HASH = "$2y$07$BCryptRequires22Chrcte/VlQH0piJtjXl.0t1XkA8pw9dMXTpOq"

FIXTURE_CATALOG = [
    {"name": "AO-91", "display_name": "AO-91 Mode U/v FM", "website": "https://www.amsat.org/ao-91/"},
    {"name": "FO-29", "display_name": "FO-29", "website": ""},
    {"name": "ISS-FM", "display_name": "ISS Voice Repeater", "website": "https://www.ariss.org/"},
]


def seed_catalog(engine, rows=FIXTURE_CATALOG, aliases=()) -> None:
    with db.connect(engine, write=True) as conn:
        catalog_store.load_catalog(conn, rows)
        for alias, name in aliases:
            assert catalog_store.add_alias(conn, alias, name) is None


def hours_ago(hours: float, minute: int = 20) -> datetime:
    then = datetime.now(UTC) - timedelta(hours=hours)
    return then.replace(minute=minute, second=0, microsecond=0)


def store_report(engine, name, when: datetime, callsign="W1AW", report="Heard", grid="FN31"):
    from sathub.status.rules import period_of_minute

    with db.connect(engine, write=True) as conn:
        return report_writes.store_submitted(
            conn,
            [
                dict(
                    name=name,
                    day=when.date(),
                    hour=when.hour,
                    period=period_of_minute(when.minute),
                    callsign=callsign,
                    report=report,
                    grid_square=grid,
                )
            ],
        )[0]


def set_visible(engine, report_id: int, visible: bool | None) -> None:
    """Set a stored report's `visible` as a recheck would: an UPDATE of that column alone."""
    from sathub.status.tables import reports

    with db.connect(engine, write=True) as conn:
        conn.execute(sa.update(reports).where(reports.c.id == report_id).values(visible=visible))


def bump_revision(engine) -> None:
    """Move the data revision by one, as any committed write does (migration 0001's triggers)."""
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE data_revision SET revision = revision + 1 WHERE id = 1"))


# A submit.php submission every rule accepts, heard at 2026-05-23 08:30-08:45 UTC; tests change one
# field at a time.
SUBMISSION = {
    "SatSubmit": "yes",
    "SatName": "AO-91",
    "SatReport": "Heard",
    "SatYear": "2026",
    "SatMonth": "05",
    "SatDay": "23",
    "SatHour": "08",
    "SatPeriod": "2",
    "SatCall": "W1AW",
    "SatGridSquare": "fn42",
}
