"""sathub: the AMSAT satellite status API and a HyperKitty-compatible archive read API."""

__version__ = "1.0.0"
