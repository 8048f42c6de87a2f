"""`sathub status recheck [--since YYYY-MM-DD]`: stored reports checked against the sky again, with
the elements loaded now (docs/orbits.md, "Visibility"): reports stored before their satellite's
elements were loaded, or before its NORAD number was known, get the `visible` a report stored now
would get. Reports are read and judged in batches, each batch's changes written in a short
transaction of their own, so that serving processes keep writing meanwhile."""

from __future__ import annotations

import click

from sathub import db
from sathub.cli_options import database_option, engine_for
from sathub.status.store.visibility import recheck_batch, set_visible

BATCH = 1000  # reports read and judged at a time (~0.1 s of verdicts when every one is new)


@click.command("recheck")
@click.option(
    "--since",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    default=None,
    metavar="YYYY-MM-DD",
    help="Only reports of this UTC day and later (default: every report).",
)
@database_option
def recheck(since, database_url) -> None:
    """Check stored reports against the orbital elements loaded now and update their `visible`
    (true: the satellite was above the grid square's horizon during the report's quarter-hour;
    false: below it all the time; null: no grid square, no elements, or elements too old).

    Prints how many reports changed to each value. Changing `visible` stores no report again:
    the stream and webhooks send nothing for it."""
    engine = engine_for(database_url)
    day = None if since is None else since.date()
    after, checked = 0, 0
    became: dict[bool | None, int] = {True: 0, False: 0, None: 0}
    while True:
        with db.connect(engine) as conn:
            batch = recheck_batch(conn, after, day, BATCH)
        if batch.last_id is None:
            break
        if batch.changes:
            with db.connect(engine, write=True) as conn:
                set_visible(conn, batch.changes)
        after, checked = batch.last_id, checked + batch.checked
        for flag, ids in batch.changes.items():
            became[flag] += len(ids)
    unchanged = checked - sum(became.values())
    click.echo(
        f"{checked:,} reports checked: {became[True]:,} became true (visible), {became[False]:,} false "
        f"(below the horizon), {became[None]:,} null (cannot tell); {unchanged:,} unchanged"
    )
