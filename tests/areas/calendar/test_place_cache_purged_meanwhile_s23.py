"""Session 23: a stale place search whose cache row the daily `place-cache-purge` deletes while the provider is
asked is stored again, not a 500 (the row read before the call was updated after it: no row, no UPDATE)."""
from datetime import timedelta

from sqlalchemy import delete, select

from chalicelib.areas.calendar.models import PlaceSearchCache
from chalicelib.core.ids import utcnow
from chalicelib.providers.places.sandbox import SandboxPlaces


def test_a_stale_row_purged_while_the_provider_answers_is_stored_again(api, db, employee, monkeypatch):
    key = "au|sydney"
    db.add(PlaceSearchCache(key=key, results=[{"name": "old"}], cached_at=utcnow() - timedelta(days=40)))
    db.flush()
    search = SandboxPlaces.search

    def purged_meanwhile(self, query, *, country):
        db.execute(delete(PlaceSearchCache).where(PlaceSearchCache.key == key))  # the purge job, meanwhile
        return search(self, query, country=country)

    monkeypatch.setattr(SandboxPlaces, "search", purged_meanwhile)
    answer = api.get("/api/calendar/places?q=sydney&tz=Australia/Sydney", as_=employee)
    assert answer.status == 200, answer
    db.expire_all()
    stored = db.scalar(select(PlaceSearchCache).where(PlaceSearchCache.key == key))
    assert stored is not None and stored.results == answer.json["results"] and stored.cached_at > utcnow() - timedelta(minutes=1)


def test_a_stale_row_is_refreshed(api, db, employee):
    key = "au|sydney"
    db.add(PlaceSearchCache(key=key, results=[{"name": "old"}], cached_at=utcnow() - timedelta(days=40)))
    db.flush()
    answer = api.get("/api/calendar/places?q=sydney&tz=Australia/Sydney", as_=employee)
    assert answer.status == 200, answer
    db.expire_all()
    stored = db.get(PlaceSearchCache, key)
    assert stored.results == answer.json["results"] != [{"name": "old"}]
