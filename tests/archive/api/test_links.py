"""Absolute links (sathub.archive.api.links): from the configured base URL or the request, with the
request's `?format=` copied into each."""

from __future__ import annotations

import re

from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.config import Settings
from tests.archive.api_fixtures import DEV, A, E, seed_archive


def test_format_json_is_copied_into_every_link(client, archive):
    body = client.get(f"/archive/api/list/{DEV}/thread/{A}/emails/?format=json").json()
    links = [
        link
        for email in body
        for link in (
            email["url"],
            email["mailinglist"],
            email["thread"],
            email["sender"]["emails"],
            email["parent"],
            *email["children"],
        )
        if link
    ]
    assert len(links) == 22 and all(link.endswith("/?format=json") for link in links)


def test_format_api_is_copied_into_every_link_of_the_page(client, archive):
    text = client.get(f"/archive/api/list/{DEV}/thread/{A}/emails/?format=api").text
    links = re.findall(r'href="(http[^"]*)"', text)
    assert len(links) == 23 and all(link.endswith("/?format=api") for link in links)  # 22 + the index


def test_links_come_from_the_configured_base_url_with_its_prefix(engine, database_url):
    seed_archive(engine)
    settings = Settings(database_url=database_url, base_url="https://lists.example.net/status")
    with TestClient(create_app(settings, engine=engine), base_url="http://internal:8000") as client:
        body = client.get("/status/hyperkitty/api/lists/?limit=1").json()
        assert body["results"][0]["url"] == f"https://lists.example.net/status/hyperkitty/api/list/{DEV}/"
        assert body["next"] == "https://lists.example.net/status/hyperkitty/api/lists/?limit=1&offset=1"
        redirect = client.get("/status/hyperkitty/api/lists", follow_redirects=False)
        assert redirect.headers["location"] == "https://lists.example.net/status/hyperkitty/api/lists/"
        download = client.get(f"/status/hyperkitty/api/list/{DEV}/email/{E}/").json()["attachments"][0]["download"]
        assert download.startswith(f"https://lists.example.net/status/hyperkitty/list/{DEV}/message/{E}/")
        assert client.get(download.replace("https://lists.example.net", "")).status_code == 200


def test_links_fall_back_to_the_request_host(engine, database_url):
    seed_archive(engine)
    with TestClient(
        create_app(Settings(database_url=database_url), engine=engine), base_url="http://archive.local:8080"
    ) as client:
        assert (
            client.get("/archive/api/lists/").json()[0]["url"] == f"http://archive.local:8080/archive/api/list/{DEV}/"
        )
