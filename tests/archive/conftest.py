"""The hand-built archive of api_fixtures, for the read API, page and download tests."""

import pytest

from tests.archive.api_fixtures import seed_archive


@pytest.fixture
def archive(engine):
    return seed_archive(engine)
