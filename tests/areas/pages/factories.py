"""Factories for the pages area: plain functions that add, flush and return."""
from __future__ import annotations

import itertools

from chalicelib.areas.pages.models import Page, PageComment, PageDiscussion, PageFavourite, PageVersion

_seq = itertools.count(1)


def make_page(db, **overrides) -> Page:
    n = next(_seq)
    values = {"title": f"Page {n}", "content": f"content of page {n}", "position": float(n)}
    values.update(overrides)
    page = Page(**values)
    db.add(page)
    db.flush()
    return page


def favourite(db, page: Page, user) -> None:
    db.add(PageFavourite(page_id=page.id, user_id=user.id))
    db.flush()


def make_discussion(db, page: Page, user, **overrides) -> PageDiscussion:
    values = {"page_id": page.id, "user_id": user.id, "document_content": "highlighted"}
    values.update(overrides)
    discussion = PageDiscussion(**values)
    db.add(discussion)
    db.flush()
    return discussion


def make_comment(db, discussion: PageDiscussion, user, **overrides) -> PageComment:
    values = {"discussion_id": discussion.id, "user_id": user.id, "content": f"comment {next(_seq)}"}
    values.update(overrides)
    comment = PageComment(**values)
    db.add(comment)
    db.flush()
    return comment


def make_version(db, page: Page, user, **overrides) -> PageVersion:
    values = {"page_id": page.id, "user_id": user.id, "title": page.title, "content_rich": page.content_rich}
    values.update(overrides)
    version = PageVersion(**values)
    db.add(version)
    db.flush()
    return version
