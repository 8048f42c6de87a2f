"""The hand-built archive of api_fixtures, for the read API, page and download tests; the real
corpus (tests/archive/corpus.py), registered here once for every module that asks for it."""

import pytest

from tests.archive.api_fixtures import seed_archive
from tests.archive.corpus import corpus  # noqa: F401 (the session's fixture, registered once)


@pytest.fixture
def archive(engine):
    return seed_archive(engine)
