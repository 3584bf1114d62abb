"""Session 24: a portal user recorded for company B is forgotten for the other companies it was recorded for,
except those of B's honoured client group (the same non-empty `client_group`): a user the portal worker moved to
another company no longer gets the first company's e-mails and notices. There is no route to forget a portal user."""
from sqlalchemy import select

from chalicelib.areas.portal.models import PortalUser
from tests.areas.notifications.factories import outbox

from .conftest import make_client

ANN = {"X-Portal-User-Email": "ann@client.example"}


def _sign_in(portal, company, user="pu-ann"):
    answer = portal.get("/notifications/unread-count", company, user=user, headers=ANN)
    assert answer.status == 200, answer


def _present(api, exec_user, company, title):
    qbr = api.post(f"/api/clients/{company.id}/qbrs", json={"title": title, "quarter": "2030-Q3"},
                   as_=exec_user).json["qbr"]
    assert api.post(f"/api/clients/{company.id}/qbrs/{qbr['id']}/present", as_=exec_user).status == 200


def _mails(db):
    return [(m.target, m.subject) for m in outbox(db, "mail")]


def _known(db, user="pu-ann"):
    db.expire_all()
    return set(db.scalars(select(PortalUser.company_id).where(PortalUser.portal_user_id == user)))


def test_a_portal_user_moved_to_another_company_gets_no_more_mail_of_the_first(portal, db, api, exec_user):
    first, second = make_client(db), make_client(db)
    _sign_in(portal, first)
    _sign_in(portal, second)  # the worker moved ann to the second client
    assert _known(db) == {second.id}
    _present(api, exec_user, first, "Q3 review: churn risk")
    assert _mails(db) == []
    _present(api, exec_user, second, "Q3 review")
    assert [target for target, _ in _mails(db)] == ["ann@client.example"]


def test_a_user_moved_out_of_a_group_is_forgotten_there(portal, db, api, exec_user):
    grouped, ungrouped, other_group = make_client(db, group="G1"), make_client(db), make_client(db, group="G2")
    _sign_in(portal, grouped)
    _sign_in(portal, other_group)  # another group: not honoured
    assert _known(db) == {other_group.id}
    _sign_in(portal, ungrouped)  # the new company has no group
    assert _known(db) == {ungrouped.id}
    _sign_in(portal, grouped)  # moved back: known again there, and only there
    assert _known(db) == {grouped.id}


def test_the_companies_of_the_same_client_group_keep_the_user(portal, db, api, exec_user):
    head_office, branch, outsider = make_client(db, group="Acme"), make_client(db, group="Acme"), make_client(db)
    _sign_in(portal, outsider, user="pu-ann")
    _sign_in(portal, head_office)
    _sign_in(portal, branch)  # the worker switched ann to another company of her group
    assert _known(db) == {head_office.id, branch.id}
    _present(api, exec_user, head_office, "Group review")
    _present(api, exec_user, outsider, "Not hers any more")
    assert _mails(db) == [("ann@client.example", "Quarterly business review: Group review")]


def test_other_users_of_the_first_company_are_kept(portal, db, api, exec_user):
    first, second = make_client(db), make_client(db)
    _sign_in(portal, first, user="pu-bob")
    _sign_in(portal, first)
    _sign_in(portal, second)
    assert _known(db, "pu-bob") == {first.id} and _known(db) == {second.id}
