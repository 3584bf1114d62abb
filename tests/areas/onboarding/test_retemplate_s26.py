"""Session 26 (dead-end states audit): a started onboarding moves to another template.

An onboarding starts on its own (auto sources: a proposal's public accept, a project or an invoice for the company)
with the template that applies then, usually the default, before staff could choose one; POST answers 409 once
started, so the onboarding stayed on that template for good. `PUT /api/clients/:companyId/onboarding
{ template_id }` moves it to another active template: completions outside it are dropped, its milestones whose
auto_source already fired are completed, completed_at is recomputed and `template_changed` recorded."""
from chalicelib.areas.onboarding.service_progress import ENTITY as ONBOARDING
from chalicelib.core import history
from chalicelib.core.schemas import PageQuery
from tests.areas.deals.factories import make_company
from tests.areas.onboarding.test_onboarding import BASE, template


def _actions(db, company_id):
    return [e for e in history.entries(db, entity_type=ONBOARDING, entity_id=company_id, query=PageQuery()).items]


def _default(api, user):
    ids = template(api, user, "Default", stages=(("Start", "kickoff", ("Welcome", "Signed")),))
    assert api.patch(f"{BASE}/{ids['template']}", as_=user, json={"is_default": True}).status == 200
    return ids


def _chosen(api, user, name="Retail onboarding"):
    """Kickoff: Contract signed (deal_won), Kickoff call; Delivery: First project (project_created), Paid
    (first_invoice)."""
    ids = template(api, user, name, stages=(("Kickoff", "kickoff", ("Contract signed", "Kickoff call")),
                                            ("Delivery", "delivery", ("First project", "Paid"))))
    for title, source in (("Contract signed", "deal_won"), ("First project", "project_created"),
                          ("Paid", "first_invoice")):
        assert api.patch(f"{BASE}/milestones/{ids[title]}", as_=user, json={"auto_source": source}).status == 200
    return ids


def _done(progress):
    return {m["title"]: m["source"] for s in progress["stages"] for m in s["milestones"] if m["completed_at"]}


def test_an_onboarding_started_by_a_proposal_accept_moves_to_the_chosen_template(api, db, exec_user):
    default = _default(api, exec_user)
    chosen = _chosen(api, exec_user)
    cid = api.post("/api/deals/companies", as_=exec_user, json={"name": "NewCo"}).json["company"]["id"]
    from tests.areas.proposals.factories import sent

    pid = sent(api, exec_user, company_id=cid)
    token = api.put(f"/api/proposals/{pid}/share", as_=exec_user, json={"share_enabled": True}).json["share_token"]
    assert api.post(f"/api/proposals/public/{token}/accept", json={"name": "A", "email": "a@b.co"}).status == 200
    path = f"/api/clients/{cid}/onboarding"
    started = api.get(path, as_=exec_user).json["onboarding"]
    assert started["template_id"] == default["template"]  # started before anyone chose
    assert api.post(f"{path}/milestones/{default['Welcome']}/complete", as_=exec_user).status == 200
    # POST keeps its 409
    assert api.post(path, as_=exec_user, json={"template_id": chosen["template"]}).status == 409

    moved = api.put(path, as_=exec_user, json={"template_id": chosen["template"]})
    assert moved.status == 200, (moved.status, moved.json)
    onboarding = moved.json["onboarding"]
    assert onboarding["template_id"] == chosen["template"] and onboarding["template_name"] == "Retail onboarding"
    assert onboarding["id"] == started["id"] and onboarding["started_at"] == started["started_at"]
    # the default's completion is dropped; the accept fired deal_won and project_created (no pricing: no invoice)
    assert _done(onboarding) == {"Contract signed": "deal_won", "First project": "project_created"}, onboarding
    assert onboarding["percent_complete"] == 50 and onboarding["completed_at"] is None
    assert onboarding["current_stage"]["id"] == chosen["Kickoff"]
    assert api.get(path, as_=exec_user).json["onboarding"] == onboarding
    # the chosen template's milestones are now the onboarding's, the default's answer 404
    assert api.post(f"{path}/milestones/{chosen['Kickoff call']}/complete", as_=exec_user).status == 200
    assert api.post(f"{path}/milestones/{default['Welcome']}/complete", as_=exec_user).status == 404
    entry = [e for e in _actions(db, cid) if e["action"] == "template_changed"]
    assert len(entry) == 1 and entry[0]["changes"]["template_id"] == {"from": default["template"],
                                                                      "to": chosen["template"]}, entry
    # the template detail counts the company under the chosen template only
    assert api.get(f"{BASE}/{chosen['template']}", as_=exec_user).json["clients_using"] == 1


def test_a_prospect_given_a_project_then_moved_and_completed(api, db, exec_user):
    default = _default(api, exec_user)
    chosen = _chosen(api, exec_user)
    small = template(api, exec_user, "Small", stages=(("Only", "kickoff", ("Go",)),))
    go = api.patch(f"{BASE}/milestones/{small['Go']}", as_=exec_user, json={"auto_source": "project_created"})
    assert go.status == 200
    company = make_company(db, status="prospect")
    assert api.post("/api/projects", as_=exec_user, json={"name": "P", "company_id": company.id}).status == 201
    path = f"/api/clients/{company.id}/onboarding"
    assert api.get(path, as_=exec_user).json["onboarding"]["template_id"] == default["template"]
    # a template finished by what already fired: completed now
    done = api.put(path, as_=exec_user, json={"template_id": small["template"]}).json["onboarding"]
    assert done["percent_complete"] == 100 and done["completed_at"] is not None and done["current_stage"] is None
    # and back to one that is not: completed_at cleared
    back = api.put(path, as_=exec_user, json={"template_id": chosen["template"]})
    assert back.status == 200, back
    assert back.json["onboarding"]["completed_at"] is None
    assert _done(back.json["onboarding"]) == {"First project": "project_created"}


def test_put_naming_the_template_in_use_is_a_no_op(api, db, exec_user):
    ids = _chosen(api, exec_user)
    company = make_company(db, status="client")
    path = f"/api/clients/{company.id}/onboarding"
    assert api.post(path, as_=exec_user, json={"template_id": ids["template"]}).status == 201
    before = api.post(f"{path}/milestones/{ids['Kickoff call']}/complete", as_=exec_user).json["onboarding"]
    logged = _actions(db, company.id)
    same = api.put(path, as_=exec_user, json={"template_id": ids["template"]})
    assert same.status == 200 and same.json["onboarding"] == before
    assert _actions(db, company.id) == logged  # nothing recorded


def test_put_errors(api, db, exec_user):
    ids = _chosen(api, exec_user)
    other = _chosen(api, exec_user, "Other")
    company = make_company(db, status="client")
    path = f"/api/clients/{company.id}/onboarding"
    # not started: 404 (POST starts it)
    assert api.put(path, as_=exec_user, json={"template_id": ids["template"]}).status == 404
    assert api.put("/api/clients/nope/onboarding", as_=exec_user, json={"template_id": ids["template"]}).status == 404
    assert api.post(path, as_=exec_user, json={"template_id": ids["template"]}).status == 201
    assert api.put(path, as_=exec_user, json={}).status == 400
    assert api.put(path, as_=exec_user, json={"template_id": None}).status == 400
    missing = api.put(path, as_=exec_user, json={"template_id": "nope"})
    assert missing.status == 400 and missing.json["details"][0]["field"] == "template_id", missing.json
    # a soft-disabled template (clients use it) is not a target
    other_client = make_company(db, status="client")
    assert api.post(f"/api/clients/{other_client.id}/onboarding", as_=exec_user,
                    json={"template_id": other["template"]}).status == 201
    assert api.delete(f"{BASE}/{other['template']}", as_=exec_user).json == {"ok": True, "soft_disabled": True}
    assert api.put(path, as_=exec_user, json={"template_id": other["template"]}).status == 400
    assert api.get(path, as_=exec_user).json["onboarding"]["template_id"] == ids["template"]
    # a company on a soft-disabled template can leave it
    assert api.put(f"/api/clients/{other_client.id}/onboarding", as_=exec_user,
                   json={"template_id": ids["template"]}).status == 200


def test_put_takes_the_permission_of_start(api, db, exec_user, employee):
    from tests.factories import grant

    grant(db, employee, "deals", "view")
    ids = _chosen(api, exec_user)
    other = _chosen(api, exec_user, "Other")
    company = make_company(db, status="client")
    path = f"/api/clients/{company.id}/onboarding"
    assert api.post(path, as_=employee, json={"template_id": ids["template"]}).status == 403  # deals:update
    assert api.get(path, as_=employee).status == 200  # deals:view
    assert api.post(path, as_=exec_user, json={"template_id": ids["template"]}).status == 201
    assert api.put(path, as_=employee, json={"template_id": other["template"]}).status == 403
    assert api.get(path, as_=exec_user).json["onboarding"]["template_id"] == ids["template"]


def test_a_move_costs_the_same_statements_at_5_and_100_milestones(api, db, exec_user, count_queries):
    from datetime import datetime, timezone

    from chalicelib.areas.onboarding.models import (MilestoneCompletion, OnboardingMilestone, OnboardingProgress,
                                                    OnboardingStage, OnboardingTemplate)

    def setup(n):
        company = make_company(db, status="client")
        templates = []
        for name in ("From", "To"):
            made = OnboardingTemplate(name=name)
            db.add(made)
            db.flush()
            stage = OnboardingStage(template_id=made.id, name="S", stage_type="kickoff")
            db.add(stage)
            db.flush()
            milestones = [OnboardingMilestone(stage_id=stage.id, title=f"M{i}", sort_order=i,
                                              auto_source="project_created" if i % 2 else None) for i in range(n)]
            db.add_all(milestones)
            db.flush()
            templates.append((made, milestones))
        progress = OnboardingProgress(company_id=company.id, template_id=templates[0][0].id,
                                      started_at=datetime(2026, 3, 1, tzinfo=timezone.utc))
        db.add(progress)
        db.flush()
        db.add_all([MilestoneCompletion(progress_id=progress.id, milestone_id=m.id,
                                        source=m.auto_source or "manual") for m in templates[0][1]])
        db.flush()
        return company.id, templates[1][0].id

    counts = []
    for n in (5, 100):
        company_id, to = setup(n)
        with count_queries() as counter:
            moved = api.put(f"/api/clients/{company_id}/onboarding", as_=exec_user, json={"template_id": to})
        assert moved.status == 200, moved
        assert len(_done(moved.json["onboarding"])) == n // 2
        counts.append(counter.count)
    assert counts[0] == counts[1], counts
