"""Interface B out as mail: a list's or a search's messages as an mbox (mbox.py), through the
export door (endpoint.py)."""
