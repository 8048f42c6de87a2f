"""Shared fixtures: every database-backed test runs on SQLite and, when
SATHUB_TEST_POSTGRES_URL is set, on a fresh PostgreSQL database of its own."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from sathub import db
from sathub.app import create_app
from sathub.config import Settings
from tests.browser import chromium
from tests.postgres_connections import Connections


def _shared() -> Path:
    """The shared folder beside the checkout (../shared), else SATHUB_SHARED, else /work/shared:
    a clone elsewhere still finds the specs and the real data."""
    beside = Path(__file__).resolve().parents[2] / "shared"
    configured = [Path(os.environ["SATHUB_SHARED"])] if os.environ.get("SATHUB_SHARED") else []
    for candidate in (beside, *configured, Path("/work/shared")):
        if (candidate / "data").is_dir():
            return candidate
    raise RuntimeError("shared/ (specs and real data) not found beside the checkout; set SATHUB_SHARED")


SHARED = _shared()
SHARED_DATA = SHARED / "data"
# Every PostgreSQL connection of this test process carries its name, so that the check of the
# connections a test leaves open (postgres_connections.py) counts its own only: its process id is
# unique among the test processes running at once, xdist's workers or several runs on one server.
APPLICATION_NAME = f"sathub-tests-{os.getpid()}"


def _named(url: str | None) -> str | None:
    if not url:
        return url
    parsed = sa.make_url(url)
    if "application_name" in parsed.query:
        return url
    return parsed.update_query_dict({"application_name": APPLICATION_NAME}).render_as_string(hide_password=False)


POSTGRES_URL = _named(os.environ.get("SATHUB_TEST_POSTGRES_URL"))

DOCS_SCREENSHOTS = Path(__file__).resolve().parents[1] / "docs" / "screenshots"

BACKENDS = [
    "sqlite",
    pytest.param("postgresql", marks=pytest.mark.skipif(not POSTGRES_URL, reason="SATHUB_TEST_POSTGRES_URL not set")),
]


def fresh_postgres_database(base_url: str) -> tuple[str, callable]:
    """Create an empty database on the server of base_url; returns its URL and a dropper."""
    name = f"sathub_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(db.normalize_url(base_url), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = db.normalize_url(base_url).set(database=name).render_as_string(hide_password=False)

    def drop() -> None:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()

    return url, drop


@contextmanager
def scratch_engine(database_url: str, tmp_path: Path) -> Iterator[sa.Engine]:
    """An engine on a new, empty database of `database_url`'s backend (nothing migrated: a test
    takes it to the revision it starts from), dropped afterwards."""
    if database_url.startswith("postgresql"):
        url, drop = fresh_postgres_database(POSTGRES_URL)
    else:
        url, drop = f"sqlite:///{tmp_path / 'old.db'}", lambda: None
    engine = db.create_engine(url)
    try:
        yield engine
    finally:
        engine.dispose()
        drop()


def migrate(engine: sa.Engine, revision: str, step=None) -> None:
    """The schema of `engine` taken to `revision` (by alembic's `step`, upgrade unless given)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(db.MIGRATIONS))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        (step or command.upgrade)(config, revision)


@pytest.fixture(scope="session", params=BACKENDS)
def database_url(request, tmp_path_factory):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'sathub.db'}"
        return
    url, drop = fresh_postgres_database(POSTGRES_URL)
    yield url
    drop()


@pytest.fixture(scope="session")
def migrated_engine(database_url):
    engine = db.create_engine(database_url)
    db.upgrade(engine)
    yield engine
    engine.dispose()


# Kept by triggers alone, as a running server's cached answers expect (migration 0007): emptying
# reports leaves every hourly count at 0, stamped with a new revision.
KEPT_BY_TRIGGERS = {"data_revision", "report_hours"}


def empty_all_tables(engine) -> None:
    with engine.begin() as conn:
        existing = set(sa.inspect(conn).get_table_names()) - KEPT_BY_TRIGGERS
        for table in reversed(db.metadata.sorted_tables):
            if table.name in existing:
                conn.execute(table.delete())


@pytest.fixture
def engine(migrated_engine):
    """A migrated database with every table emptied before the test."""
    empty_all_tables(migrated_engine)
    return migrated_engine


@pytest.fixture
def settings(database_url):
    # The costly doors' budgets are off: one test client searching a property test's 150 queries is
    # no crawler; tests/archive/budgets/ turn them on. Webhook delivery is off: its lease claims,
    # every 5 s, would land among the statements that tests count; tests/status/notify/ turn it on.
    return Settings(
        database_url=database_url,
        base_url="http://sathub.test",
        secret_key="test-secret",
        search_budget=0,
        webhook_delivery=0,
        export_budget=0,
    )


@pytest.fixture
def client(engine, settings):
    with TestClient(create_app(settings, engine=engine), base_url="http://sathub.test") as test_client:
        yield test_client


@pytest.fixture(scope="session")
def postgres_connections() -> Iterator[Connections | None]:
    if not POSTGRES_URL:
        yield None
        return
    name = sa.make_url(POSTGRES_URL).query.get("application_name", APPLICATION_NAME)
    conninfo = db.normalize_url(POSTGRES_URL).set(drivername="postgresql").render_as_string(hide_password=False)
    connections = Connections(conninfo, str(name))
    yield connections
    connections.close()


@pytest.fixture(autouse=True)
def no_postgres_connection_left_open(postgres_connections):
    """A test leaves no more PostgreSQL connections open than it found (postgres_connections.py):
    a leak once made CI raise the server's max_connections to 300."""
    if postgres_connections is None:
        yield
        return
    found = postgres_connections.open()
    yield
    left = postgres_connections.left_open(found)
    if left:
        lines = "\n".join(f"  pid {pid}: {what}" for pid, what in left.items())
        pytest.fail(f"{len(left)} PostgreSQL connection(s) left open:\n{lines}", pytrace=False)


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory) -> Path:
    """Where page tests save screenshots: docs/screenshots/ with SATHUB_SCREENSHOTS=1 (make
    screenshots), a temporary folder otherwise, so a test run leaves the tree clean."""
    return DOCS_SCREENSHOTS if os.environ.get("SATHUB_SCREENSHOTS") else tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="module")
def browser():
    """Headless chromium for the tests of one module (tests/browser.py); skipped without it."""
    with chromium() as launched:
        yield launched


# Under CI=true nothing is skipped silently: a test skipped for want of PostgreSQL, MariaDB or
# Chromium fails instead. Only a test marked calendar_bound (it cannot run at some hour of the
# year) may still skip.
UNDER_CI = os.environ.get("CI") == "true"


def _fail_skip(report, name: str) -> None:
    report.outcome = "failed"
    report.longrepr = f"{name} was skipped under CI=true, where nothing may be skipped: {report.longrepr}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if UNDER_CI and report.skipped and not item.get_closest_marker("calendar_bound"):
        _fail_skip(report, item.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if UNDER_CI and report.skipped:
        _fail_skip(report, collector.nodeid)
