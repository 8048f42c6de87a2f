"""The archive's web pages at HyperKitty's paths, and attachment downloads."""
