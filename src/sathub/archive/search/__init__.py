"""The archive's search language, pure: query.py (text → tree), text.py (words), snippets.py."""
