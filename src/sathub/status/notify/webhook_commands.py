"""`sathub webhooks add|list|remove`: the webhooks an admin registers (docs/orbits.md, "Webhooks");
`sathub serve` delivers them."""

from __future__ import annotations

import secrets

import click

from sathub import db
from sathub.cli_options import database_option, engine_for
from sathub.status.notify.webhook_rules import EVENTS, registration_refusal, utc_text
from sathub.status.store import webhooks as store

SHOWN_ATTEMPTS = 5


@click.group()
def webhooks() -> None:
    """Webhooks: interface A's events POSTed, signed, to URLs (delivered by `sathub serve`)."""


@webhooks.command("add")
@click.argument("url")
@click.option("--secret", default=None, help="Signs each body (16 to 255 characters). Default: a new one, printed.")
@click.option(
    "--events",
    default="report",
    show_default=True,
    help=f"Comma-separated, of: {', '.join(EVENTS)} (a report stored; a satellite's status changed).",
)
@click.option("--name", "names", multiple=True, help="Only this satellite's events (API name); repeatable.")
@database_option
def add(url, secret, events, names, database_url) -> None:
    """Register URL: the events committed from now on are POSTed to it."""
    secret = secret if secret is not None else secrets.token_hex(32)
    wanted = {event.strip() for event in events.split(",") if event.strip()}
    refusal = registration_refusal(url, secret, wanted)
    if refusal:
        raise click.UsageError(refusal)
    with db.connect(engine_for(database_url), write=True) as conn:
        unknown = store.unknown_names(conn, names)
        if unknown:
            raise click.UsageError(f"no satellite has the API name {', '.join(unknown)}")
        hook_id = store.add_webhook(conn, url, secret, wanted, names)
    click.echo(f"Webhook {hook_id} added: {url}")
    click.echo(f"Secret: {secret}")


@webhooks.command("list")
@click.option("--attempts", default=SHOWN_ATTEMPTS, show_default=True, help="Attempts shown per webhook, newest first.")
@database_option
def list_webhooks(attempts, database_url) -> None:
    """Each webhook, its state, and its last attempts."""
    with db.connect(engine_for(database_url)) as conn:
        hooks = store.all_webhooks(conn)
        log = store.recent_attempts(conn, [hook.id for hook in hooks], attempts)
    if not hooks:
        click.echo("No webhooks.")
    for hook in hooks:
        names = ",".join(sorted(hook.names)) or "every satellite"
        click.echo(f"{hook.id} {hook.url} events={','.join(sorted(hook.events))} names={names}")
        state = "enabled" if hook.enabled else f"disabled ({hook.disabled_reason})"
        failing = f", failing since {utc_text(hook.failing_since)}" if hook.failing_since else ""
        click.echo(f"  {state}; position {hook.position}; {hook.failures} failures in a row{failing}")
        for attempt in log[hook.id]:
            outcome = f"HTTP {attempt.status_code}" if attempt.status_code is not None else attempt.error
            click.echo(
                f"  {utc_text(attempt.attempted_at)} event {attempt.event_id}: {outcome} ({attempt.duration_ms:.0f} ms)"
            )


@webhooks.command("remove")
@click.argument("webhook_id", type=int)
@database_option
def remove(webhook_id, database_url) -> None:
    """Delete a webhook and its log."""
    with db.connect(engine_for(database_url), write=True) as conn:
        if not store.remove_webhook(conn, webhook_id):
            raise click.ClickException(f"No webhook {webhook_id}.")
    click.echo(f"Webhook {webhook_id} removed.")
