"""GET /api/v2/stream: the door (door.py), the process's one hub (hub.py), what it sends
(messages.py), what wakes it (wakeups.py) and the pruning of old events (pruning.py). The events'
SQL is the store's (store/events.py), their triggers migration 0009's."""
