"""The worker factory (app.app_from_env)."""

import gc

from sathub.app import app_from_env


def test_a_worker_keeps_what_it_built_at_start_out_of_the_collectors_full_scans(tmp_path, monkeypatch):
    # A full collection scans every tracked object outside the frozen ones: ~90,000 in a worker
    # (35-70 ms, bench/status_gc_pauses.py) unless the startup objects are frozen.
    monkeypatch.setenv("SATHUB_DATABASE_URL", f"sqlite:///{tmp_path / 'sathub.db'}")
    gc.unfreeze()
    try:
        app_from_env()
        # Full collections see only what is left outside: a small part of what the worker holds.
        assert len(gc.get_objects()) * 5 < gc.get_freeze_count()
    finally:
        gc.unfreeze()


def test_an_unknown_path_of_interface_a_is_upstreams_page_typed_text_html(client):
    # Upstream's server answers an unknown path under /api/v1/ with its HTML page typed
    # `text/html`, no charset (issue 26); the archive's prefixes keep Starlette's plain text.
    for path in ("/api/v1/no-such.php", "/no-such-page"):
        response = client.get(path)
        assert response.status_code == 404
        assert response.headers["content-type"] == "text/html"
        assert "<h1>Not Found</h1>" in response.text
    archive = client.get("/archive/no-such-page")
    assert (archive.status_code, archive.headers["content-type"]) == (404, "text/plain; charset=utf-8")
