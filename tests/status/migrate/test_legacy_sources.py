"""What `sathub status import-legacy` reads (migrate/legacy_sources.py), without a database: a CSV
export of upstream's report table in the forms exports take (comma, semicolon, `mysql --batch`
tabs), read in batches in file order; and the sources it refuses."""

import pytest

from sathub.status.migrate.legacy_sources import CSVSource, SourceError, open_source

COLUMNS = ("name", "day", "hour", "period", "callsign", "report", "grid_square")


def export(tmp_path, text: str):
    path = tmp_path / "satellite.csv"
    path.write_text(text, encoding="utf-8")
    return path


def rows(source) -> list[list[dict]]:
    try:
        return list(source.report_batches(2))
    finally:
        source.close()


def test_a_comma_export_in_batches_of_the_given_size(tmp_path):
    path = export(
        tmp_path,
        "ID,Name,Day,Hour,Period,CallSign,Report,Grid_Square,Extra\n"
        "1,AO-91,2024-03-01,5,0,W1AW,Heard,FN31,x\n"
        "\n"
        '2,FO-29,2024-03-01,6,1,"K1,ABC",Not Heard,NULL,y\n'
        "3,AO-91,2024-03-02,7,2,N0CALL,Heard,,z\n",
    )
    source = open_source(str(path))
    assert isinstance(source, CSVSource) and source.catalog() == [] and source.users() == []
    first, second = rows(source)
    assert first == [
        dict(zip(COLUMNS, ("AO-91", "2024-03-01", "5", "0", "W1AW", "Heard", "FN31"), strict=True)),
        dict(zip(COLUMNS, ("FO-29", "2024-03-01", "6", "1", "K1,ABC", "Not Heard", None), strict=True)),
    ]
    assert [row["grid_square"] for row in second] == [""]


def test_tabs_of_mysql_batch_and_semicolons_of_a_spreadsheet(tmp_path):
    tabs = export(tmp_path, "\t".join(COLUMNS) + "\nAO-91\t2024-03-01\t5\t0\tW1\\tAW\tHeard\tNULL\n")
    ((row,),) = rows(open_source(str(tabs)))
    assert (row["callsign"], row["grid_square"]) == ("W1tAW", None)  # a backslash escapes; NULL is NULL
    semicolons = export(tmp_path, ";".join(COLUMNS) + "\nAO-91;2024-03-01;5;0;W1AW;Heard;FN31\n")
    ((row,),) = rows(open_source(str(semicolons)))
    assert (row["name"], row["grid_square"]) == ("AO-91", "FN31")


def test_the_sources_it_refuses(tmp_path):
    with pytest.raises(SourceError, match="lacks the columns period, grid_square"):
        open_source(str(export(tmp_path, "name,day,hour,callsign,report\n")))
    with pytest.raises(SourceError, match="Cannot read"):
        open_source(str(tmp_path / "missing.csv"))
    with pytest.raises(SourceError, match="must be MariaDB or MySQL"):
        open_source("postgresql://user@localhost/status")
