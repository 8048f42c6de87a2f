"""Issue 24's query mix and how it is timed over HTTP: each target (a sathub server, or a peer
archive beside it) asked each query on one keep-alive connection, warmed up, then timed request by
request. bench/archive_search.py times it on the corpus, bench/archive_search_scale.py at
1,000,000 messages, bench/archive_search_peers.py beside public-inbox and HyperKitty."""

from __future__ import annotations

import http.client
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import quote

from bench.common import Server, percentile

# The mix: a common word, a rare word, two words, a phrase, f:, s:, a date range with a
# word, a prefix, an OR, a -word.
MIX = [
    ("common word", "gpsd"),
    ("rare word", "ephemeris"),
    ("two words", "gps time"),
    ("phrase", '"release candidate"'),
    ("f:", "f:esr@thyrsus.com"),
    ("s:", "s:release"),
    ("date range + word", "d:2010-01-01..2010-12-31 gps"),
    ("prefix", "satel*"),
    ("OR", "ntp OR chrony"),
    ("-word", "gpsd -python"),
]
WARM_UP = 5  # requests of each query before the timed ones


@dataclass
class Target:
    """A server asked the mix on one keep-alive connection: its path for each query of the mix (by
    name; None where it cannot express the query), and how its answer tells the number of results."""

    name: str
    port: int
    paths: Mapping[str, str | None]
    count: Callable[[bytes], int]
    answers: tuple[int, ...] = (200,)  # the statuses of a search that worked


def sathub_count(body: bytes) -> int:
    return int(body.split(b'"count":', 1)[1].split(b",", 1)[0])


def asked_once(connection: http.client.HTTPConnection, path: str) -> tuple[http.client.HTTPResponse, bytes, float]:
    """(response, body, ms) of one GET; asked again on a new connection when the server had
    closed the idle one (HTTP allows it: gunicorn does after its keep-alive time)."""
    try:
        return _get(connection, path)
    except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
        connection.close()  # the next request opens a new connection
        return _get(connection, path)


def _get(connection: http.client.HTTPConnection, path: str) -> tuple[http.client.HTTPResponse, bytes, float]:
    started = time.perf_counter()
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    return response, body, (time.perf_counter() - started) * 1000


def round_robin(
    targets: list[Target], repeat: int, every_time: list[float] | None = None
) -> dict[tuple[str, str], tuple[int, float, float]]:
    """(results, median ms, p95 ms) of each target and query name: each query warmed up on each
    target, then asked `repeat` times of each in turn, request by request, so that a noisy moment
    of the machine hits every target alike. Every timed request's ms also go to `every_time`."""
    connections = {t.name: http.client.HTTPConnection("127.0.0.1", t.port, timeout=60) for t in targets}
    found, counts = {}, {}
    for name, _ in MIX:
        asked = [(t, path) for t in targets if (path := t.paths.get(name))]
        samples: dict[str, list[float]] = {t.name: [] for t, _ in asked}
        for i in range(WARM_UP + repeat):
            for target, path in asked:
                response, body, elapsed = asked_once(connections[target.name], path)
                if i < WARM_UP:
                    assert response.status in target.answers, (target.name, name, response.status, body[:300])
                    counts[target.name] = target.count(body)
                else:
                    samples[target.name].append(elapsed)
                    if every_time is not None:
                        every_time.append(elapsed)
        for target, _ in asked:
            times = samples[target.name]
            found[(target.name, name)] = (counts[target.name], statistics.median(times), percentile(times, 95))
    for connection in connections.values():
        connection.close()
    return found


def timed_mix(url: str, repeat: int, sort: str = "relevance") -> list[tuple[str, str, int | str, float, float]]:
    """Each query's (name, q, results, median ms, p95 ms), then the whole mix's: the median and
    95th percentile of all its requests together (the issue's "median per search for a mix"), in
    the API's order `sort` (relevance, its default, or by date)."""
    every_time: list[float] = []
    with Server.sathub(url, workers=1, log="archive_search") as server:
        paths = {name: f"/archive/api/search/?q={quote(query)}&limit=10&sort={sort}" for name, query in MIX}
        found = round_robin([Target("sathub", server.port, paths, sathub_count)], repeat, every_time)
    whole = ("**the whole mix**", "(all requests above)", "", statistics.median(every_time), percentile(every_time, 95))
    return [*((name, query, *found[("sathub", name)]) for name, query in MIX), whole]
