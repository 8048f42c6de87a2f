"""The catalog's SQL (status/store/catalog.py), on SQLite and PostgreSQL: entries in display-name
order (status-api.md 4.1), names matched case-insensitively (section 3), the catalog files loaded
by API name, retired names kept as aliases (section 14, 14) and the admin's changes (section 9:
deleting or renaming an entry leaves its reports alone)."""

from __future__ import annotations

import asyncio
import csv
from datetime import UTC, datetime
from importlib import resources

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from sathub import db
from sathub.db.group_commit import GroupCommit
from sathub.status.store import catalog, visibility
from sathub.status.tables import reports, satellite_aliases
from tests.conftest import SHARED_DATA
from tests.status.seed import store_report

REAL_CATALOG = list(csv.DictReader((SHARED_DATA / "catalog.csv").open(encoding="utf-8")))
REAL_ALIASES = list(csv.DictReader(resources.files("sathub").joinpath("data/aliases.csv").open(encoding="utf-8")))
ROWS = [
    {"name": "AO-91", "display_name": "AO-91 Mode U/v FM", "website": "https://www.amsat.org/ao-91/"},
    {"name": "FO-29", "display_name": "FO-29", "website": ""},
    {"name": "AO-7_[U/v]", "display_name": "AO-7 [U/v]", "website": ""},
]


def write(engine, work, *args):
    with db.connect(engine, write=True) as conn:
        return work(conn, *args)


def read(engine, work, *args, **kwargs):
    with db.connect(engine) as conn:
        return work(conn, *args, **kwargs)


@pytest.fixture
def loaded(engine):
    write(engine, catalog.load_catalog, ROWS)
    return engine


def mariadb_order(display_names: list[str]) -> list[str]:
    """MariaDB's utf8mb3_general_ci on ASCII: letters compare as their upper case; ties by id
    (entries numbered in the order given)."""
    return [name for _, name in sorted(enumerate(display_names), key=lambda pair: (pair[1].upper(), pair[0]))]


def test_the_real_catalog_loads_in_display_name_order(engine):
    # Left out: "ISS FM Repeater". MariaDB's general_ci puts it before "ISS [Crew]" ("[" sorts after
    # the letters folded to upper case); lower(display_name) puts it after ("[" before "f"). The
    # real catalog has no other such pair.
    rows = [row for row in REAL_CATALOG if row["display_name"] != "ISS FM Repeater"]
    assert write(engine, catalog.load_catalog, rows) == len(rows) == 76
    listed = read(engine, catalog.catalog)
    assert [row.display_name for row in listed] == mariadb_order([row["display_name"] for row in rows])
    assert {(row.api_name, row.display_name, row.website) for row in listed} == {
        (row["name"], row["display_name"], row["website"]) for row in rows
    }


def test_ties_and_case_in_the_order(engine):
    names = ["beta", "Alpha", "ALPHA", "alpha", "Beta 2", "BETA"]
    write(engine, catalog.load_catalog, [{"name": f"S-{i}", "display_name": name} for i, name in enumerate(names)])
    assert (
        [row.display_name for row in read(engine, catalog.catalog)]
        == mariadb_order(names)
        == ["Alpha", "ALPHA", "alpha", "beta", "BETA", "Beta 2"]
    )


def test_a_name_matches_an_api_or_display_name_in_any_case(loaded):
    for name in ("AO-91", "ao-91", "ao-91 mode u/v fm", "AO-7_[u/V]", "ao-7 [u/v]"):
        assert len(read(loaded, catalog.catalog, name)) == 1, name
    assert read(loaded, catalog.catalog, "AO-9") == []
    assert read(loaded, catalog.catalog, "AO-91\x00") == []  # NUL is no error on PostgreSQL, and no match
    assert read(loaded, catalog.entry_named, "fo-29").display_name == "FO-29"
    assert not read(loaded, catalog.catalog_is_empty)


def test_non_ascii_names_fold_their_ascii_letters_alike_on_both_backends(engine):
    write(engine, catalog.load_catalog, [{"name": "OSCAR-Ø", "display_name": "Ørsted"}])
    assert read(engine, catalog.entry_named, "oscar-Ø").api_name == "OSCAR-Ø"
    assert read(engine, catalog.resolve_api_name, "oscar-Ø") == "OSCAR-Ø"


def test_stats_count_every_report_of_a_name_in_any_case(loaded):
    store_report(loaded, "AO-91", datetime(2026, 1, 2, 5, 10, tzinfo=UTC))
    store_report(loaded, "ao-91", datetime(2026, 1, 3, 7, 50, tzinfo=UTC), callsign="K1ABC")
    store_report(loaded, "AO-91", datetime(2025, 12, 31, 23, 0, tzinfo=UTC), callsign="DL1ABC")
    by_name = {row.api_name: row for row in read(loaded, catalog.catalog, with_stats=True)}
    assert (by_name["AO-91"].report_count, str(by_name["AO-91"].latest_day), by_name["AO-91"].latest_hour) == (
        3,
        "2026-01-03",
        7,
    )
    assert not by_name["FO-29"].report_count and by_name["FO-29"].latest_day is None
    assert not hasattr(read(loaded, catalog.catalog)[0], "report_count")


def test_a_submitted_name_resolves_to_its_api_name(loaded):
    write(loaded, catalog.add_alias, "[B]_AO-7", "AO-7_[U/v]")
    for name, display_names, api_name in [
        ("ao-91", True, "AO-91"),
        ("AO-91 MODE U/V FM", True, "AO-91"),
        ("AO-91 MODE U/V FM", False, None),
        ("[b]_ao-7", True, "AO-7_[U/v]"),
        ("[b]_ao-7", False, "AO-7_[U/v]"),  # a retired name, on every path
        ("nothing", True, None),
        ("", True, None),
        ("\x00", True, None),
    ]:
        assert read(loaded, catalog.resolve_api_name, name, display_names=display_names) == api_name, name


def test_a_current_name_wins_over_an_alias(loaded):
    # FO-29's display name is also, in another case, an alias of AO-91: the entry itself wins.
    with db.connect(loaded, write=True) as conn:
        conn.execute(
            satellite_aliases.insert().values(alias="fo-29", satellite_id=catalog.entry_named(conn, "AO-91").id)
        )
    assert read(loaded, catalog.resolve_api_name, "FO-29") == "FO-29"


def test_loading_updates_entries_by_api_name_in_any_case(loaded):
    written = write(
        loaded,
        catalog.load_catalog,
        [
            {"name": " ao-91 ", "display_name": " AO-91 FM ", "website": " https://example.org/ao-91 "},
            {"name": "SO-50"},  # no display name: the API name
            {"name": "  ", "display_name": "nameless"},
            {"display_name": "no name"},  # skipped
            {"name": "XW-2", "display_name": "XW-2", "website": "javascript:alert(1)"},  # no link: stored empty
            {"name": "RS-44", "display_name": "RS-44", "website": "ftp://example.org/"},
        ],
    )
    assert written == 4
    entries = {row.api_name: (row.display_name, row.website) for row in read(loaded, catalog.catalog)}
    assert entries == {
        "AO-91": ("AO-91 FM", "https://example.org/ao-91"),
        "FO-29": ("FO-29", ""),
        "AO-7_[U/v]": ("AO-7 [U/v]", ""),
        "SO-50": ("SO-50", ""),
        "XW-2": ("XW-2", ""),
        "RS-44": ("RS-44", ""),
    }


def test_the_real_retired_names_load_as_aliases(engine):
    write(engine, catalog.load_catalog, REAL_CATALOG)
    current = {row["name"] for row in REAL_CATALOG}
    assert write(engine, catalog.load_aliases, REAL_ALIASES) == len(REAL_ALIASES) == 14
    assert all(row["name"] in current and row["alias"] not in current for row in REAL_ALIASES)
    for row in REAL_ALIASES:
        assert read(engine, catalog.resolve_api_name, row["alias"].lower(), display_names=False) == row["name"]
    assert write(engine, catalog.load_aliases, REAL_ALIASES) == 0  # loaded again: nothing new
    listed = {entry["api_name"]: entry["aliases"] for entry in read(engine, catalog.catalog_with_aliases)}
    assert listed["AO-7_[U/v]"] == ["AO-7[B]", "[B]_AO-7"]
    assert listed["AO-91"] == []
    assert [entry["display_name"] for entry in read(engine, catalog.catalog_with_aliases)] == [
        row.display_name for row in read(engine, catalog.catalog)
    ]


def test_loading_aliases_skips_unknown_targets_and_current_names(loaded):
    added = write(
        loaded,
        catalog.load_aliases,
        [
            {"alias": "AO-7[B]", "name": "AO-7_[U/v]"},
            {"alias": "Old", "name": "NO-SUCH"},
            {"alias": "fo-29", "name": "AO-91"},
            {"alias": "ao-7[b]", "name": "AO-91"},
        ],
    )
    assert added == 1
    assert read(loaded, catalog.resolve_api_name, "AO-7[B]") == "AO-7_[U/v]"


def test_add_alias_explains_what_it_refuses(loaded):
    assert write(loaded, catalog.add_alias, "Old", "NO-SUCH") == "No satellite named 'NO-SUCH'."
    assert write(loaded, catalog.add_alias, "fo-29", "AO-91") == "'fo-29' is a current API name, not a retired one."
    assert write(loaded, catalog.add_alias, "Old", "ao-91") is None
    assert write(loaded, catalog.add_alias, "OLD", "FO-29", False) == "'OLD' is already an alias."
    assert write(loaded, catalog.add_alias, "OLD", "FO-29") is None  # replaced, in its new spelling
    assert read(loaded, catalog.resolve_api_name, "old") == "FO-29"
    assert {entry["api_name"]: entry["aliases"] for entry in read(loaded, catalog.catalog_with_aliases)}["FO-29"] == [
        "OLD"
    ]
    assert write(loaded, catalog.remove_alias, "old") is True
    assert write(loaded, catalog.remove_alias, "old") is False
    assert read(loaded, catalog.resolve_api_name, "old") is None


def test_a_renamed_entry_keeps_its_old_name_as_an_alias(loaded):
    ao91 = read(loaded, catalog.entry_named, "AO-91")
    write(loaded, catalog.update, ao91.id, "AO-91 [FM]", "AO-91_[FM]", "https://www.amsat.org/")
    assert tuple(read(loaded, catalog.entry, ao91.id)) == (
        ao91.id,
        "AO-91_[FM]",
        "AO-91 [FM]",
        "https://www.amsat.org/",
        None,  # no NORAD number in these rows
    )
    assert read(loaded, catalog.resolve_api_name, "ao-91", display_names=False) == "AO-91_[FM]"
    write(loaded, catalog.update, ao91.id, "AO-91 [FM]", "ao-91_[fm]", "")  # a change of case is no rename
    assert {entry["api_name"]: entry["aliases"] for entry in read(loaded, catalog.catalog_with_aliases)}[
        "ao-91_[fm]"
    ] == ["AO-91"]
    write(loaded, catalog.update, ao91.id, "AO-91", "AO-91", "")  # back to the old name: its alias goes
    assert {entry["api_name"]: entry["aliases"] for entry in read(loaded, catalog.catalog_with_aliases)}["AO-91"] == [
        "ao-91_[fm]"
    ]


def test_a_new_entry_takes_its_name_back_from_an_alias(loaded):
    write(loaded, catalog.add_alias, "SO-50", "FO-29")
    write(loaded, catalog.create, "SO-50", "so-50", "")
    assert read(loaded, catalog.resolve_api_name, "SO-50") == "so-50"
    assert {entry["api_name"]: entry["aliases"] for entry in read(loaded, catalog.catalog_with_aliases)} == {
        "AO-7_[U/v]": [],
        "AO-91": [],
        "FO-29": [],
        "so-50": [],
    }


def test_taken_api_names(loaded):
    ao91 = read(loaded, catalog.entry_named, "AO-91")
    assert read(loaded, catalog.api_name_taken, "ao-91")
    assert not read(loaded, catalog.api_name_taken, "ao-91", ao91.id)  # its own name, when editing it
    assert read(loaded, catalog.api_name_taken, "FO-29", ao91.id)
    assert not read(loaded, catalog.api_name_taken, "AO-91 Mode U/v FM")  # a display name is no API name


def test_deleting_an_entry_takes_its_aliases_and_leaves_its_reports(loaded):
    store_report(loaded, "AO-91", datetime(2026, 1, 2, 5, 10, tzinfo=UTC))
    write(loaded, catalog.add_alias, "Old-91", "AO-91")
    write(loaded, catalog.add_alias, "Old-29", "FO-29")
    write(loaded, catalog.delete, read(loaded, catalog.entry_named, "AO-91").id)
    assert write(loaded, catalog.remove_satellite, "fo-29") is True
    assert write(loaded, catalog.remove_satellite, "fo-29") is False
    assert [row.api_name for row in read(loaded, catalog.catalog)] == ["AO-7_[U/v]"]
    with loaded.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(satellite_aliases)).scalar() == 0
        assert conn.execute(sa.select(reports.c.name)).scalars().all() == ["AO-91"]
    write(loaded, catalog.delete, read(loaded, catalog.entry_named, "AO-7_[U/v]").id)
    assert read(loaded, catalog.catalog_is_empty)


@pytest.mark.parametrize("satellite_id", [2**31, -(2**31) - 1, 2**63, -(10**30)])
def test_an_id_beyond_the_column_names_no_entry(loaded, satellite_id):
    """PostgreSQL refuses such a parameter ('integer out of range'); the store finds nothing instead,
    as for any id no entry has (issue 23)."""
    before = read(loaded, catalog.catalog)
    assert read(loaded, catalog.entry, satellite_id) is None
    assert read(loaded, catalog.api_name_taken, "AO-91", except_id=satellite_id)
    write(loaded, catalog.update, satellite_id, "X", "X-1", "")
    write(loaded, catalog.delete, satellite_id)
    assert read(loaded, catalog.catalog) == before


def resolved_in_shared_transactions(engine, names: list[str]) -> tuple[list[str | None], int]:
    """Each name resolved as the API's POST does (the memoized resolver at the transaction's
    catalog revision), each in a shared write transaction of its own; and the statements that
    asked the catalog."""
    asked = []

    def count(conn, cursor, statement, *_):
        if "satellite_aliases" in statement:
            asked.append(statement)

    def check(conn, name):
        return catalog.memoized_resolver(conn, visibility.catalog_revision(conn))(conn, name)

    writes = GroupCommit(engine)
    event.listen(engine, "before_cursor_execute", count)
    try:
        return [asyncio.run(writes.run_checked(check, None, name)) for name in names], len(asked)
    finally:
        event.remove(engine, "before_cursor_execute", count)


def test_the_api_asks_the_catalog_once_per_name_while_the_catalog_stays(loaded):
    names = ["ao-91", "AO-91 MODE U/V FM", "ao-91", "nothing", "ao-91", "nothing", "fo-29"]
    resolved, asked = resolved_in_shared_transactions(loaded, names)
    assert resolved == ["AO-91", "AO-91", "AO-91", None, "AO-91", None, "FO-29"]
    assert asked == 4


def test_a_catalog_change_is_seen_by_the_next_post(loaded):
    assert resolved_in_shared_transactions(loaded, ["[b]_ao-7", "fo-29"]) == ([None, "FO-29"], 2)
    write(loaded, catalog.add_alias, "[B]_AO-7", "AO-7_[U/v]")
    assert resolved_in_shared_transactions(loaded, ["[b]_ao-7", "fo-29"]) == (["AO-7_[U/v]", "FO-29"], 2)
    write(loaded, catalog.remove_satellite, "FO-29")
    assert resolved_in_shared_transactions(loaded, ["fo-29"]) == ([None], 1)


def test_the_names_kept_are_bounded(loaded, monkeypatch):
    # Names are the clients' text: a flood of distinct names does not grow the process.
    monkeypatch.setattr(catalog, "_RESOLVED_LIMIT", 2)
    _, asked = resolved_in_shared_transactions(loaded, ["a1", "a2", "a3", "a1"])
    assert asked == 4
