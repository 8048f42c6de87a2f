"""The command line: every command has --help; catalog, alias and admin commands change the database."""

import pytest
from click.testing import CliRunner

from sathub.cli import main

COMMANDS = [
    [],
    ["serve"],
    ["db"],
    ["db", "upgrade"],
    ["catalog"],
    ["catalog", "list"],
    ["catalog", "load"],
    ["catalog", "add"],
    ["catalog", "remove"],
    ["catalog", "alias"],
    ["status"],
    ["status", "import-legacy"],
    ["archive"],
    ["admin"],
    ["admin", "add-user"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_has_help(command):
    result = CliRunner().invoke(main, [*command, "--help"])
    assert result.exit_code == 0 and "Usage:" in result.output


@pytest.mark.parametrize("command", [["db", "upgrade"], ["serve", "--port", "1"]])
def test_a_database_that_cannot_be_reached_is_one_clear_line(command):
    url = "postgresql://postgres:secret@127.0.0.1:1/nowhere"
    result = CliRunner().invoke(main, [*command, "--database-url", url])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.startswith(
        "Error: Cannot reach the database postgresql+psycopg://postgres:***@127.0.0.1:1/nowhere"
    )
    assert "secret" not in result.output
