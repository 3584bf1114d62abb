"""core.query.tree_ids: the ids of the starting rows and of every row below them, in one statement, a stored cycle
ending the walk (the task subtree, a note's thread and a head's reports use it)."""
from sqlalchemy import select

from chalicelib.core.models import User
from chalicelib.core.query import tree_ids
from tests.factories import make_user


def _people(db):
    """top <- a <- b <- c (manager_id points up), and d elsewhere."""
    top = make_user(db, name="Top")
    a = make_user(db, name="A", manager_id=top.id)
    b = make_user(db, name="B", manager_id=a.id)
    c = make_user(db, name="C", manager_id=b.id)
    d = make_user(db, name="D")
    db.flush()
    return top, a, b, c, d


def test_a_row_and_everything_below_it_at_any_depth(db, count_queries):
    top, a, b, c, d = _people(db)
    with count_queries() as counted:
        ids = set(db.scalars(tree_ids(User.id, User.manager_id, User.id == a.id, "t")))
    assert ids == {a.id, b.id, c.id}
    assert counted.count == 1


def test_the_start_clause_may_leave_out_the_row_above(db):
    top, a, b, c, d = _people(db)
    below = select(User.id).where(User.id.in_(tree_ids(User.id, User.manager_id, User.manager_id == top.id, "t")))
    assert set(db.scalars(below)) == {a.id, b.id, c.id}


def test_a_stored_cycle_ends_the_walk(db):
    top, a, b, c, d = _people(db)
    a.manager_id = c.id  # a <- b <- c <- a
    db.flush()
    assert set(db.scalars(tree_ids(User.id, User.manager_id, User.id == b.id, "t"))) == {a.id, b.id, c.id}
