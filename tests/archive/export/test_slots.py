"""The export slots of a process and one client address's share of them: four connections from
one address that ask for exports and never read hold two of the four slots, and another client's
export goes through (issue 40: they held all four, and every other export got 503)."""

from __future__ import annotations

import pytest

from sathub.archive.export.slots import FULL, SHARE_TAKEN, Slots, share_of
from tests.archive.export.stalled_clients import EXPORT, import_big_list, other_client, stalled_export, whole_export
from tests.live_server import sathub_server


@pytest.mark.slow
def test_four_stalled_exports_from_one_address_leave_others_room(engine, database_url, tmp_path):
    import_big_list(engine, tmp_path)
    # A deadline far beyond the test: only the share can let the other client in.
    with sathub_server(database_url, env={"SATHUB_EXPORT_WRITE_TIMEOUT": "600"}) as root:
        stalled = [stalled_export(root) for _ in range(4)]
        try:
            assert [client.status for client in stalled] == [200, 200, 503, 503]  # SATHUB_MAX_EXPORTS' 4, half each
            with other_client() as other:
                assert whole_export(other.get(root + EXPORT))
        finally:
            for client in stalled:
                client.close()


@pytest.mark.parametrize("limit, share", [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (1000, 500)])
def test_an_address_holds_half_the_slots_rounded_up(limit, share):
    assert share_of(limit) == share


def test_slots_in_all_and_per_address():
    slots = Slots()
    assert [slots.take("192.0.2.1", 4) for _ in range(3)] == [None, None, SHARE_TAKEN]
    assert [slots.take("192.0.2.2", 4) for _ in range(2)] == [None, None]
    assert slots.take("192.0.2.3", 4) == FULL  # four running: even an address that holds none waits
    slots.give_back("192.0.2.1")
    assert slots.take("192.0.2.2", 4) == SHARE_TAKEN and slots.take("192.0.2.1", 4) is None
    for client in ("192.0.2.1", "192.0.2.1", "192.0.2.2", "192.0.2.2"):
        slots.give_back(client)
    assert slots.running == 0 and slots.held == {}  # an address without exports is forgotten
