"""The satellites a v2 request names, resolved once for the reports, the grid and the stream
(api-v2.md: a name is an API name, a display name, a retired name, or a name reports are still
stored under after it left the catalog; any other is a 404 `satellite_not_found`)."""

from sathub import db
from sathub.status.api.responses import ApiError
from sathub.status.api.v2.names import Names, resolved_names
from tests.status.seed import hours_ago, store_report


def resolve(engine, *given: str):
    with db.connect(engine) as conn:
        return resolved_names(given, conn)


def test_each_kind_of_name_resolves_to_its_api_name(seeded):
    store_report(seeded, "XO-99", hours_ago(2))  # reported, then taken out of the catalog
    assert resolve(seeded, "AO-91 Mode U/v FM", "[B]_AO-7", "XO-99") == Names(
        matched=("AO-91", "AO-91 Mode U/v FM", "FO-29", "XO-99", "[B]_AO-7"),
        api_names=("AO-91", "FO-29", "XO-99"),
    )


def test_no_name_is_no_filter(seeded):
    assert resolve(seeded) == Names((), ())


def test_the_first_unknown_name_is_the_404(seeded):
    refused = resolve(seeded, "AO-91", "NO-SUCH-1", "NO-SUCH-2")
    assert isinstance(refused, ApiError)
    assert (refused.status, refused.code, refused.details) == (404, "satellite_not_found", {"name": "NO-SUCH-1"})
    assert "'NO-SUCH-1'" in refused.message
