"""The archive read API: views, their common endpoint behaviour, links, objects, paging, rendering."""
