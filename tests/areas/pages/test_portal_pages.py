"""The client portal's page list (pages.service.portal_pages): the answer's columns only, never the bodies."""
from datetime import datetime, timezone

from tests.areas.pages.factories import make_page
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture

BODY = "x" * 50_000


def test_portal_list_reads_no_page_bodies(portal, db, count_queries):  # noqa: F811
    mine = make_client(db)
    published = datetime(2026, 3, 2, 10, 30, tzinfo=timezone.utc)
    pages = [make_page(db, title=f"P{n}", icon="book", entity_type="company", entity_id=mine.id, is_published=True,
                       published_at=published, content=BODY, content_rich=BODY, collab_snapshot=b"y" * 50_000)
             for n in range(5)]
    with count_queries() as counter:
        response = portal.get("/pages", mine)
    assert response.status == 200
    listed = response.json["pages"]
    assert [p["id"] for p in listed] == sorted(p.id for p in pages)  # same published_at: by id
    first = next(p for p in listed if p["id"] == pages[0].id)
    assert (first["title"], first["icon"], first["entity_type"], first["entity_id"], first["published_at"]) == (
        "P0", "book", "company", mine.id, "2026-03-02T10:30:00Z")
    assert all("content" not in p and "content_rich" not in p for p in listed)
    reads = [s for s in counter.statements if s.lstrip().upper().startswith("SELECT") and "FROM pages" in s]
    assert reads, counter.statements
    # up to 500 pages' content, rich content and collaboration snapshot were read for a list that answers none
    assert not [s for s in reads if "pages.content" in s or "pages.collab_snapshot" in s], reads
