"""Session 30, Nominatim jsonv2 results outside their documented shape (https://nominatim.org/release-docs/latest/
api/Output/: `osm_type` one of the strings node, way, relation; `osm_id` and `place_id` numbers; `display_name` a
string). A result that is no object or has no display_name was already left out (the adapter's reading since it was
built); one whose display_name is no string is left out the same way, and an osm_type that is no string, or an
osm_id that is neither a number nor a string, is not read (the id falls back as for a place with no OSM object):
`(osm_type or '')[:1].upper()` on a number or a list was a 500 on GET /api/calendar/places, and a label that is no
string was cached and answered. Through the HTTP interface, with tests/providers/test_places_wire.py's fixtures."""
import pytest
import responses

from tests.providers.test_places_wire import URL, _place, places, user  # noqa: F401 - fixtures

SEARCH = "/api/calendar/places?q=Opera%20House&tz=Australia/Sydney"
GOOD = _place(293_518_870, "way", 4_433_970, "Sydney Opera House", "Sydney Opera House, Sydney", "-33.85", "151.21")


@pytest.mark.parametrize("change, expected", [
    ({"osm_type": 5}, "4433970"),
    ({"osm_type": ["way"]}, "4433970"),
    ({"osm_id": {"id": 4433970}}, "293518870"),
    ({"osm_id": True}, "293518870"),
])
def test_an_osm_type_or_id_that_cannot_be_read_is_not_read(api, user, places, change, expected):  # noqa: F811
    places.add(responses.GET, URL, json=[{**GOOD, **change}])
    answer = api.get(SEARCH, as_=user)
    assert answer.status == 200, answer.json
    assert answer.json["results"] == [{"id": expected, "label": "Sydney Opera House, Sydney"}]


@pytest.mark.parametrize("label", [7, ["Sydney Opera House"], {"en": "Sydney Opera House"}])
def test_a_result_whose_label_is_no_string_is_left_out(api, user, places, label):  # noqa: F811
    places.add(responses.GET, URL, json=[{**GOOD, "display_name": label}, {**GOOD, "osm_id": 1}])
    answer = api.get(SEARCH, as_=user)
    assert answer.status == 200, answer.json
    assert answer.json["results"] == [{"id": "W1", "label": "Sydney Opera House, Sydney"}]
