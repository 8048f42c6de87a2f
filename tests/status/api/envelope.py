"""Reading interface A's answers in tests."""


def error_code(response):
    """The code of an error envelope (status-api.md 2.4)."""
    return response.json()["error"]["code"]
