"""Session 29 (decisions versus code audit): docs/decisions/onboarding.md says "completed_at is set when every required
milestone is done". An onboarding completed once, then given a new required milestone (its GET answers completed_at
null, the template as it is now), and then completed again by that milestone, answered its first completion time:
the stored time was kept because it was set, so completed_at came before the completion that finished it."""
import time

from tests.areas.deals.factories import make_company
from tests.areas.onboarding.test_onboarding import BASE, template


def _finished_once(api, db, exec_user, name: str):
    """A client's onboarding from a template of one stage and one milestone ("Signed"), that milestone completed:
    (the template's ids, the company, the onboarding's path, its record once finished)."""
    ids = template(api, exec_user, name, stages=(("Kickoff", "kickoff", ("Signed",)),))
    company = make_company(db, status="client")
    path = f"/api/clients/{company.id}/onboarding"
    assert api.post(path, as_=exec_user, json={"template_id": ids["template"]}).status == 201
    first = api.post(f"{path}/milestones/{ids['Signed']}/complete", as_=exec_user).json["onboarding"]
    return ids, company, path, first


def test_completed_again_after_a_new_required_milestone_is_completed_at_that_completion(api, db, exec_user):
    ids, company, path, first = _finished_once(api, db, exec_user, "Short")
    assert first["percent_complete"] == 100 and first["completed_at"] is not None
    added = api.post(f"{BASE}/stages/{ids['Kickoff']}/milestones", as_=exec_user, json={"title": "Call"})
    assert added.status == 201, added
    reopened = api.get(path, as_=exec_user).json["onboarding"]
    assert reopened["completed_at"] is None and reopened["percent_complete"] == 50
    time.sleep(1.1)  # timestamps to the second apart at least
    done = api.post(f"{path}/milestones/{added.json['milestone']['id']}/complete", as_=exec_user)
    assert done.status == 200, done
    record = done.json["onboarding"]
    call = next(m for s in record["stages"] for m in s["milestones"] if m["title"] == "Call")
    assert record["percent_complete"] == 100
    assert record["completed_at"] == call["completed_at"], (record["completed_at"], call["completed_at"])
    assert record["completed_at"] > first["completed_at"]
    assert api.get(path, as_=exec_user).json["onboarding"]["completed_at"] == call["completed_at"]
    # completing a milestone that does not count (optional beside required ones) keeps the time
    optional = api.post(f"{BASE}/stages/{ids['Kickoff']}/milestones", as_=exec_user,
                        json={"title": "Nice to have", "is_required": False}).json["milestone"]
    later = api.post(f"{path}/milestones/{optional['id']}/complete", as_=exec_user).json["onboarding"]
    assert later["completed_at"] == call["completed_at"]


def test_auto_completion_that_finishes_again_is_completed_at_that_completion(api, db, exec_user):
    ids, company, path, first = _finished_once(api, db, exec_user, "Auto")
    assert first["completed_at"] is not None
    won = api.post(f"{BASE}/stages/{ids['Kickoff']}/milestones", as_=exec_user,
                   json={"title": "Won", "auto_source": "deal_won"})
    assert won.status == 201
    assert api.get(path, as_=exec_user).json["onboarding"]["completed_at"] is None
    time.sleep(1.1)
    # the deal is won through the deals area's write path (auto_complete `deal_won`)
    deal = api.post("/api/deals/deals", as_=exec_user, json={"title": "D", "company_id": company.id})
    assert deal.status == 201, deal
    moved = api.put(f"/api/deals/deals/{deal.json['deal']['id']}", as_=exec_user, json={"status": "won"})
    assert moved.status == 200, moved
    record = api.get(path, as_=exec_user).json["onboarding"]
    completion = next(m for s in record["stages"] for m in s["milestones"] if m["title"] == "Won")
    assert completion["completed_at"] is not None and record["percent_complete"] == 100
    assert record["completed_at"] == completion["completed_at"], (record["completed_at"], completion)


def test_a_milestone_given_a_fired_source_that_finishes_again_is_completed_at_that_completion(api, db, exec_user):
    """The session-28 path: a milestone created with a source that already fired is completed at once; when that
    finishes an onboarding completed before, completed_at is that completion's time, not the first one's."""
    ids = template(api, exec_user, "Fired", stages=(("Kickoff", "kickoff", ("Signed",)),))
    company = make_company(db, status="client")
    path = f"/api/clients/{company.id}/onboarding"
    assert api.post(path, as_=exec_user, json={"template_id": ids["template"]}).status == 201
    deal = api.post("/api/deals/deals", as_=exec_user, json={"title": "D", "company_id": company.id}).json["deal"]
    assert api.put(f"/api/deals/deals/{deal['id']}", as_=exec_user, json={"status": "won"}).status == 200
    first = api.post(f"{path}/milestones/{ids['Signed']}/complete", as_=exec_user).json["onboarding"]
    assert first["completed_at"] is not None
    time.sleep(1.1)
    won = api.post(f"{BASE}/stages/{ids['Kickoff']}/milestones", as_=exec_user,
                   json={"title": "Won", "auto_source": "deal_won"})
    assert won.status == 201, won
    record = api.get(path, as_=exec_user).json["onboarding"]
    completion = next(m for s in record["stages"] for m in s["milestones"] if m["title"] == "Won")
    assert completion["completed_at"] is not None and record["percent_complete"] == 100
    assert record["completed_at"] >= completion["completed_at"] > first["completed_at"], (record, first)
