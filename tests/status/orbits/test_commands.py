"""`sathub catalog elements load FILE|URL` and `sathub catalog elements list` against a real
database; a failure is one line and exit status 1."""

from __future__ import annotations

import csv
import io
import time
from datetime import datetime

import pytest
from click.testing import CliRunner

from sathub.cli import main
from tests.status.orbits import samples
from tests.status.orbits.conftest import CATALOG, stored
from tests.status.orbits.elements_server import DATA, ElementsServer


def invoke(engine, *args):
    return CliRunner().invoke(
        main, ["catalog", "elements", *args, "--database-url", engine.url.render_as_string(False)]
    )


def test_load_prints_one_summary(catalogued):
    result = invoke(catalogued, "load", str(DATA / "amateur.csv"))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Read 9 element sets (OMM CSV): 7 matched 8 catalog entries (7 stored, 0 already")
    assert result.output.count("\n") == 1
    assert len(stored(catalogued)) == 7


def test_load_fetches_a_url(catalogued):
    with ElementsServer() as server:
        result = invoke(catalogued, "load", server.url("amateur.json"))
    assert result.exit_code == 0, result.output
    assert "(OMM JSON): 7 matched" in result.output


@pytest.mark.parametrize(
    "source, line",
    [
        (str(DATA / "proxy-error.html"), "line 1: HTML or XML, not orbital elements (a server's error page?)"),
        ("file:///etc/passwd", "Not an http:// or https:// URL: file:///etc/passwd"),
        ("no-such-file.tle", "Cannot read no-such-file.tle: No such file or directory"),
    ],
)
def test_a_failed_load_is_one_line_and_status_1(catalogued, source, line):
    result = invoke(catalogued, "load", source)
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and result.output.startswith("Error: ") and line in result.output
    assert stored(catalogued) == []


def test_list_shows_each_numbered_entry_with_its_epoch_and_age(catalogued):
    invoke(catalogued, "load", str(DATA / "amateur.tle"))
    result = invoke(catalogued, "list")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.output)))
    assert [row["name"] for row in rows] == sorted((name for name, _number in CATALOG), key=str.lower)
    ao_7 = next(row for row in rows if row["name"] == "AO-7_[V/a]")
    age = (time.time() - samples.EPOCH.timestamp()) / 86400
    assert ao_7["norad_id"] == "7530" and ao_7["object_name"] == "OSCAR 7 (AO-7)"
    assert datetime.fromisoformat(ao_7["epoch"]) == samples.EPOCH
    assert abs(float(ao_7["age_days"]) - age) <= 0.1


def test_list_shows_entries_without_elements_empty(catalogued):
    rows = list(csv.DictReader(io.StringIO(invoke(catalogued, "list").output)))
    assert {row["name"]: (row["epoch"], row["age_days"]) for row in rows}["ISS-FM"] == ("", "")
