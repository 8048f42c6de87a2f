"""Placeholder until this interface part lands: no routes yet."""


def routes() -> list:
    return []
