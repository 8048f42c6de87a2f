"""The catalog the /api/v1 tests report on."""

import pytest

from tests.status.seed import seed_catalog


@pytest.fixture
def seeded(engine):
    seed_catalog(engine, aliases=[("[B]_AO-7", "FO-29")])
    return engine
