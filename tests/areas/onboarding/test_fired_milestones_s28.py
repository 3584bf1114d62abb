"""Session 28: a milestone given an auto_source that already fired for a company is completed for it.

Only a start or a move to another template completed the milestones whose source had fired (session 27); a milestone
created with that auto_source, or given it by an update, on the template a company's onboarding already follows stayed
open for good (first_invoice and deal_won fire once per company). Now the create and the update complete it for every
onboarding on that template whose source fired, with the history entry a firing source records, in a fixed number of
statements whatever the number of onboardings."""
from sqlalchemy import select

from chalicelib.areas.onboarding.models import OnboardingProgress
from chalicelib.areas.onboarding.service_progress import ENTITY as ONBOARDING
from chalicelib.core import history
from chalicelib.core.ids import utcnow
from chalicelib.core.schemas import PageQuery
from tests.areas.deals.factories import make_company
from tests.areas.onboarding.test_onboarding import BASE
from tests.areas.onboarding.test_start_fired_s27 import _done, _sourced


def _started(api, db, user, milestones):
    """A client company whose onboarding follows a new template of one stage "Kickoff" holding `milestones`
    ({title: auto_source or None}): (the onboarding's path, the template's ids)."""
    company = make_company(db, status="client")
    path = f"/api/clients/{company.id}/onboarding"
    ids = _sourced(api, user, "In use", milestones)
    assert api.post(path, as_=user, json={"template_id": ids["template"]}).status == 201
    return path, ids


def _entries(db, path, action):
    company_id = path.split("/")[3]
    return [e for e in history.entries(db, entity_type=ONBOARDING, entity_id=company_id, query=PageQuery()).items
            if e["action"] == action]


def test_a_milestone_given_a_source_that_fired_is_completed(api, db, exec_user):
    path, ids = _started(api, db, exec_user, {"Kickoff call": None, "Paid": None})
    # the company's first invoice: the template in use has no milestone for it (noted as fired)
    assert api.post("/api/invoices", as_=exec_user, json={"company_id": path.split("/")[3]}).status == 201
    edited = api.patch(f"{BASE}/milestones/{ids['Paid']}", as_=exec_user, json={"auto_source": "first_invoice"})
    assert edited.status == 200, edited.json
    onboarding = api.get(path, as_=exec_user).json["onboarding"]
    assert _done(onboarding) == {"Paid": "first_invoice"}, onboarding
    assert onboarding["percent_complete"] == 50 and onboarding["completed_at"] is None


def test_a_new_milestone_with_a_source_that_fired_is_completed(api, db, exec_user):
    path, ids = _started(api, db, exec_user, {"Kickoff call": None})
    assert api.post("/api/projects", as_=exec_user, json={"name": "P", "company_id": path.split("/")[3]}).status == 201
    added = api.post(f"{BASE}/stages/{ids['Kickoff']}/milestones", as_=exec_user,
                     json={"title": "First project", "auto_source": "project_created"})
    assert added.status == 201, added.json
    onboarding = api.get(path, as_=exec_user).json["onboarding"]
    assert _done(onboarding) == {"First project": "project_created"}, onboarding


def test_the_completion_is_recorded_as_a_firing_source_records_it(api, db, exec_user):
    path, ids = _started(api, db, exec_user, {"Kickoff call": None})
    assert api.post("/api/projects", as_=exec_user, json={"name": "P", "company_id": path.split("/")[3]}).status == 201
    added = api.post(f"{BASE}/stages/{ids['Kickoff']}/milestones", as_=exec_user,
                     json={"title": "First project", "auto_source": "project_created"})
    completed = _entries(db, path, "milestone_completed")
    assert [e["changes"] for e in completed] == [
        {"source": "project_created", "milestones": 1, "milestone_id": added.json["milestone"]["id"]}], completed
    assert completed[0]["actor_id"] == exec_user.id


def test_the_last_open_milestone_completed_so_finishes_the_onboarding(api, db, exec_user):
    path, ids = _started(api, db, exec_user, {"Kickoff call": None, "Paid": None})
    assert api.post(f"{path}/milestones/{ids['Kickoff call']}/complete", as_=exec_user).status == 200
    assert api.post("/api/invoices", as_=exec_user, json={"company_id": path.split("/")[3]}).status == 201
    assert api.patch(f"{BASE}/milestones/{ids['Paid']}", as_=exec_user,
                     json={"auto_source": "first_invoice"}).status == 200
    onboarding = api.get(path, as_=exec_user).json["onboarding"]
    assert onboarding["percent_complete"] == 100 and onboarding["current_stage"] is None
    assert onboarding["completed_at"] is not None
    # stored, as a completion by hand or by a firing source stores it
    assert db.scalar(select(OnboardingProgress.completed_at).where(OnboardingProgress.id == onboarding["id"]))


def test_a_source_that_has_not_fired_leaves_the_milestone_open(api, db, exec_user):
    path, ids = _started(api, db, exec_user, {"Kickoff call": None, "Paid": None})
    assert api.post("/api/projects", as_=exec_user, json={"name": "P", "company_id": path.split("/")[3]}).status == 201
    assert api.patch(f"{BASE}/milestones/{ids['Paid']}", as_=exec_user,
                     json={"auto_source": "first_invoice"}).status == 200
    assert _done(api.get(path, as_=exec_user).json["onboarding"]) == {}
    assert _entries(db, path, "milestone_completed") == []


def test_a_milestone_done_by_hand_keeps_its_completion(api, db, exec_user):
    path, ids = _started(api, db, exec_user, {"Kickoff call": None, "Paid": None})
    assert api.post("/api/invoices", as_=exec_user, json={"company_id": path.split("/")[3]}).status == 201
    assert api.post(f"{path}/milestones/{ids['Paid']}/complete", as_=exec_user).status == 200
    before = _entries(db, path, "milestone_completed")
    assert api.patch(f"{BASE}/milestones/{ids['Paid']}", as_=exec_user,
                     json={"auto_source": "first_invoice"}).status == 200
    assert _done(api.get(path, as_=exec_user).json["onboarding"]) == {"Paid": "manual"}
    assert _entries(db, path, "milestone_completed") == before


def _fired_onboardings(api, db, user, n):
    """A new template ("Kickoff call", "Paid") followed by n client companies for which first_invoice fired: (the
    template's ids, the companies)."""
    ids = _sourced(api, user, f"T{n}", {"Kickoff call": None, "Paid": None})
    companies = [make_company(db, status="client") for _ in range(n)]
    db.add_all([OnboardingProgress(company_id=c.id, template_id=ids["template"], started_at=utcnow())
                for c in companies])
    for company in companies:
        history.record(db, entity_type=ONBOARDING, entity_id=company.id, action="source_fired", actor_id=None,
                       changes={"source": "first_invoice"})
    db.flush()
    return ids, companies


def test_a_milestone_given_a_fired_source_costs_the_same_statements_at_5_and_100_onboardings(
        api, db, exec_user, count_queries):
    counts = []
    for n in (5, 100):
        ids, companies = _fired_onboardings(api, db, exec_user, n)
        with count_queries() as counter:
            edited = api.patch(f"{BASE}/milestones/{ids['Paid']}", as_=exec_user, json={"auto_source": "first_invoice"})
        assert edited.status == 200, edited.json
        counts.append(counter.count)
        assert all(_done(api.get(f"/api/clients/{c.id}/onboarding", as_=exec_user).json["onboarding"])
                   == {"Paid": "first_invoice"} for c in companies[:: n // 5])
    assert counts[0] == counts[1], counts


def test_onboardings_past_a_statement_s_batch_are_all_completed(api, db, exec_user, monkeypatch):
    from chalicelib.areas.onboarding import service_progress

    monkeypatch.setattr(service_progress, "FIRED_BATCH", 2)
    ids, companies = _fired_onboardings(api, db, exec_user, 5)
    assert api.patch(f"{BASE}/milestones/{ids['Paid']}", as_=exec_user,
                     json={"auto_source": "first_invoice"}).status == 200
    assert all(_done(api.get(f"/api/clients/{c.id}/onboarding", as_=exec_user).json["onboarding"])
               == {"Paid": "first_invoice"} for c in companies)
