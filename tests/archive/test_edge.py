"""What every door of the archive does alike (sathub.archive.edge): 405 with Allow for a method it
does not serve, 503 for a database that cannot be reached, HEAD as GET without the body, reads
worked on in their client address's turn (writes never wait), and the JSON error of the API's
catch-all and the downloads."""

from __future__ import annotations

import asyncio
import json

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

from sathub.archive.edge import ArchiveEndpoint, ArchiveError, json_error
from sathub.archive.turns import Turns
from sathub.db.engines import DatabaseUnavailable


class Door(ArchiveEndpoint):
    """Answers `hello`, or what the path asks: an ArchiveError or an unreachable database."""

    async def respond(self, request: Request) -> Response:
        what = request.path_params["what"]
        if what == "gone":
            raise ArchiveError(410, "Gone for good.")
        if what == "down":
            raise DatabaseUnavailable("refused")
        return Response(b"hello", headers={"X-Door": "yes"})

    def render_error(self, request: Request, error: ArchiveError) -> Response:
        return Response(f"{error.status} {error.detail}", status_code=error.status)


CLIENT = TestClient(Starlette(routes=[Route("/{what}", Door())]))


def test_a_door_answers_get_and_head_alike_without_a_body_for_head():
    get, head = CLIENT.get("/ok"), CLIENT.head("/ok")
    assert (get.status_code, get.content, get.headers["x-door"]) == (200, b"hello", "yes")
    assert (head.status_code, head.content, head.headers["content-length"]) == (200, b"", "5")


def test_a_method_the_door_does_not_serve_is_405_with_allow():
    answer = CLIENT.post("/ok")
    assert (answer.status_code, answer.text) == (405, '405 Method "POST" not allowed.')


def test_errors_are_rendered_by_the_door_and_an_unreachable_database_is_503():
    assert CLIENT.get("/gone").text == "410 Gone for good."
    down = CLIENT.get("/down")
    assert (down.status_code, down.text) == (503, "503 Service temporarily unavailable, try again later.")


def test_json_error_is_drfs_detail_with_the_doors_methods():
    answer = json_error(404, "Not found.", "GET, HEAD")
    assert answer.status_code == 404 and json.loads(answer.body) == {"detail": "Not found."}
    assert dict(answer.headers) == {
        "allow": "GET, HEAD",
        "vary": "Accept",
        "content-type": "application/json",
        "x-content-type-options": "nosniff",
        "content-length": str(len(answer.body)),
    }


class SlowDoor(ArchiveEndpoint):
    """GET and POST; each answer takes 20 ms of waiting, and the most in `respond` at once is kept
    per client address."""

    methods = ("GET", "HEAD", "POST")

    def __init__(self) -> None:
        self.inside: dict[str, int] = {}
        self.most: dict[str, int] = {}

    async def respond(self, request: Request) -> Response:
        host = request.client.host if request.client else ""
        self.inside[host] = self.inside.get(host, 0) + 1
        self.most[host] = max(self.most.get(host, 0), self.inside[host])
        await asyncio.sleep(0.02)
        self.inside[host] -= 1
        return Response(b"ok")

    def render_error(self, request: Request, error: ArchiveError) -> Response:
        return Response(error.detail, status_code=error.status)


async def asked(app, method: str, host: str) -> int:
    """One request to the ASGI app from `host`, its status."""
    transport = httpx.ASGITransport(app=app, client=(host, 1234))
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        return (await client.request(method, "/x")).status_code


def test_reads_are_worked_on_in_their_addresss_turn_writes_never_wait():
    door = SlowDoor()
    app = Starlette(routes=[Route("/{what}", door, methods=["GET", "HEAD", "POST"])])
    app.state.archive_turns = Turns(2)

    async def run() -> list[int]:
        crawler = [asked(app, "GET", "10.0.0.1") for _ in range(6)]
        return await asyncio.gather(*crawler, asked(app, "GET", "10.0.0.2"), asked(app, "HEAD", "10.0.0.2"))

    assert asyncio.run(run()) == [200] * 8
    # The crawler took its two alone; beside it the other address holds half of its two.
    assert door.most == {"10.0.0.1": 2, "10.0.0.2": 1}
    door.most.clear()

    async def writes() -> list[int]:
        return await asyncio.gather(*(asked(app, "POST", "10.0.0.1") for _ in range(4)))

    assert asyncio.run(writes()) == [200] * 4
    assert door.most == {"10.0.0.1": 4}
