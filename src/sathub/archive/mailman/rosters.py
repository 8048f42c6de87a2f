"""Who runs a list, as Mailman core says: its owners and moderators, read from its REST API
(`/3.1/lists/<address>/roster/owner` and `/roster/moderator`) with mailmanclient, as HyperKitty's
`is_owner` asks it. Without SATHUB_MAILMAN_REST_URL nothing is asked."""

from __future__ import annotations

from urllib.error import HTTPError

from sathub.archive.mailman.list_settings import TIMEOUT, MailmanUnavailable
from sathub.config import Settings

ROLES = ("owner", "moderator")


def list_staff(settings: Settings, address: str) -> frozenset[str]:
    """The addresses (lower case) of the list's owners and moderators; none when Mailman has no
    such list. Raises MailmanUnavailable when it cannot be asked."""
    from mailmanclient import Client, MailmanConnectionError  # imported when first needed: ~40 ms

    client = Client(
        f"{settings.mailman_rest_url.rstrip('/')}/3.1",
        settings.mailman_rest_user or None,
        settings.mailman_rest_password or None,
        request_hooks=[lambda params: {**params, "timeout": TIMEOUT}],
    )
    try:
        mailing_list = client.get_list(address.lower())
        members = [member for role in ROLES for member in mailing_list.get_roster(role)]
        return frozenset(str(member.rest_data["email"]).lower() for member in members)
    except HTTPError as error:
        if error.code == 404:
            return frozenset()
        raise MailmanUnavailable(f"Mailman's REST API answered {error.code} for {address}'s roster") from error
    except (MailmanConnectionError, OSError, KeyError, ValueError) as error:
        raise MailmanUnavailable(
            f"Mailman's REST API at {settings.mailman_rest_url} cannot be read: {error}"
        ) from error
