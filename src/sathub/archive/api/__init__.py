"""The archive read API: handlers, their common endpoint behaviour, links, objects, paging, rendering, downloads."""
