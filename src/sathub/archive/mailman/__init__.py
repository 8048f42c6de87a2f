"""Mailman's door into the archive: the archiver endpoints, live ingest of the messages they
receive, list settings from Mailman's REST API, and Mailman's user ids for senders."""
