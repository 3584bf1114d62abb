"""Factories for the pages area: plain functions that add, flush and return."""
from __future__ import annotations

import itertools

from chalicelib.areas.pages.models import Page, PageComment, PageDiscussion, PageFavourite, PageVersion
from tests.factories import add_row

_seq = itertools.count(1)


def make_page(db, **overrides) -> Page:
    n = next(_seq)
    return add_row(db, Page, {"title": f"Page {n}", "content": f"content of page {n}", "position": float(n)}, overrides)


def favourite(db, page: Page, user) -> None:
    db.add(PageFavourite(page_id=page.id, user_id=user.id))
    db.flush()


def make_discussion(db, page: Page, user, **overrides) -> PageDiscussion:
    return add_row(db, PageDiscussion, {"page_id": page.id, "user_id": user.id, "document_content": "highlighted"},
                   overrides)


def make_comment(db, discussion: PageDiscussion, user, **overrides) -> PageComment:
    return add_row(db, PageComment, {"discussion_id": discussion.id, "user_id": user.id,
                                     "content": f"comment {next(_seq)}"}, overrides)


def make_version(db, page: Page, user, **overrides) -> PageVersion:
    return add_row(db, PageVersion, {"page_id": page.id, "user_id": user.id, "title": page.title,
                                     "content_rich": page.content_rich}, overrides)
