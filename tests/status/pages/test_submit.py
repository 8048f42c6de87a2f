"""/submit.php through the real app: the one-shot submissions real apps send (status-api.md section
8, clients.md items 1, 7-11), the confirmation page, foreign requests and the rate limit."""

import html
import threading
import time
import types
from datetime import UTC, datetime, timedelta
from urllib.parse import quote, urlencode

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from sathub import csrf
from sathub.app import create_app
from sathub.status.tables import reports
from tests.status.seed import SUBMISSION as GOOD
from tests.status.seed import seed_catalog

# --- over HTTP ---


@pytest.fixture
def seeded(engine):
    seed_catalog(engine, aliases=[("[B]_AO-7", "FO-29"), ("QO-100_NB", "ISS-FM")])
    return engine


def now_fields(**changes):
    now = datetime.now(UTC) - timedelta(minutes=1)
    fields = {
        **GOOD,
        "Confirm": "yes",
        "SatYear": str(now.year),
        "SatMonth": f"{now.month:02d}",
        "SatDay": f"{now.day:02d}",
        "SatHour": f"{now.hour:02d}",
        "SatPeriod": str(now.minute // 15),
    }
    return {**fields, **changes}


def stored(engine):
    with engine.connect() as conn:
        return conn.execute(
            sa.select(reports.c.name, reports.c.callsign, reports.c.report, reports.c.grid_square).order_by(
                reports.c.id
            )
        ).all()


def test_one_shot_get_stores_and_answers_200_directly(client, seeded):
    response = client.get("/submit.php?" + urlencode(now_fields()), follow_redirects=False)
    assert response.status_code == 200
    assert "Thank you for your submission" in response.text
    assert stored(seeded) == [("AO-91", "W1AW", "Heard", "FN42")]


def test_the_same_one_shot_twice_replaces_and_says_so(client, seeded):
    query = urlencode(now_fields())
    client.get("/submit.php?" + query)
    response = client.get("/submit.php?" + urlencode(now_fields(SatReport="Not Heard")))
    assert "already made a report" in response.text and "This report will replace the previous one." in response.text
    assert stored(seeded) == [("AO-91", "W1AW", "Not Heard", "FN42")]


@pytest.mark.parametrize(
    "query_of, name",
    [
        # Cloudlog / Wavelog / cqrlog: string concatenation, raw brackets and slashes, no encoding.
        (lambda f: "&".join(f"{k}={v}" for k, v in f.items()), "QO-100_NB"),
        # reqwest (CiRCLE bot): spaces as %20.
        (lambda f: urlencode(f, quote_via=quote), "ISS Voice Repeater"),
        # .NET HttpUtility / PHP http_build_query (SkyRoof, Zenith): spaces as '+', brackets encoded.
        (lambda f: urlencode(f), "ISS Voice Repeater"),
    ],
)
def test_apps_encodings_all_reach_the_same_rules(client, seeded, query_of, name):
    fields = now_fields(SatName=name, SatReport="Telemetry Only")
    response = client.get("/submit.php?" + query_of(fields))
    if name == "ISS Voice Repeater":  # a display name: the form only takes API names (8.3 row 8)
        assert response.status_code == 422 and "Satellite Name does not match." in response.text
        assert stored(seeded) == []
    else:  # a retired name, stored under the current one through the catalog's aliases
        assert response.status_code == 200
        assert stored(seeded) == [("ISS-FM", "W1AW", "Telemetry Only", "FN42")]


def test_raw_brackets_spaces_and_slashes_in_names_and_callsigns(client, seeded):
    fields = now_fields(SatName="[B]_AO-7", SatCall="ea8/dl1abc/FN31pr", SatGridSquare="")
    query = "&".join(f"{k}={v}" for k, v in fields.items())
    assert client.get("/submit.php?" + query).status_code == 200
    assert stored(seeded) == [("FO-29", "ea8/dl1abc", "Heard", "FN31pr")]


def test_unpadded_numbers_missing_grid_and_an_extra_app_parameter(client, seeded):
    now = datetime.now(UTC) - timedelta(minutes=1)
    fields = now_fields(SatMonth=str(now.month), SatDay=str(now.day), SatHour=str(now.hour), App="SkyRoof")
    del fields["SatGridSquare"]
    assert client.get("/submit.php?" + urlencode(fields)).status_code == 200
    assert stored(seeded) == [("AO-91", "W1AW", "Heard", "")]


def test_a_form_post_stores_too_and_post_fields_win(client, seeded):
    response = client.post("/submit.php?SatCall=BAD!", data=now_fields(SatSubmit="Submit Data"))
    assert response.status_code == 200 and "Thank you" in response.text
    assert stored(seeded)[0].callsign == "W1AW"


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"SatName": "NO-SUCH-SAT"}, "Satellite Name does not match."),
        ({"SatName": "AO-91' OR '1'='1"}, "Satellite Name does not match."),
        ({"SatCall": "NOT_A_CALL"}, "The callsign you entered does not appear to be valid"),
        ({"SatCall": ""}, "You must enter a callsign."),
        ({"SatGridSquare": "ZZ99"}, "The grid square you entered does not appear to be valid"),
    ],
)
def test_rejections_are_422_with_the_message_and_store_nothing(client, seeded, changes, message):
    response = client.get("/submit.php?" + urlencode(now_fields(**changes)))
    assert response.status_code == 422
    assert message in response.text
    assert stored(seeded) == []


def test_a_future_hour_is_refused(client, seeded):
    later = datetime.now(UTC) + timedelta(hours=1)
    response = client.get(
        "/submit.php?"
        + urlencode(
            now_fields(
                SatYear=str(later.year), SatMonth=str(later.month), SatDay=str(later.day), SatHour=str(later.hour)
            )
        )
    )
    assert response.status_code == 422 and "The time heard you entered does not appear to be valid" in response.text
    assert stored(seeded) == []


def test_without_confirm_only_the_confirmation_page_is_shown(client, seeded):
    fields = now_fields(SatCall="w1aw/fn42", SatGridSquare="")
    del fields["Confirm"]
    response = client.post("/submit.php", data=fields)
    assert response.status_code == 200
    assert "You Entered:" in response.text and "w1aw" in response.text
    assert "SatCall=W1AW&amp;SatReport=Heard&amp;SatGridSquare=FN42" in response.text
    assert 'href="http://sathub.test/submit.php?SatSubmit=yes&amp;Confirm=yes&amp;SatName=AO-91&amp;' in response.text
    assert stored(seeded) == []


def test_confirmation_page_escapes_what_was_sent(client, seeded):
    fields = now_fields(SatName="AO-91")
    del fields["Confirm"]
    response = client.get("/submit.php?" + urlencode(fields) + "&SatYear=<script>")
    assert "<script>" not in response.text


def test_without_satsubmit_the_page_is_empty(client, seeded):
    fields = now_fields()
    del fields["SatSubmit"]
    response = client.get("/submit.php?" + urlencode(fields))
    assert response.status_code == 200 and "Thank" not in response.text
    assert stored(seeded) == []


def test_the_writer_only_checks_and_stores_and_the_page_is_rendered_after_the_commit(client, seeded, monkeypatch):
    """The writer thread holds the writers' lock for every write of its transaction: no page is
    rendered there (rendering is the handler's, once the outcome is known)."""
    from sathub.status.pages import submit as submit_page

    rendered_in, render = [], submit_page.render

    def recorded(*args, **kwargs):
        rendered_in.append(threading.current_thread().name)
        return render(*args, **kwargs)

    monkeypatch.setattr(submit_page, "render", recorded)
    answers = [
        client.get("/submit.php?" + urlencode(now_fields(**changes)))
        for changes in ({}, {"SatReport": "Not Heard"}, {"SatCall": "NOT_A_CALL"}, {"SatName": "NOPE"})
    ]
    assert [answer.status_code for answer in answers] == [200, 200, 422, 422]
    assert len(rendered_in) == 4 and "sathub-writer" not in rendered_in
    assert stored(seeded) == [("AO-91", "W1AW", "Not Heard", "FN42")]


# --- cross-site request forgery ---


def test_a_cross_site_browser_post_without_token_is_refused(client, seeded):
    response = client.post(
        "/submit.php", data=now_fields(), headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
    )
    assert response.status_code == 403
    assert stored(seeded) == []


def test_a_foreign_origin_is_refused_even_without_fetch_metadata(client, seeded):
    response = client.post("/submit.php", data=now_fields(), headers={"Origin": "null"})
    assert response.status_code == 403
    assert stored(seeded) == []


def test_a_cross_site_confirmation_stores_nothing_and_its_yes_link_carries_the_token(client, seeded):
    foreign = {"Origin": "https://amsat.org", "Referer": "https://amsat.org/status/"}
    fields = now_fields()
    del fields["Confirm"]
    confirmation = client.post("/submit.php", data=fields, headers=foreign)
    assert confirmation.status_code == 200 and "You Entered" in confirmation.text
    assert stored(seeded) == []
    yes = html.unescape(confirmation.text.split('<a class="yes" href="')[1].split('"')[0])
    assert f"&{csrf.TOKEN_FIELD}=" in yes
    assert client.get(yes.replace(f"&{csrf.TOKEN_FIELD}=", "&other="), headers=foreign).status_code == 403
    response = client.get(yes, headers=foreign)
    assert response.status_code == 200 and "Thank" in response.text
    assert len(stored(seeded)) == 1


def test_submit_answers_may_not_be_framed_by_other_sites_but_the_status_page_may(client, seeded):
    fields = now_fields()
    del fields["Confirm"]
    answers = [
        client.post("/submit.php", data=fields),
        client.get("/submit.php?" + urlencode(now_fields())),
        client.get("/submit.php?" + urlencode(now_fields(SatCall=""))),
    ]
    assert [answer.status_code for answer in answers] == [200, 200, 422]
    for answer in answers:
        assert answer.headers["x-frame-options"] == "SAMEORIGIN"
        assert answer.headers["content-security-policy"] == "frame-ancestors 'self'"
    page = client.get("/")
    assert "x-frame-options" not in page.headers and 'action="http://sathub.test/submit.php" target="_top"' in page.text


def test_the_status_page_is_the_same_for_every_client(client, seeded):
    first = client.get("/")
    second = TestClient(client.app, base_url="http://sathub.test", client=("10.9.9.9", 1234)).get("/")
    assert first.text == second.text and csrf.TOKEN_FIELD not in first.text


def test_same_origin_browser_requests_and_header_less_apps_need_no_token(client, seeded):
    assert (
        client.post(
            "/submit.php", data=now_fields(), headers={"Origin": "http://sathub.test", "Sec-Fetch-Site": "same-origin"}
        ).status_code
        == 200
    )
    assert (
        client.get(
            "/submit.php?" + urlencode(now_fields(SatCall="K1ABC")),
            headers={"Referer": "http://sathub.test/submit.php"},
        ).status_code
        == 200
    )
    assert client.get("/submit.php?" + urlencode(now_fields(SatCall="DL1ABC"))).status_code == 200
    assert len(stored(seeded)) == 3


# --- rate limit ---


@pytest.fixture
def limited_client(seeded, settings):
    from dataclasses import replace

    app = create_app(replace(settings, submit_rate_per_minute=3), engine=seeded)
    with TestClient(app, base_url="http://sathub.test") as test_client:
        yield test_client


def test_over_the_limit_submissions_get_429_with_retry_after(limited_client, seeded, monkeypatch):
    from sathub.status import rate_limit
    from sathub.status.pages import submit as submit_page

    # The four submissions fall in one window even if the clock crosses a minute meanwhile.
    frozen = rate_limit.window_start(time.time()) + 30.0
    monkeypatch.setattr(submit_page, "time", types.SimpleNamespace(time=lambda: frozen))
    answers = [
        limited_client.get("/submit.php?" + urlencode(now_fields(SatCall=call)))
        for call in ("W1AW", "K1ABC", "DL1ABC", "G4ABC")
    ]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert answers[-1].headers["Retry-After"] == "30"
    assert "Too many reports" in answers[-1].text
    assert len(stored(seeded)) == 3
    fields = now_fields()
    del fields["Confirm"]
    assert limited_client.get("/submit.php?" + urlencode(fields)).status_code == 200  # confirmations are free


def test_the_api_and_the_form_replace_each_others_reports_in_one_slot(client, seeded):
    fields = now_fields()
    minute = int(fields["SatPeriod"]) * 15 + 1
    when = f"{fields['SatYear']}-{fields['SatMonth']}-{fields['SatDay']}T{fields['SatHour']}:{minute:02d}:00Z"
    api = client.post(
        "/api/v1/reports.php",
        json={
            "name": "AO-91",
            "report": "Telemetry Only",
            "callsign": "w1aw",
            "grid_square": "FN42",
            "reported_at": when,
        },
    )
    assert api.status_code == 201 and api.json()["data"]["replaced_count"] == 0
    form = client.get("/submit.php?" + urlencode(fields))
    assert form.text.count("already made a report") == 1
    assert stored(seeded) == [("AO-91", "W1AW", "Heard", "FN42")]
    again = client.post(
        "/api/v1/reports.php", json={"name": "AO-91", "report": "Not Heard", "callsign": "W1AW", "reported_at": when}
    )
    assert again.json()["data"]["replaced_count"] == 1
    assert stored(seeded) == [("AO-91", "W1AW", "Not Heard", "")]


def test_the_replacement_notice_is_printed_once_per_removed_report(client, seeded):
    first = client.get("/submit.php?" + urlencode(now_fields()))
    assert "already made a report" not in first.text and "Thank you for your submission" in first.text
    second = client.get("/submit.php?" + urlencode(now_fields(SatReport="Not Heard")))
    assert (
        second.text.count(
            "It appears that you have already made a report for this satellite for the selected time period."
        )
        == 1
    )
    assert second.text.count("This report will replace the previous one.") == 1
