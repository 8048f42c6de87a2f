"""Whatever a reader types, the API answers 200 or a 400 in the archive's shape, never a 500, on
SQLite and PostgreSQL: random text built from the language's own characters and words."""

from __future__ import annotations

from urllib.parse import quote

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.archive.api_fixtures import seed_archive

PIECES = st.sampled_from(
    ['"', "(", ")", "-", "*", ":", " ", "OR", "AND", "NOT", "s:", "b:", "f:", "n:", "m:", "l:", "d:", "..", "2021",
     "2021-01", "welcome", "zoë", "ça", "<", ">", "@", "'", "\\", "{", "}", "^", "NEAR", "é", "日本", "\t", "_",
     " -- ", " !! ", "??", " ... ", " OR ", " NOT "]
)  # fmt: skip


def test_any_text_is_answered_200_or_400(engine, client):
    seed_archive(engine)

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.lists(PIECES, min_size=1, max_size=12).map("".join))
    def check(text):
        answer = client.get(f"/archive/api/search/?q={quote(text)}&limit=3")
        assert answer.status_code in (200, 400), (text, answer.status_code, answer.text)
        if answer.status_code == 400:
            assert set(answer.json()) == {"detail"}
        page = client.get(f"/archive/search?q={quote(text)}")
        assert page.status_code in (200, 400), (text, page.status_code)

    check()
