"""A client address's turns (sathub.archive.turns): at most `per_client` of its requests at once,
the others waiting in the order they came, half of them while another address asks; another
address never waits behind it; an address nobody holds or waits for is forgotten, a request that
goes away while it waits too; 0 is no limit."""

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


def test_beside_another_address_a_crowd_holds_half_its_turns():
    async def run() -> tuple[list[int], int]:
        turns = Turns(4)
        holding = [0]

        async def crawler_request() -> None:
            async with turns.of("crawler"):
                holding[0] += 1
                await asyncio.sleep(0.01)
                holding[0] -= 1

        crowded = asyncio.gather(*(crawler_request() for _ in range(40)))
        await asyncio.sleep(0.005)
        alone = holding[0]
        seen = []
        async with turns.of("reader"):
            await asyncio.sleep(0.015)  # the crawler's four of before the reader have ended
            for _ in range(10):
                seen.append(holding[0])
                await asyncio.sleep(0.003)
        await crowded
        return seen, alone

    seen, alone = asyncio.run(run())
    assert alone == 4
    assert max(seen) == 2  # half of its 4 while the reader holds one


def test_a_request_that_goes_away_while_it_waits_gives_up_nothing():
    async def run() -> tuple[int, int, list[int]]:
        turns = Turns(1)
        began: list[int] = []

        async def request(n: int) -> None:
            async with turns.of("crawler"):
                began.append(n)
                await asyncio.sleep(0.01)

        first = asyncio.ensure_future(request(0))
        await asyncio.sleep(0)
        gone = asyncio.ensure_future(request(1))
        await asyncio.sleep(0)
        waiting = turns.asking("crawler")
        gone.cancel()
        await asyncio.gather(first, request(2), return_exceptions=True)
        return waiting, turns.asking("crawler"), began

    waiting, after, began = asyncio.run(run())
    assert waiting == 2
    assert began == [0, 2]
    assert after == 0


def test_no_limit():
    began, most = asyncio.run(crowd(Turns(0), [("crawler", n) for n in range(5)]))
    assert most == {"crawler": 5} and len(began) == 5
