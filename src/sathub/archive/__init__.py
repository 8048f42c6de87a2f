"""Interface B: the HyperKitty-compatible archive read API."""
