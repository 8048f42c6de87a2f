"""request_log.py: every 5xx answer is one log line with its request (a defect's traceback once,
at error), whichever door gave it; with the access log on, every answer is one line in the
Combined Log Format with its duration; a client's bytes never break a line."""

from __future__ import annotations

import logging
import re
from dataclasses import replace

import pytest
from starlette.responses import PlainTextResponse
from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.config import Settings
from sathub.server.request_log import access_line, clf_time, shown
from tests.live_server import free_port

# A Combined Log Format line (httpd's mod_log_config: %h %l %u %t "%r" %>s %b "%{Referer}i"
# "%{User-agent}i"), followed by the duration in seconds.
COMBINED = re.compile(
    r'(?P<client>\S+) - - \[(?P<time>\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d \+0000)\] "(?P<request>[^"]*)" '
    r'(?P<status>\d{3}) (?P<size>\d+|-) "(?P<referer>[^"]*)" "(?P<agent>[^"]*)" (?P<seconds>\d+\.\d{3})'
)


def lines(caplog, level=logging.WARNING) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.levelno >= level]


def test_a_defect_is_one_error_line_with_the_request_and_its_traceback(engine, settings, caplog):
    def boom(request):
        raise RuntimeError("a defect")

    app = create_app(settings, engine=engine)
    app.router.add_route("/boom", boom)
    with caplog.at_level(logging.INFO), TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/boom?x=1", headers={"user-agent": "probe"})
    assert answer.status_code == 500
    [line] = lines(caplog)
    assert line.levelno == logging.ERROR and line.name == "sathub.server"
    assert line.getMessage() == "500 GET /boom?x=1 from testclient"
    assert line.exc_info is not None and str(line.exc_info[1]) == "a defect"


def test_an_exception_raised_outside_starlettes_error_layer_is_answered_500_and_logged_once(engine, settings, caplog):
    """The replay layers run before Starlette's: what fails there is answered here."""
    app = create_app(settings, engine=engine)

    def failing(*_):
        raise RuntimeError("in the replay")

    app.state.answers.revision = failing
    with caplog.at_level(logging.INFO), TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/api/v1/statuses.php")
    assert (answer.status_code, answer.text) == (500, "Internal Server Error")
    [line] = lines(caplog)
    assert line.levelno == logging.ERROR and line.getMessage() == "500 GET /api/v1/statuses.php from testclient"


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/health.php",  # interface A's JSON envelope
        "/api/v1/reports.php?name=AO-91",
        "/",  # interface A's page
        "/archive/api/lists/",  # interface B's API
        "/archive/",  # interface B's page
    ],
)
def test_a_database_away_is_one_warning_line_with_the_request_and_why(caplog, path):
    """Nothing listens on the port: every door answers 503, and the log says which request and why."""
    url = f"postgresql://sathub@127.0.0.1:{free_port()}/nowhere"
    app = create_app(Settings(database_url=url, base_url="http://sathub.test", access_log=0))
    with caplog.at_level(logging.INFO), TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get(path)
    app.state.engine.dispose()
    assert answer.status_code == 503
    # The request's one line; background tasks (webhook delivery) say once that the database is away.
    [line] = [line for line in lines(caplog) if line.name == "sathub.server"]
    assert line.levelno == logging.WARNING and line.exc_info is None
    message = line.getMessage()
    assert message.startswith(f"503 GET {path} from testclient: ")
    assert "DatabaseUnavailable" in message or "OperationalError" in message
    assert "\n" not in message


def test_a_503_a_handler_gives_without_an_exception_is_logged_too(engine, settings, caplog):
    app = create_app(settings, engine=engine)
    app.router.add_route("/busy", lambda request: PlainTextResponse("busy", status_code=503))
    with caplog.at_level(logging.INFO), TestClient(app) as client:
        assert client.get("/busy").status_code == 503
        assert client.get("/api/v1/statuses.php").status_code == 200
    assert [line.getMessage() for line in lines(caplog)] == ["503 GET /busy from testclient"]


def test_the_access_log_is_one_combined_line_per_answer(engine, settings, caplog):
    with caplog.at_level(logging.INFO), TestClient(create_app(settings, engine=engine)) as client:
        first = client.get("/api/v1/statuses.php?x=1", headers={"user-agent": "curl/8", "referer": "http://a/"})
        second = client.get("/api/v1/statuses.php?x=1", headers={"user-agent": "curl/8"})  # replayed
        client.get("/nowhere")
    access = [record for record in caplog.records if record.name == "sathub.access"]
    assert [record.levelno for record in access] == [logging.INFO] * 3
    parsed = [COMBINED.fullmatch(record.getMessage()) for record in access]
    assert all(parsed), [record.getMessage() for record in access]
    assert [(p["request"], p["status"], p["referer"], p["agent"]) for p in parsed] == [
        ("GET /api/v1/statuses.php?x=1 HTTP/1.1", "200", "http://a/", "curl/8"),
        ("GET /api/v1/statuses.php?x=1 HTTP/1.1", "200", "-", "curl/8"),
        ("GET /nowhere HTTP/1.1", "404", "-", "testclient"),
    ]
    assert [int(p["size"]) for p in parsed[:2]] == [len(first.content), len(second.content)]
    assert parsed[0]["client"] == "testclient"


def test_the_access_log_is_off_with_its_setting(engine, settings, caplog):
    quiet = replace(settings, access_log=0)
    with caplog.at_level(logging.INFO), TestClient(create_app(quiet, engine=engine)) as client:
        assert client.get("/api/v1/statuses.php").status_code == 200
    assert [record for record in caplog.records if record.name == "sathub.access"] == []


def test_a_clients_bytes_are_escaped_so_a_line_stays_one_line():
    assert shown('a"b\\c\r\n\x00é') == "a\\x22b\\x5cc\\x0d\\x0a\\x00\\xe9"
    scope = {
        "method": "GET",
        "raw_path": b'/x"y',
        "query_string": b"q=%0a",
        "http_version": "1.1",
        "client": ("192.0.2.1", 5),
        "headers": [(b"user-agent", b'evil"\r\n1.2.3.4 - - [x] "GET / HTTP/1.1" 200 1')],
    }
    line = access_line(scope, 200, 0, 0.0, 0.0004)
    assert line == (
        '192.0.2.1 - - [01/Jan/1970:00:00:00 +0000] "GET /x\\x22y?q=%0a HTTP/1.1" 200 - "-" '
        '"evil\\x22\\x0d\\x0a1.2.3.4 - - [x] \\x22GET / HTTP/1.1\\x22 200 1" 0.000'
    )
    assert COMBINED.fullmatch(line)


def test_the_time_is_httpds_in_utc():
    assert clf_time(1_000_000_000) == "[09/Sep/2001:01:46:40 +0000]"  # date -u -d @1000000000
