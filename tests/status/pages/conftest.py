"""The catalog the page tests show: a website, a name that needs escaping, a display name."""

from datetime import UTC, datetime, timedelta

import pytest

from tests.status.seed import seed_catalog


def now_minus(**delta):
    return datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(**delta)


@pytest.fixture
def catalog_seeded(engine):
    seed_catalog(
        engine,
        rows=[
            {"name": "AO-91", "display_name": "AO-91 Mode U/v FM", "website": "https://www.amsat.org/ao-91/"},
            {"name": "AO-7_[U/v]", "display_name": "AO-7 Mode B <b>", "website": ""},
            {"name": "ISS-FM", "display_name": "ISS Voice Repeater", "website": ""},
        ],
    )
    return engine
