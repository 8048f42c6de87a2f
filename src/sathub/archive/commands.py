"""`sathub archive ...` commands (placeholder group until the importer lands)."""

import click


@click.group()
def archive() -> None:
    """Mailing-list archives (interface B)."""
