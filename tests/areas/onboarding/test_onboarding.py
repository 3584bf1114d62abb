"""Client onboarding templates (/api/admin/onboarding-templates/client, tool templates) and client onboarding
progress per company (/api/clients/{company_id}/onboarding, tool deals)."""
import pytest
from sqlalchemy import func, select

from tests.areas.deals.factories import make_company
from tests.factories import make_user

BASE = "/api/admin/onboarding-templates/client"


def template(api, user, name="Standard", stages=(("Kickoff", "kickoff", ("Contract signed", "Kickoff call")),
                                               ("Delivery", "delivery", ("First project",)))):
    made = api.post(BASE, as_=user, json={"name": name, "description": "d"})
    assert made.status == 201, made
    tid = made.json["template"]["id"]
    ids = {"template": tid}
    for stage_name, stage_type, milestones in stages:
        stage = api.post(f"{BASE}/{tid}/stages", as_=user, json={"name": stage_name, "stage_type": stage_type,
                                                                 "color": "#fff"})
        assert stage.status == 201, stage
        ids[stage_name] = stage.json["stage"]["id"]
        for title in milestones:
            m = api.post(f"{BASE}/stages/{ids[stage_name]}/milestones", as_=user, json={"title": title})
            assert m.status == 201, m
            ids[title] = m.json["milestone"]["id"]
    return ids


@pytest.mark.smoke
def test_template_structure(api, db, exec_user):
    ids = template(api, exec_user)
    detail = api.get(f"{BASE}/{ids['template']}", as_=exec_user).json
    assert detail["clients_using"] == 0 and detail["template"]["stage_count"] == 2
    assert detail["template"]["milestone_count"] == 3 and detail["template"]["is_default"] == 0
    assert [s["name"] for s in detail["stages"]] == ["Kickoff", "Delivery"]
    assert [s["sort_order"] for s in detail["stages"]] == [0, 1]
    first = detail["stages"][0]["milestones"]
    assert [m["title"] for m in first] == ["Contract signed", "Kickoff call"]
    assert first[0]["is_required"] == 1 and first[0]["auto_source"] is None  # milestone defaults
    stage = api.patch(f"{BASE}/{ids['template']}/stages/{ids['Kickoff']}", as_=exec_user,
                      json={"name": "Start", "sort_order": 5}).json["stage"]
    assert stage["name"] == "Start" and stage["sort_order"] == 5 and len(stage["milestones"]) == 2
    m = api.patch(f"{BASE}/milestones/{ids['Kickoff call']}", as_=exec_user,
                  json={"is_required": False, "auto_source": "deal_won"}).json["milestone"]
    assert m["is_required"] == 0 and m["auto_source"] == "deal_won"
    assert api.post(f"{BASE}/{ids['template']}/stages", as_=exec_user, json={"name": "x"}).status == 400
    assert api.post(f"{BASE}/{ids['template']}/stages", as_=exec_user, json={"name": "x", "stage_type": " "}).status == 400
    assert api.post(f"{BASE}/stages/{ids['Kickoff']}/milestones", as_=exec_user, json={}).status == 400
    assert api.post(f"{BASE}/stages/nope/milestones", as_=exec_user, json={"title": "t"}).status == 404
    other = template(api, exec_user, "Other", stages=(("S", "s", ()),))
    assert api.patch(f"{BASE}/{other['template']}/stages/{ids['Kickoff']}", as_=exec_user, json={"name": "x"}).status == 404
    assert api.delete(f"{BASE}/milestones/{ids['First project']}", as_=exec_user).json == {"ok": True}
    assert api.delete(f"{BASE}/{ids['template']}/stages/{ids['Delivery']}", as_=exec_user).json == {"ok": True}
    assert api.get(f"{BASE}/{ids['template']}", as_=exec_user).json["template"]["stage_count"] == 1
    assert api.get(f"{BASE}/nope", as_=exec_user).status == 404


def test_default_is_exclusive(api, db, exec_user):
    a = template(api, exec_user, "A")["template"]
    b = template(api, exec_user, "B")["template"]
    assert api.patch(f"{BASE}/{a}", as_=exec_user, json={"is_default": True}).json["template"]["is_default"] == 1
    assert api.patch(f"{BASE}/{b}", as_=exec_user, json={"is_default": True}).json["template"]["is_default"] == 1
    listed = {t["id"]: t["is_default"] for t in api.get(BASE, as_=exec_user).json["templates"]}
    assert listed[a] == 0 and listed[b] == 1
    assert api.get(BASE, as_=exec_user).json["templates"][0]["id"] == b  # the default first
    assert api.patch(f"{BASE}/{b}", as_=exec_user, json={"is_default": None}).status == 400


def test_an_inactive_template_is_never_the_default(api, db, exec_user):
    """The active default is what a company's onboarding starts from without a template of its own: a PATCH that
    disables the default clears its flag (as a soft-disabling DELETE does), and an inactive template cannot be
    made the default (400 on is_default). Either left no active default before."""
    a = template(api, exec_user, "A")["template"]
    b = template(api, exec_user, "B")["template"]
    api.patch(f"{BASE}/{a}", as_=exec_user, json={"is_default": True})
    disabled = api.patch(f"{BASE}/{a}", as_=exec_user, json={"is_active": False}).json["template"]
    assert (disabled["is_active"], disabled["is_default"]) == (0, 0)
    refused = api.patch(f"{BASE}/{a}", as_=exec_user, json={"is_default": True})
    assert refused.status == 400 and refused.json["details"][0]["field"] == "is_default"
    both = api.patch(f"{BASE}/{a}", as_=exec_user, json={"is_active": True, "is_default": True}).json["template"]
    assert (both["is_active"], both["is_default"]) == (1, 1)
    assert api.patch(f"{BASE}/{b}", as_=exec_user, json={"is_active": False, "is_default": True}).status == 400
    listed = {t["id"]: (t["is_active"], t["is_default"]) for t in api.get(BASE, as_=exec_user).json["templates"]}
    assert listed == {a: (1, 1), b: (1, 0)}


def test_duplicate_copies_the_structure(api, db, exec_user):
    ids = template(api, exec_user)
    copy = api.post(f"{BASE}/{ids['template']}/duplicate", as_=exec_user)
    assert copy.status == 201 and copy.json["template"]["name"] == "Standard (Copy)"
    detail = api.get(f"{BASE}/{copy.json['template']['id']}", as_=exec_user).json
    assert [(s["name"], [m["title"] for m in s["milestones"]]) for s in detail["stages"]] == [
        ("Kickoff", ["Contract signed", "Kickoff call"]), ("Delivery", ["First project"])]
    assert {s["id"] for s in detail["stages"]}.isdisjoint({ids["Kickoff"], ids["Delivery"]})
    assert api.post(f"{BASE}/nope/duplicate", as_=exec_user).status == 404


def test_duplicate_of_a_long_name_keeps_the_copy_suffix(api, db, exec_user):
    """Document 2: the duplicate is named with ' (Copy)' appended, also for a name of the full 200 characters
    (the source's name is shortened to fit, the suffix is never cut off)."""
    made = api.post(BASE, as_=exec_user, json={"name": "N" * 200}).json["template"]
    copy = api.post(f"{BASE}/{made['id']}/duplicate", as_=exec_user)
    assert copy.status == 201, copy
    name = copy.json["template"]["name"]
    assert name == "N" * 193 + " (Copy)" and len(name) == 200


def test_reorder_moves_milestones_between_stages(api, db, exec_user):
    ids = template(api, exec_user)
    moved = api.patch(f"{BASE}/{ids['template']}/reorder", as_=exec_user, json={
        "stages": [{"id": ids["Kickoff"], "sort_order": 1}, {"id": ids["Delivery"], "sort_order": 0}],
        "milestones": [{"id": ids["Kickoff call"], "stage_id": ids["Delivery"], "sort_order": 0},
                       {"id": ids["First project"], "stage_id": ids["Delivery"], "sort_order": 1}]})
    assert moved.json == {"ok": True}
    detail = api.get(f"{BASE}/{ids['template']}", as_=exec_user).json
    assert [(s["name"], [m["title"] for m in s["milestones"]]) for s in detail["stages"]] == [
        ("Delivery", ["Kickoff call", "First project"]), ("Kickoff", ["Contract signed"])]
    other = template(api, exec_user, "Other")
    bad = api.patch(f"{BASE}/{ids['template']}/reorder", as_=exec_user, json={
        "stages": [{"id": ids["Kickoff"], "sort_order": 0}],
        "milestones": [{"id": ids["Contract signed"], "stage_id": other["Kickoff"], "sort_order": 0}]})
    assert bad.status == 400 and bad.json["details"][0]["field"] == "milestones.0.stage_id"
    after = api.get(f"{BASE}/{ids['template']}", as_=exec_user).json  # nothing changed (atomic)
    assert [s["name"] for s in after["stages"]] == ["Delivery", "Kickoff"]


def test_delete_hard_or_soft(api, db, exec_user):
    from chalicelib.areas.onboarding.models import OnboardingMilestone, OnboardingStage

    unused = template(api, exec_user, "Unused")
    assert api.delete(f"{BASE}/{unused['template']}", as_=exec_user).json == {"ok": True}
    assert api.get(f"{BASE}/{unused['template']}", as_=exec_user).status == 404
    assert db.scalar(select(func.count()).select_from(OnboardingStage)
                     .where(OnboardingStage.id == unused["Kickoff"])) == 0
    assert db.get(OnboardingMilestone, unused["Kickoff call"]) is None
    used = template(api, exec_user, "Used")
    company = make_company(db)
    api.post(f"/api/clients/{company.id}/onboarding", as_=exec_user, json={"template_id": used["template"]})
    detail = api.get(f"{BASE}/{used['template']}", as_=exec_user).json
    assert detail["clients_using"] == 1
    listed = next(t for t in api.get(BASE, as_=exec_user).json["templates"] if t["id"] == used["template"])
    assert listed == detail["template"] and listed["clients_using"] == 1 and listed["stage_count"] > 0
    assert api.delete(f"{BASE}/{used['template']}", as_=exec_user).json == {"ok": True, "soft_disabled": True}
    assert api.get(f"{BASE}/{used['template']}", as_=exec_user).json["template"]["is_active"] == 0


def test_template_permissions(api, db, exec_user, employee):
    ids = template(api, exec_user)
    assert api.get(BASE, as_=employee).status == 200  # templates:view
    assert api.post(BASE, as_=employee, json={"name": "x"}).status == 403
    assert api.patch(f"{BASE}/{ids['template']}", as_=employee, json={"name": "x"}).status == 403
    manager = make_user(db, access_level="manager")  # templates:update, not manage
    assert api.post(f"{BASE}/{ids['template']}/duplicate", as_=manager).status == 201
    assert api.delete(f"{BASE}/{ids['template']}", as_=manager).status == 403
    assert api.delete(f"{BASE}/milestones/{ids['Kickoff call']}", as_=manager).status == 403


def test_template_list_costs_constant_statements(api, db, exec_user, count_queries):
    from chalicelib.areas.onboarding.models import OnboardingMilestone, OnboardingStage, OnboardingTemplate

    counts = []
    for n in (5, 95):
        for i in range(n):
            t = OnboardingTemplate(name=f"T{i}")
            db.add(t)
            db.flush()
            s = OnboardingStage(template_id=t.id, name="S", stage_type="kickoff")
            db.add(s)
            db.flush()
            db.add(OnboardingMilestone(stage_id=s.id, title="M"))
        db.flush()
        with count_queries() as counter:
            answer = api.get(BASE, as_=exec_user)
        assert answer.status == 200 and all(t["milestone_count"] == 1 for t in answer.json["templates"])
        counts.append(counter.count)
    assert len(answer.json["templates"]) == 100 and counts[0] == counts[1], counts


def test_progress_by_hand(api, db, exec_user):
    ids = template(api, exec_user)
    company = make_company(db, status="client")
    path = f"/api/clients/{company.id}/onboarding"
    assert api.get(path, as_=exec_user).json == {"onboarding": None}
    assert api.post(path, as_=exec_user, json={}).status == 400  # no template applies
    api.patch(f"{BASE}/{ids['template']}", as_=exec_user, json={"is_default": True})
    started = api.post(path, as_=exec_user, json={})
    assert started.status == 201, started
    progress = started.json["onboarding"]
    assert progress["template_id"] == ids["template"] and progress["percent_complete"] == 0
    assert progress["current_stage"]["name"] == "Kickoff" and progress["completed_at"] is None
    assert api.post(path, as_=exec_user, json={}).status == 409
    done = api.post(f"{path}/milestones/{ids['Contract signed']}/complete", as_=exec_user).json["onboarding"]
    assert done["percent_complete"] == 33 and done["stages"][0]["milestones"][0]["source"] == "manual"
    api.post(f"{path}/milestones/{ids['Kickoff call']}/complete", as_=exec_user)
    done = api.post(f"{path}/milestones/{ids['Kickoff call']}/complete", as_=exec_user).json["onboarding"]
    assert done["percent_complete"] == 66 and done["current_stage"]["name"] == "Delivery"
    done = api.post(f"{path}/milestones/{ids['First project']}/complete", as_=exec_user).json["onboarding"]
    assert done["percent_complete"] == 100 and done["current_stage"] is None and done["completed_at"]
    reopened = api.delete(f"{path}/milestones/{ids['First project']}/complete", as_=exec_user).json["onboarding"]
    assert reopened["completed_at"] is None and reopened["percent_complete"] == 66
    other = template(api, exec_user, "Other")
    assert api.post(f"{path}/milestones/{other['Kickoff call']}/complete", as_=exec_user).status == 404
    assert api.get("/api/clients/nope/onboarding", as_=exec_user).status == 404


def test_profile_template_and_auto_sources(api, db, exec_user):
    default = template(api, exec_user, "Default")
    api.patch(f"{BASE}/{default['template']}", as_=exec_user, json={"is_default": True})
    chosen = template(api, exec_user, "Chosen")
    api.patch(f"{BASE}/milestones/{chosen['Contract signed']}", as_=exec_user, json={"auto_source": "deal_won"})
    api.patch(f"{BASE}/milestones/{chosen['First project']}", as_=exec_user, json={"auto_source": "project_created"})
    company = api.post("/api/deals/companies", as_=exec_user, json={"name": "Acme", "status": "client"}).json["company"]
    api.put(f"/api/clients/{company['id']}/profile", as_=exec_user, json={"onboarding_template_id": chosen["template"]})
    # projects call this area on create: project_created completes, the onboarding starts from the profile's template
    assert api.post("/api/projects", as_=exec_user, json={"name": "P", "company_id": company["id"]}).status == 201
    progress = api.get(f"/api/clients/{company['id']}/onboarding", as_=exec_user).json["onboarding"]
    assert progress["template_id"] == chosen["template"]
    done = {m["title"]: m["source"] for s in progress["stages"] for m in s["milestones"] if m["completed_at"]}
    assert done == {"First project": "project_created"}
    # a proposal's acceptance completes deal_won
    from tests.areas.proposals.factories import sent
    pid = sent(api, exec_user, company_id=company["id"])
    token = api.put(f"/api/proposals/{pid}/share", as_=exec_user, json={"share_enabled": True}).json["share_token"]
    assert api.post(f"/api/proposals/public/{token}/accept", json={"name": "A", "email": "a@b.co"}).status == 200
    progress = api.get(f"/api/clients/{company['id']}/onboarding", as_=exec_user).json["onboarding"]
    done = {m["title"]: m["source"] for s in progress["stages"] for m in s["milestones"] if m["completed_at"]}
    assert done == {"First project": "project_created", "Contract signed": "deal_won"}
    assert progress["percent_complete"] == 66
    # a company with no onboarding yet starts from the default template
    other = make_company(db)
    from chalicelib.areas.onboarding import service as onboarding_service
    from chalicelib.core.context import job_context
    with job_context() as ctx:
        assert onboarding_service.auto_complete(ctx, company_id=other.id, source="deal_won") == 0
    assert api.get(f"/api/clients/{other.id}/onboarding", as_=exec_user).json["onboarding"]["template_id"] == default["template"]


def test_first_invoice_completes_its_milestone_once(api, db, exec_user):
    from chalicelib.areas.onboarding.models import MilestoneCompletion

    ids = template(api, exec_user, "Invoiced", stages=(("Billing", "billing", ("First invoice", "Paid")),))
    api.patch(f"{BASE}/{ids['template']}", as_=exec_user, json={"is_default": True})
    api.patch(f"{BASE}/milestones/{ids['First invoice']}", as_=exec_user, json={"auto_source": "first_invoice"})
    company = make_company(db, status="client")
    path = f"/api/clients/{company.id}/onboarding"
    # an invoice without a company completes nothing
    assert api.post("/api/invoices", as_=exec_user, json={}).status == 201
    assert api.get(path, as_=exec_user).json == {"onboarding": None}
    first = api.post("/api/invoices", as_=exec_user, json={"company_id": company.id})
    assert first.status == 201, first
    progress = api.get(path, as_=exec_user).json["onboarding"]  # started from the default template
    done = {m["title"]: m["source"] for s in progress["stages"] for m in s["milestones"] if m["completed_at"]}
    assert done == {"First invoice": "first_invoice"} and progress["percent_complete"] == 50
    # reopened by hand, a second invoice does not complete it again: only the first invoice counts
    api.delete(f"{path}/milestones/{ids['First invoice']}/complete", as_=exec_user)
    assert api.post("/api/invoices", as_=exec_user, json={"company_id": company.id}).status == 201
    progress = api.get(path, as_=exec_user).json["onboarding"]
    assert progress["percent_complete"] == 0
    assert db.scalar(select(func.count()).select_from(MilestoneCompletion)) == 0


def test_a_profile_names_only_an_existing_template(api, db, exec_user):
    """The foreign key of onboarding_0002: a profile naming no template is a 400 naming the field (from the
    database's answer, mapped by the core), nothing changed; an existing template is kept."""
    chosen = template(api, exec_user, "Chosen")
    company = api.post("/api/deals/companies", as_=exec_user, json={"name": "Acme", "status": "client"}).json["company"]
    path = f"/api/clients/{company['id']}/profile"
    refused = api.put(path, as_=exec_user, json={"onboarding_template_id": "no-such-template", "client_group": "G"})
    assert refused.status == 400, refused
    if db.get_bind().dialect.name == "postgresql":  # SQLite's error names no column
        assert refused.json["details"] == [{"field": "onboarding_template_id",
                                            "message": "no onboarding_templates record has this id"}]
    profile = api.get(path, as_=exec_user).json["profile"]
    assert (profile["onboarding_template_id"], profile["client_group"]) == (None, None)
    kept = api.put(path, as_=exec_user, json={"onboarding_template_id": chosen["template"]})
    assert kept.status == 200, kept
    assert kept.json["profile"]["onboarding_template_id"] == chosen["template"]


def test_a_template_holds_at_most_500_stages_and_500_milestones(api, db, exec_user):
    """decisions.md section 4: a list answers at most 500 rows. A template's detail lists its stages and their
    milestones in full, so the cap is kept on write: a 501st stage or milestone of a template is a 409."""
    from chalicelib.areas.onboarding.models import OnboardingMilestone, OnboardingStage
    from chalicelib.core.locks import insert_rows

    ids = template(api, exec_user, stages=(("Kickoff", "kickoff", ("Contract signed",)),))
    tid = ids["template"]
    insert_rows(db, OnboardingStage, [{"template_id": tid, "name": f"S{i}", "stage_type": "delivery",
                                       "sort_order": i + 1} for i in range(499)])
    refused = api.post(f"{BASE}/{tid}/stages", as_=exec_user, json={"name": "One more", "stage_type": "x"})
    assert refused.status == 409, refused
    insert_rows(db, OnboardingMilestone, [{"stage_id": ids["Kickoff"], "title": f"M{i}", "sort_order": i + 1}
                                          for i in range(499)])
    last_stage = db.scalar(select(OnboardingStage.id).where(OnboardingStage.template_id == tid,
                                                            OnboardingStage.name == "S5"))
    refused = api.post(f"{BASE}/stages/{last_stage}/milestones", as_=exec_user, json={"title": "One more"})
    assert refused.status == 409, refused
    detail = api.get(f"{BASE}/{tid}", as_=exec_user).json
    assert len(detail["stages"]) == 500 and detail["template"]["milestone_count"] == 500
    # room again after a delete; another template is not limited by this one
    assert api.delete(f"{BASE}/milestones/{ids['Contract signed']}", as_=exec_user).json == {"ok": True}
    assert api.post(f"{BASE}/stages/{last_stage}/milestones", as_=exec_user, json={"title": "Now"}).status == 201
    other = template(api, exec_user, "Other", stages=(("S", "s", ("M",)),))
    assert api.post(f"{BASE}/{other['template']}/stages", as_=exec_user,
                    json={"name": "x", "stage_type": "x"}).status == 201


def test_onboarding_progress_carries_its_id(api, db, exec_user):
    """decisions.md section 9: every record in a response carries its id; the progress (a row of
    onboarding_progress) was answered without it (conformance audit)."""
    from chalicelib.areas.onboarding.models import OnboardingProgress
    from tests.areas.deals.factories import make_company

    ids = template(api, exec_user)
    company = make_company(db, status="client")
    path = f"/api/clients/{company.id}/onboarding"
    started = api.post(path, as_=exec_user, json={"template_id": ids["template"]})
    assert started.status == 201, started
    row_id = db.scalar(select(OnboardingProgress.id).where(OnboardingProgress.company_id == company.id))
    assert started.json["onboarding"]["id"] == row_id
    assert api.get(path, as_=exec_user).json["onboarding"]["id"] == row_id


def test_completed_at_follows_a_required_milestone_added_since(api, db, exec_user):
    """docs/decisions/onboarding.md: completed_at is set when every required milestone is done. A required milestone
    added to the template of a completed onboarding reopens it: completed_at stayed set beside a percent of 50 and a
    current stage (client areas audit). Completing the new one completes it again."""
    from tests.areas.deals.factories import make_company

    ids = template(api, exec_user, "Small", stages=(("Kickoff", "kickoff", ("Signed",)),))
    company = make_company(db, status="client")
    path = f"/api/clients/{company.id}/onboarding"
    assert api.post(path, as_=exec_user, json={"template_id": ids["template"]}).status == 201
    done = api.post(f"{path}/milestones/{ids['Signed']}/complete", as_=exec_user).json["onboarding"]
    assert done["completed_at"] is not None and done["percent_complete"] == 100
    added = api.post(f"{BASE}/stages/{ids['Kickoff']}/milestones", as_=exec_user, json={"title": "Kickoff call"})
    assert added.status == 201, added
    progress = api.get(path, as_=exec_user).json["onboarding"]
    assert (progress["percent_complete"], progress["completed_at"]) == (50, None)
    assert progress["current_stage"]["id"] == ids["Kickoff"]
    again = api.post(f"{path}/milestones/{added.json['milestone']['id']}/complete", as_=exec_user).json["onboarding"]
    assert again["percent_complete"] == 100 and again["completed_at"] is not None
