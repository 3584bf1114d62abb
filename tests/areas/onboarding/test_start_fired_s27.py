"""Session 27: starting an onboarding completes the milestones whose auto_source already fired.

A source that fires for a company to which no template applies (no onboarding, no profile template, no active
default) is now noted (`source_fired`), and every start (POST, or auto_complete starting one) completes the chosen
template's milestones whose source fired, through the function the move to another template (PUT, session 26)
uses. A profile naming a template disabled since falls back to the default template on start."""
from chalicelib.areas.onboarding.service_progress import ENTITY as ONBOARDING
from chalicelib.core import history
from chalicelib.core.schemas import PageQuery
from tests.areas.deals.factories import make_company
from tests.areas.onboarding.test_onboarding import BASE, template


def _done(progress):
    return {m["title"]: m["source"] for s in progress["stages"] for m in s["milestones"] if m["completed_at"]}


def _sourced(api, user, name, sources):
    """A template of one stage whose milestones are `sources` ({title: auto_source or None})."""
    ids = template(api, user, name, stages=(("Kickoff", "kickoff", tuple(sources)),))
    for title, source in sources.items():
        if source:
            assert api.patch(f"{BASE}/milestones/{ids[title]}", as_=user, json={"auto_source": source}).status == 200
    return ids


def test_post_start_completes_the_milestones_whose_source_fired_before(api, db, exec_user):
    company = make_company(db, status="client")
    path = f"/api/clients/{company.id}/onboarding"
    # a project for the company while no template applies: nothing starts
    assert api.post("/api/projects", as_=exec_user, json={"name": "P", "company_id": company.id}).status == 201
    assert api.get(path, as_=exec_user).json == {"onboarding": None}
    ids = _sourced(api, exec_user, "Later", {"First project": "project_created", "Kickoff call": None,
                                             "Paid": "first_invoice"})
    started = api.post(path, as_=exec_user, json={"template_id": ids["template"]})
    assert started.status == 201, started
    onboarding = started.json["onboarding"]
    assert _done(onboarding) == {"First project": "project_created"}, onboarding
    assert onboarding["percent_complete"] == 33 and onboarding["completed_at"] is None
    assert api.get(path, as_=exec_user).json["onboarding"] == onboarding
    entries = history.entries(db, entity_type=ONBOARDING, entity_id=company.id, query=PageQuery()).items
    started_entry = [e for e in entries if e["action"] == "started"]
    assert len(started_entry) == 1 and started_entry[0]["changes"]["completed"] == 1, started_entry


def test_post_start_of_a_template_finished_by_what_fired_is_completed(api, db, exec_user):
    company = make_company(db, status="client")
    path = f"/api/clients/{company.id}/onboarding"
    assert api.post("/api/projects", as_=exec_user, json={"name": "P", "company_id": company.id}).status == 201
    ids = _sourced(api, exec_user, "One", {"First project": "project_created"})
    onboarding = api.post(path, as_=exec_user, json={"template_id": ids["template"]}).json["onboarding"]
    assert onboarding["percent_complete"] == 100 and onboarding["current_stage"] is None
    assert onboarding["completed_at"] is not None


def test_an_automatic_start_completes_the_sources_that_fired_before_too(api, db, exec_user):
    company = make_company(db, status="client")
    path = f"/api/clients/{company.id}/onboarding"
    assert api.post("/api/projects", as_=exec_user, json={"name": "P", "company_id": company.id}).status == 201
    ids = _sourced(api, exec_user, "Default", {"First project": "project_created", "Paid": "first_invoice",
                                               "Kickoff call": None})
    assert api.patch(f"{BASE}/{ids['template']}", as_=exec_user, json={"is_default": True}).status == 200
    # the company's first invoice starts the onboarding from the default template
    assert api.post("/api/invoices", as_=exec_user, json={"company_id": company.id}).status == 201
    onboarding = api.get(path, as_=exec_user).json["onboarding"]
    assert onboarding["template_id"] == ids["template"]
    assert _done(onboarding) == {"First project": "project_created", "Paid": "first_invoice"}, onboarding


def test_a_start_with_nothing_fired_completes_nothing(api, db, exec_user):
    company = make_company(db, status="client")
    ids = _sourced(api, exec_user, "Plain", {"First project": "project_created"})
    onboarding = api.post(f"/api/clients/{company.id}/onboarding", as_=exec_user,
                          json={"template_id": ids["template"]}).json["onboarding"]
    assert _done(onboarding) == {} and onboarding["percent_complete"] == 0


def test_a_profile_template_disabled_since_falls_back_to_the_default(api, db, exec_user):
    default = _sourced(api, exec_user, "Default", {"Welcome": None})
    assert api.patch(f"{BASE}/{default['template']}", as_=exec_user, json={"is_default": True}).status == 200
    chosen = _sourced(api, exec_user, "Chosen", {"Kickoff call": None})
    company_id = api.post("/api/deals/companies", as_=exec_user, json={"name": "Acme", "status": "client"}).json[
        "company"]["id"]
    profile = api.put(f"/api/clients/{company_id}/profile", as_=exec_user,
                      json={"onboarding_template_id": chosen["template"]})
    assert profile.status == 200, profile
    # clients use it (the profile names it): soft-disabled
    assert api.delete(f"{BASE}/{chosen['template']}", as_=exec_user).json == {"ok": True, "soft_disabled": True}
    started = api.post(f"/api/clients/{company_id}/onboarding", as_=exec_user, json={})
    assert started.status == 201, started
    assert started.json["onboarding"]["template_id"] == default["template"]


def test_a_start_costs_the_same_statements_at_5_and_100_milestones(api, db, exec_user, count_queries):
    from chalicelib.areas.onboarding.models import OnboardingMilestone, OnboardingStage, OnboardingTemplate

    counts = []
    for n in (5, 100):
        company = make_company(db, status="client")
        assert api.post("/api/projects", as_=exec_user, json={"name": "P", "company_id": company.id}).status == 201
        made = OnboardingTemplate(name=f"T{n}")
        db.add(made)
        db.flush()
        stage = OnboardingStage(template_id=made.id, name="S", stage_type="kickoff")
        db.add(stage)
        db.flush()
        db.add_all([OnboardingMilestone(stage_id=stage.id, title=f"M{i}", sort_order=i,
                                        auto_source="project_created" if i % 2 else None) for i in range(n)])
        db.flush()
        with count_queries() as counter:
            started = api.post(f"/api/clients/{company.id}/onboarding", as_=exec_user, json={"template_id": made.id})
        assert started.status == 201, started
        assert len(_done(started.json["onboarding"])) == n // 2
        counts.append(counter.count)
    assert counts[0] == counts[1], counts
