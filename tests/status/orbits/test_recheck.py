"""`sathub status recheck [--since YYYY-MM-DD]` on SQLite and PostgreSQL: reports stored before their
elements were loaded get the verdict skyfield finds (sky_reference.py), the counts are printed, and
the stream records no event for it."""

from __future__ import annotations

from datetime import date

import sqlalchemy as sa
from click.testing import CliRunner
from sgp4.api import Satrec

from sathub import db
from sathub.cli import main
from sathub.status.orbits.elements import ElementSet
from sathub.status.store import elements
from sathub.status.store.writes import store_submitted
from sathub.status.tables import report_events, reports
from tests.status.orbits import samples
from tests.status.orbits.sky_reference import skyfield_verdict, square_from

DAY = samples.EPOCH.date()
EARLIER = date.fromordinal(DAY.toordinal() - 2)


def recheck(engine, *options: str):
    url = engine.url.render_as_string(hide_password=False)
    return CliRunner().invoke(main, ["status", "recheck", *options, "--database-url", url])


def report(callsign: str, grid: str, day: date = DAY, name: str = "QO-100_[NB]") -> dict:
    return dict(name=name, day=day, hour=9, period=0, callsign=callsign, report="Heard", grid_square=grid)


def visible_by_callsign(engine) -> dict[str, bool | None]:
    with engine.connect() as conn:
        return dict(conn.execute(sa.select(reports.c.callsign, reports.c.visible)).all())


def events(engine) -> int:
    with engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(report_events)).scalar_one()


def test_reports_stored_before_their_elements_are_judged_again(catalogued):
    seen = square_from(samples.QO_100, DAY, 9, 0, 30, 20)
    unseen = square_from(samples.QO_100, DAY, 9, 0, 0, 180)
    with db.connect(catalogued, write=True) as conn:
        store_submitted(
            conn,
            [
                report("K1SEEN", seen),
                report("K1UNSEEN", unseen),
                report("K1NOGRID", ""),
                report("K1EARLIER", seen, day=EARLIER),
            ],
        )
    assert set(visible_by_callsign(catalogued).values()) == {None}
    with db.connect(catalogued, write=True) as conn:
        sets = [ElementSet.from_satrec(Satrec.twoline2rv(*samples.QO_100[1:]), samples.QO_100[0])]
        elements.save_element_sets(conn, [(element_set, "tle") for element_set in sets])
    before = events(catalogued)

    result = recheck(catalogued, "--since", DAY.isoformat())
    assert result.exit_code == 0, result.output
    expected = {
        "K1SEEN": skyfield_verdict(samples.QO_100, seen, DAY, 9, 0),
        "K1UNSEEN": skyfield_verdict(samples.QO_100, unseen, DAY, 9, 0),
    }
    assert expected == {"K1SEEN": True, "K1UNSEEN": False}
    assert visible_by_callsign(catalogued) == {**expected, "K1NOGRID": None, "K1EARLIER": None}
    assert result.output.strip() == (
        "3 reports checked: 1 became true (visible), 1 false (below the horizon), 0 null (cannot tell); 1 unchanged"
    )
    assert events(catalogued) == before  # no report was stored again: nothing for the stream

    result = recheck(catalogued)
    assert "4 reports checked: 1 became true" in result.output
    assert visible_by_callsign(catalogued)["K1EARLIER"] is True

    with db.connect(catalogued, write=True) as conn:
        elements.set_norad_id(conn, "QO-100_[NB]", None)
    result = recheck(catalogued)
    assert "0 became true (visible), 0 false (below the horizon), 3 null (cannot tell); 1 unchanged" in result.output
    assert set(visible_by_callsign(catalogued).values()) == {None}


def test_batches_cover_every_report_once(catalogued, monkeypatch):
    from sathub.status.orbits import recheck as command

    monkeypatch.setattr(command, "BATCH", 2)
    seen = square_from(samples.QO_100, DAY, 9, 0, 30, 20)
    with db.connect(catalogued, write=True) as conn:
        store_submitted(conn, [report(f"K{number}SEEN", seen) for number in range(5)])
        sets = [ElementSet.from_satrec(Satrec.twoline2rv(*samples.QO_100[1:]), samples.QO_100[0])]
        elements.save_element_sets(conn, [(element_set, "tle") for element_set in sets])
    result = recheck(catalogued)
    assert result.output.startswith("5 reports checked: 5 became true"), result.output
    assert set(visible_by_callsign(catalogued).values()) == {True}


def test_a_since_that_is_not_a_date_is_refused(catalogued):
    result = recheck(catalogued, "--since", "yesterday")
    assert result.exit_code == 2
    assert "YYYY-MM-DD" in result.output or "%Y-%m-%d" in result.output
