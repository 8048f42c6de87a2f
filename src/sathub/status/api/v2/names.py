"""The satellites a v2 request names (`name=`), resolved once for every v2 door: the reports and
the status grid filter by them, the stream matches its events on them."""

from __future__ import annotations

from typing import NamedTuple

from sathub.db.engines import Connection
from sathub.status.api.responses import ApiError
from sathub.status.store.catalog import resolve_api_name
from sathub.status.store.reports import stored_name


class Names(NamedTuple):
    """The satellites a request names: what the reports are filtered by (each name as given and
    the API name it resolves to, so reports stored under another spelling still match) and the
    API names alone (what an answer says it counted)."""

    matched: tuple[str, ...] = ()
    api_names: tuple[str, ...] = ()


def resolved_names(given: tuple[str, ...], conn: Connection) -> Names | ApiError:
    """Each given name resolved to an API name (an API, display or retired name, else a name
    reports are stored under although it left the catalog); a 404 for the first that is none."""
    matched: set[str] = set()
    api_names: set[str] = set()
    for name in given:
        found = resolve_api_name(conn, name) or stored_name(conn, name)
        if found is None:
            return ApiError(
                404, "satellite_not_found", f"No satellite matched the requested name '{name}'.", {"name": name}
            )
        matched.update((name, found))
        api_names.add(found)
    return Names(tuple(sorted(matched)), tuple(sorted(api_names)))
