"""`sathub catalog ...` and `sathub admin add-user` against a real database."""

import csv
import io

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from sathub.cli import main
from sathub.status.admin import passwords
from sathub.status.commands import DEFAULT_CATALOG
from sathub.status.tables import satellite_aliases, satellites, users


def run(engine, *args, **env):
    result = CliRunner().invoke(main, [*args, "--database-url", engine.url.render_as_string(False)], env=env)
    assert result.exit_code == 0, result.output
    return result.output


def test_catalog_commands(engine):
    output = run(engine, "catalog", "load")
    assert "77 satellites" in output
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(satellites)).scalar() == 77
        aliases = dict(
            conn.execute(
                sa.select(satellite_aliases.c.alias, satellites.c.api_name).select_from(
                    satellite_aliases.join(satellites)
                )
            ).all()
        )
    assert aliases["[B]_AO-7"] == "AO-7_[U/v]" and aliases["LilacSat-2"] == "CAS-3H_[FM]"
    assert run(engine, "catalog", "load").count("77") == 1  # loading again updates in place
    run(engine, "catalog", "add", "NEW-1", "--display-name", "New One", "--website", "https://new.test/")
    run(engine, "catalog", "alias", "OLD-1", "NEW-1")
    listing = run(engine, "catalog", "list")
    assert "NEW-1,New One,https://new.test/,OLD-1" in listing
    run(engine, "catalog", "alias", "OLD-1", "--remove")
    run(engine, "catalog", "remove", "new-1")
    assert "NEW-1" not in run(engine, "catalog", "list")


def test_catalog_errors_are_clear(engine):
    url = engine.url.render_as_string(False)
    result = CliRunner().invoke(main, ["catalog", "remove", "NOPE", "--database-url", url])
    assert result.exit_code == 1 and "No satellite named 'NOPE'" in result.output
    result = CliRunner().invoke(main, ["catalog", "alias", "X", "NOPE", "--database-url", url])
    assert result.exit_code == 1 and "No satellite named 'NOPE'" in result.output


def test_admin_add_user(engine):
    run(engine, "admin", "add-user", "admin", SATHUB_ADMIN_PASSWORD="correct horse")
    with engine.connect() as conn:
        stored = conn.execute(sa.select(users.c.password).where(users.c.username == "admin")).scalar_one()
    assert stored.startswith("$2b$") and passwords.verify_password("correct horse", stored)
    assert not passwords.verify_password("wrong", stored)
    result = CliRunner().invoke(
        main,
        ["admin", "add-user", "x", "--database-url", engine.url.render_as_string(False)],
        env={"SATHUB_ADMIN_PASSWORD": "short"},
    )
    assert result.exit_code == 1 and "at least 8" in result.output
    result = CliRunner().invoke(
        main,
        ["admin", "add-user", "x", "--database-url", engine.url.render_as_string(False)],
        env={"SATHUB_ADMIN_PASSWORD": "é" * 40},
    )
    assert result.exit_code == 1 and "at most 72 bytes" in result.output


def test_catalog_websites_must_be_http_urls(engine, tmp_path):
    url = engine.url.render_as_string(False)
    result = CliRunner().invoke(
        main, ["catalog", "add", "X-1", "--website", "javascript:alert(3)", "--database-url", url]
    )
    assert result.exit_code == 2 and "http:// or https://" in result.output
    csv_file = tmp_path / "catalog.csv"
    csv_file.write_text("name,display_name,website\nX-2,X two,javascript:alert(3)\nX-3,X three,https://x3.test/\n")
    run(engine, "catalog", "load", str(csv_file))
    listing = run(engine, "catalog", "list")
    assert "X-2,X two,," in listing and "X-3,X three,https://x3.test/," in listing
    assert "X-1" not in listing


@pytest.mark.parametrize("option", ["name", "--display-name", "--website"])
def test_catalog_add_refuses_text_over_255_characters_on_every_backend(engine, option):
    long_text = "https://x.test/" + "a" * 241 if option == "--website" else "N" * 256
    arguments = [long_text] if option == "name" else ["X-1", option, long_text]
    url = engine.url.render_as_string(False)
    result = CliRunner().invoke(main, ["catalog", "add", *arguments, "--database-url", url])
    assert result.exit_code == 2 and "at most 255 characters" in result.output
    assert "X-1" not in run(engine, "catalog", "list")


@pytest.mark.parametrize(
    "name, email, error",
    [
        ("a" * 65, "", "Error: An administrator name has at most 64 characters."),
        ("a" * 256, "", "Error: An administrator name has at most 64 characters."),
        ("", "", "Error: An administrator name cannot be blank."),
        ("   ", "", "Error: An administrator name cannot be blank."),
        ("ad\x00min", "", "Error: An administrator name can hold printable characters only."),
        ("ad\tmin", "", "Error: An administrator name can hold printable characters only."),
        ("ad\udcffmin", "", "Error: An administrator name can hold printable characters only."),
        ("admin", "a" * 250 + "@x.org", "Error: An email address has at most 255 characters."),
        ("admin", "a\x00@x.org", "Error: An email address can hold printable characters only."),
    ],
)
def test_admin_add_user_refuses_what_no_account_can_hold(engine, name, email, error):
    """Issue 40: a name over the column's 64 characters was a 500 (a traceback) on PostgreSQL, a
    name saved on SQLite; a NUL (PostgreSQL) or an undecodable byte of the command line (a lone
    surrogate) failed in the driver. One error line on both backends, nothing stored."""
    result = CliRunner().invoke(
        main,
        ["admin", "add-user", name, "--email", email, "--database-url", engine.url.render_as_string(False)],
        env={"SATHUB_ADMIN_PASSWORD": "correct horse"},
    )
    assert (result.exit_code, result.output) == (1, error + "\n")
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(users)).scalar_one() == 0


def test_admin_add_user_takes_a_name_of_64_characters(engine):
    run(engine, "admin", "add-user", "é" * 64, "--email", "a" * 247 + "@x.org", SATHUB_ADMIN_PASSWORD="correct horse")
    with engine.connect() as conn:
        assert conn.execute(sa.select(users.c.username)).scalar_one() == "é" * 64


def test_catalog_add_takes_and_list_shows_the_norad_number(engine):
    run(engine, "catalog", "add", "AO-7_[U/v]", "--norad-id", "7530")
    run(engine, "catalog", "add", "AO-7_[U/v]", "--display-name", "AO-7 Mode B")  # keeps its number
    run(engine, "catalog", "add", "NEW-1")
    rows = {row["name"]: row for row in csv.DictReader(io.StringIO(run(engine, "catalog", "list")))}
    assert (rows["AO-7_[U/v]"]["display_name"], rows["AO-7_[U/v]"]["norad_id"]) == ("AO-7 Mode B", "7530")
    assert rows["NEW-1"]["norad_id"] == ""
    url = engine.url.render_as_string(False)
    for refused in ("0", "x", "2147483648"):
        result = CliRunner().invoke(main, ["catalog", "add", "X-1", "--norad-id", refused, "--database-url", url])
        assert result.exit_code == 2 and "--norad-id" in result.output


def test_the_shipped_catalog_lists_its_norad_numbers(engine):
    """Every NORAD number of src/sathub/data/catalog.csv comes out of `catalog list` as loaded."""
    run(engine, "catalog", "load")
    shipped = {row["name"]: row["norad_id"] for row in csv.DictReader(DEFAULT_CATALOG.open(encoding="utf-8"))}
    listed = {row["name"]: row["norad_id"] for row in csv.DictReader(io.StringIO(run(engine, "catalog", "list")))}
    assert listed == shipped
