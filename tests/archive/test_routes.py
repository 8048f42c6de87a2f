"""The URL table of interface B (sathub.archive.routes): every door under each of the three
prefixes real deployments use, in the order that keeps a pattern from shadowing another."""

from __future__ import annotations

from sathub.archive.routes import routes

PREFIXES = ("/archive/", "/archives/", "/hyperkitty/")


def test_every_door_is_served_under_each_prefix():
    paths = [route.path for route in routes()]
    for web in PREFIXES:
        for path in (
            "api/lists/",
            "api/lists",  # the slash-less twin, which redirects
            "api/mailman/archive",
            "api/{rest:path}",
            "",
            "list/{address}/",
            "list/{address}/latest",
            "list/{address}/feed/",
            "list/{address}/message/{message_id_hash}/raw",
            "list/{address}/message/{message_id_hash}/attachment/{counter}/{filename}",
            "list/{address}/export/{name}.mbox.gz",
            "pipermail/{list_name}/{period}.txt.gz",
            "search",
            "search/export/{name}.mbox.gz",
        ):
            assert web + path in paths, web + path


def test_the_api_catch_all_comes_after_every_view_of_its_prefix():
    paths = [route.path for route in routes()]
    for web in PREFIXES:
        catch_all = paths.index(web + "api/{rest:path}")
        views = [n for n, path in enumerate(paths) if path.startswith(web + "api/") and "{rest:path}" not in path]
        assert views and max(views) < catch_all
