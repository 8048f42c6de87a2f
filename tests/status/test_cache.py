"""The per-process answer cache: answers live while their revision is current, concurrent misses
share one computation, and the cache stays within its entry and byte bounds."""

import asyncio

from sathub.status.cache import AnswerCache
from sathub.status.templating import CachedPage
from tests.status.seed import bump_revision


def run(coroutine):
    return asyncio.run(coroutine)


def counting(answer):
    calls = []

    def compute(conn):
        calls.append(conn)
        return answer

    return compute, calls


def test_an_answer_is_kept_while_its_revision_is_current(engine):
    cache = AnswerCache(engine)
    compute, calls = counting(b"answer")

    async def scenario():
        revision = cache.revision()
        first = await cache.get("key", revision, compute)
        again = await cache.get("key", revision, compute)
        after_a_write = await cache.get("key", revision + 1, compute)
        return first, again, after_a_write

    assert run(scenario()) == (b"answer", b"answer", b"answer")
    assert len(calls) == 2


def test_concurrent_misses_share_one_computation(engine):
    cache = AnswerCache(engine)
    compute, calls = counting(b"shared")

    async def scenario():
        return await asyncio.gather(*(cache.get("key", 1, compute) for _ in range(20)))

    assert run(scenario()) == [b"shared"] * 20
    assert len(calls) == 1


def test_an_older_computation_never_replaces_a_newer_answer(engine):
    cache = AnswerCache(engine)

    async def scenario():
        await cache.get("key", 5, lambda conn: b"new")
        await cache.get("key", 4, lambda conn: b"old")  # a request that read the revision earlier
        return await cache.get("key", 5, lambda conn: b"recomputed")

    assert run(scenario()) == b"new"


def test_tuple_revisions_carry_the_time_the_answer_also_depends_on(engine):
    cache = AnswerCache(engine)

    async def scenario():
        first = await cache.get("page", (7, "08:00"), lambda conn: b"08:00")
        later = await cache.get("page", (7, "08:15"), lambda conn: b"08:15")
        stale = await cache.get("page", (7, "08:00"), lambda conn: b"recomputed")
        return first, later, stale

    assert run(scenario()) == (b"08:00", b"08:15", b"recomputed")


def test_the_cache_stays_within_its_bytes(engine):
    cache = AnswerCache(engine, max_bytes=2500)
    page = CachedPage(b"x" * 1000, b"y" * 200, 'W/"t"')

    async def scenario():
        for key in ("a", "b", "c"):
            await cache.get(key, 1, lambda conn: page)
        await cache.get("d", 1, lambda conn: b"z" * 300)
        compute, calls = counting(page)
        await cache.get("a", 1, compute)  # evicted first: least recently used
        await cache.get("d", 1, compute)  # still there
        return calls

    assert len(run(scenario())) == 1
    assert cache._bytes <= 2500


def test_the_cache_stays_within_its_entries(engine):
    cache = AnswerCache(engine, size=3)

    async def scenario():
        for key in range(5):
            await cache.get(key, 1, lambda conn: b"answer")
        compute, calls = counting(b"again")
        await cache.get(0, 1, compute)
        await cache.get(4, 1, compute)
        return calls

    assert len(run(scenario())) == 1


def test_rendered_text_and_tuples_of_it_count_towards_the_bytes(engine):
    cache = AnswerCache(engine, max_bytes=2500)

    async def scenario():
        await cache.get("summary", 1, lambda conn: "s" * 1000)
        await cache.get("reports", 1, lambda conn: (500, "r" * 1000))
        return cache._bytes

    assert run(scenario()) == 2000


class CountingProbe:
    def __init__(self):
        self.revision, self.reads = 7, 0

    def read(self):
        self.reads += 1
        return self.revision


def test_one_probe_serves_the_requests_already_queued_in_the_same_batch(engine):
    cache = AnswerCache(engine)
    cache.probe = probe = CountingProbe()

    async def request():
        return cache.revision()

    async def scenario():
        # Twenty handlers queued together run in one batch of the loop: one probe serves them all.
        first = await asyncio.gather(*(request() for _ in range(20)))
        probe.revision = 8  # a write acknowledged before the next requests arrive
        second = await asyncio.gather(*(request() for _ in range(20)))
        return first, second

    first, second = run(scenario())
    assert first == [7] * 20 and second == [8] * 20
    assert probe.reads == 2


def test_a_request_queued_after_the_probe_probes_again(engine):
    cache = AnswerCache(engine)
    cache.probe = probe = CountingProbe()

    async def scenario():
        before = cache.revision()
        assert cache.revision() == before  # the same step of the same batch
        probe.revision = 8
        await asyncio.sleep(0)  # the next batch: the shared value is gone
        return before, cache.revision()

    assert run(scenario()) == (7, 8)
    assert probe.reads == 2


def test_worker_threads_always_probe(engine):
    cache = AnswerCache(engine)
    cache.probe = probe = CountingProbe()

    async def scenario():
        cache.revision()
        probe.revision = 8
        return await asyncio.to_thread(cache.revision)

    assert run(scenario()) == 8
    assert probe.reads == 2


def test_the_shared_revision_never_leaks_into_another_loop(engine):
    cache = AnswerCache(engine)
    cache.probe = probe = CountingProbe()
    other = asyncio.new_event_loop()
    other.close()
    cache._shared = (other, 7)  # a loop that stopped before its forgetting callback ran
    probe.revision = 8
    assert run(_revision_in_a_loop(cache)) == 8


async def _revision_in_a_loop(cache):
    return cache.revision()


def test_derived_bytes_are_kept_per_version(engine):
    cache = AnswerCache(engine)
    made = []

    def make(text):
        made.append(text)
        return text.encode()

    assert cache.derived("body", (1, "12:00:00"), lambda: make("a")) == b"a"
    assert cache.derived("body", (1, "12:00:00"), lambda: make("b")) == b"a"
    assert cache.derived("body", (1, "12:00:01"), lambda: make("c")) == b"c"
    assert cache.derived("body", (2, "12:00:01"), lambda: make("d")) == b"d"
    assert made == ["a", "c", "d"]
    for number in range(100):
        cache.derived(("other", number), 1, lambda: b"x")
    assert len(cache._derived) == 64


class Read:
    """An answer that says the revision it was read at, and what it was made from."""

    def __init__(self, revision, made_from=None):
        self.revision, self.made_from = revision, made_from


def test_a_refreshed_answer_is_read_whole_once_then_updated_after_writes(engine):
    cache = AnswerCache(engine)
    wholes, changes_seen = [], []
    current = cache.probe.read()

    def whole(conn):
        wholes.append(conn)
        return Read(cache.probe.read())

    def changes(probe, previous):
        changes_seen.append(previous)
        # What the statement would read: the revision now, the answer updated from previous.
        return Read(probe.read(), previous) if len(changes_seen) < 2 else None

    async def request():
        return await cache.refreshed("key", whole, changes)

    async def scenario():
        first = await request()
        await asyncio.sleep(0)
        unchanged = await request()  # nothing written since: the kept answer, nothing read
        bump_revision(engine)
        same_pass = await request()  # this pass's probe came before the write: still kept
        await asyncio.sleep(0)
        updated = await request()
        await asyncio.sleep(0)
        bump_revision(engine)
        await asyncio.sleep(0)
        again_whole = await request()  # changes() said: read it whole
        return first, unchanged, same_pass, updated, again_whole

    first, unchanged, same_pass, updated, again_whole = run(scenario())
    assert first.revision == current and first.made_from is None
    assert unchanged is first and same_pass is first
    assert updated.revision == current + 1 and updated.made_from is first
    assert len(changes_seen) == 2 and len(wholes) == 2
    assert again_whole.revision == current + 2 and again_whole.made_from is None
