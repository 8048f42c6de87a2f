"""A client address's turns (sathub.archive.turns): at most `per_client` of its requests at once,
the others waiting in the order they came; another address never waits behind it; an address
nobody holds or waits for is forgotten; 0 is no limit."""

from __future__ import annotations

import asyncio

from sathub.archive.turns import Turns


async def crowd(turns: Turns, asked: list[tuple[str, int]]) -> tuple[list[tuple[str, int]], dict[str, int]]:
    """Each (client, n) asks a turn and holds it for a moment; the order the turns began in, and the
    most of each client's held at once."""
    began: list[tuple[str, int]] = []
    holding: dict[str, int] = {}
    most: dict[str, int] = {}

    async def one(client: str, n: int) -> None:
        async with turns.of(client):
            began.append((client, n))
            holding[client] = holding.get(client, 0) + 1
            most[client] = max(most.get(client, 0), holding[client])
            await asyncio.sleep(0.01)
            holding[client] -= 1

    await asyncio.gather(*(one(client, n) for client, n in asked))
    return began, most


def test_one_address_holds_at_most_its_turns_the_rest_wait_in_order():
    turns = Turns(2)
    began, most = asyncio.run(crowd(turns, [("crawler", n) for n in range(7)]))
    assert most == {"crawler": 2}
    assert began == [("crawler", n) for n in range(7)]
    assert turns.asking("crawler") == 0  # forgotten once nobody asks


def test_another_address_does_not_wait_behind_a_crowd():
    async def run() -> tuple[float, int]:
        turns = Turns(2)
        crowded = asyncio.ensure_future(crowd(turns, [("crawler", n) for n in range(20)]))
        await asyncio.sleep(0.001)  # the crawler's 20 asked, 18 waiting
        waiting = turns.asking("crawler")
        start = asyncio.get_running_loop().time()
        async with turns.of("reader"):
            waited = asyncio.get_running_loop().time() - start
        await crowded
        return waited, waiting

    waited, waiting = asyncio.run(run())
    assert waiting == 20
    assert waited < 0.005  # the crawler's 20 take 0.1 s in turns of two


def test_no_limit():
    began, most = asyncio.run(crowd(Turns(0), [("crawler", n) for n in range(5)]))
    assert most == {"crawler": 5} and len(began) == 5
