"""The archive's feeds, beside its pages: RSS and Atom of a list, a thread, a sender and a search
(endpoint.py), and their bytes (render.py)."""
