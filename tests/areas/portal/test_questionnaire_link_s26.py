"""Session 26 (audit "a notice's link opens for the person told"): the questionnaire's notice linked the company to
a manager who may not read companies (deals at none): the link answered them 403."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.areas.portal.conftest import make_client
from tests.factories import grant, make_user


def _notice(db, user):
    return db.scalars(select(Notification).where(Notification.user_id == user.id,
                                                 Notification.type == "portal_questionnaire")).one()


def test_the_questionnaire_notice_links_the_company_only_for_a_reader(portal, api, db):
    blind, reader = make_user(db, name="Dee Manager"), make_user(db, name="Rae Reader")
    grant(db, blind, "deals", "none")
    for manager in (blind, reader):
        company = make_client(db, manager=manager)
        answer = portal.post("/questionnaire", company, role="admin", json={"financial_year_start": "July"})
        assert answer.status == 200, answer
        notice = _notice(db, manager)
        assert notice.title == "A client completed the questionnaire"
        opens = api.get(f"/api/deals/companies/{company.id}", as_=manager).status
        if manager is reader:
            assert opens == 200 and notice.action_url == f"/companies/{company.id}"
        else:
            assert opens == 403 and notice.action_url is None
