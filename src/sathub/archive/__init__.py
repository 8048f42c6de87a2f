"""Interface B, the list archive: tables.py; pure mail rules (mail/); the import (ingest/); Mailman's
door (mailman/); all of its SQL (store/); the HyperKitty-compatible read API (api/) and the web
pages and downloads (pages/), each door an ArchiveEndpoint of edge.py that checks access.py's
rules; routes.py, its URL table; commands.py, its CLI commands."""
