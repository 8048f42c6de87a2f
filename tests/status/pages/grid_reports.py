"""Report rows for the grid's pure tests, as store.reports.grid_window gives them."""

from datetime import date

from sathub.status.pages.report_grid import Report

TODAY = date(2026, 5, 23)


def report(id, day=TODAY, hour=8, period=1, callsign="W1AW", value="Heard", name="AO-91", grid_square="FN42"):
    return Report(id, name, day, hour, period, callsign, value, grid_square)
