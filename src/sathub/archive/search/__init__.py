"""Search (docs/archive-search.md): the language, pure (query.py text → tree, text.py words,
expressions.py, facets.py, snippets.py), the one reader of a search's parameters (request.py) and
the doors (api.py, page.py, what both find: results.py). The statements are the store's
(store/search.py and each backend's beside it)."""
