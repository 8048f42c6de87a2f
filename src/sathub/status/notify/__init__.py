"""Notifications: the status-change rule and the Atom feeds (docs/orbits.md, "Notifications"), and
webhooks delivered from the event log ("Webhooks")."""
