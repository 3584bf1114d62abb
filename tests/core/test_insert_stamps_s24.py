"""A new row's `created_at` and `updated_at` are one instant (core.db.insert_stamp): each default called `utcnow`
on its own, and `updated_at`, computed first, was stored microseconds before `created_at`, so every new record
read as edited since it was made (session 24, consistency audit)."""
from sqlalchemy import insert, select

from chalicelib.core.models import User


def test_a_record_made_through_the_api_answers_equal_stamps(api, exec_user):
    companies = api.post("/api/deals/companies", as_=exec_user, json={"name": "Stamp Co"})
    assert companies.status == 201, companies.json
    company = companies.json["company"]
    assert company["created_at"] == company["updated_at"]
    detail = api.get(f"/api/deals/companies/{company['id']}", as_=exec_user).json["company"]
    assert detail["created_at"] == detail["updated_at"]


def test_each_row_of_an_executemany_has_its_own_equal_pair(db):
    rows = [{"email": f"stamp-{n}@agency.test", "name": f"Stamp {n}"} for n in range(3)]
    db.execute(insert(User), rows)
    stored = db.execute(select(User.created_at, User.updated_at)
                        .where(User.email.like("stamp-%@agency.test")).order_by(User.email)).all()
    assert len(stored) == 3
    assert all(created == updated for created, updated in stored)


def test_an_explicit_created_at_is_kept(db):
    from datetime import datetime, timezone

    from tests.factories import make_user

    user = make_user(db, name="Old Hand", created_at=datetime(2020, 1, 2, tzinfo=timezone.utc))
    db.flush()
    assert db.scalar(select(User.created_at).where(User.id == user.id)) == datetime(2020, 1, 2, tzinfo=timezone.utc)


def test_rows_written_by_insert_rows_have_equal_pairs(db):
    from chalicelib.core.locks import insert_rows

    insert_rows(db, User, [{"email": f"bulk-stamp-{n}@agency.test", "name": f"Bulk {n}"} for n in range(3)])
    stored = db.execute(select(User.created_at, User.updated_at)
                        .where(User.email.like("bulk-stamp-%@agency.test"))).all()
    assert len(stored) == 3
    assert all(created == updated for created, updated in stored)
