"""Interface B, the list archive: tables.py, pure mail rules (mail/), the import (importing/), all of
its SQL (store/), the HyperKitty-compatible read API (api/) and its CLI commands (commands.py)."""
