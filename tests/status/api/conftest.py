"""The catalog the /api/v1 and /api/v2 tests read: upstream's fixture catalog with a retired name."""

import pytest

from tests.status.seed import seed_catalog


@pytest.fixture
def seeded(engine):
    seed_catalog(engine, aliases=[("[B]_AO-7", "FO-29")])
    return engine
