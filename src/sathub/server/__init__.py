"""The HTTP edge: what the server itself enforces before a request reaches either interface
(protocol limits and deadlines, allowed Host headers)."""
