"""`sathub catalog elements load FILE|URL` and `sathub catalog elements list` (docs/orbits.md,
"Elements")."""

from __future__ import annotations

import csv
import sys
import time
from datetime import UTC, datetime

import click

from sathub import db
from sathub.cli_options import database_option, engine_for
from sathub.status.orbits.elements import SECONDS_PER_DAY
from sathub.status.orbits.loading import LoadError, load_source
from sathub.status.store import elements as store


@click.group()
def elements() -> None:
    """Orbital elements of the catalog's satellites (matched by NORAD number)."""


@elements.command("load")
@click.argument("source", metavar="FILE|URL")
@database_option
def elements_load(source, database_url) -> None:
    """Store the element sets of FILE or an http(s) URL: TLE (two- or three-line) or CelesTrak's
    OMM (GP data) as JSON or CSV, the format read from the content.

    Sets of satellites in the catalog are stored (a satellite's newest epoch is its current set);
    sets of other NORAD numbers are skipped, sets SGP4 cannot propagate are refused. A file that
    is not elements, or a set that does not parse, stores nothing (exit status 1)."""
    engine = engine_for(database_url)
    try:
        summary = load_source(engine, source)
    except LoadError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(summary.describe())


@elements.command("list")
@database_option
def elements_list(database_url) -> None:
    """Print, as CSV, each catalog entry with a NORAD number: its current set's epoch (UTC), its
    age in days and the name the set carried (empty: no elements)."""
    now = time.time()
    with db.connect(engine_for(database_url)) as conn:
        rows = store.named_element_sets(conn)
    writer = csv.writer(sys.stdout)
    writer.writerow(["name", "norad_id", "epoch", "age_days", "object_name"])
    for name, norad_id, element_set in rows:
        if element_set is None:
            writer.writerow([name, norad_id, "", "", ""])
            continue
        epoch = datetime.fromtimestamp(element_set.epoch, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        age = (now - element_set.epoch) / SECONDS_PER_DAY
        writer.writerow([name, norad_id, epoch, f"{age:.1f}", element_set.object_name])
