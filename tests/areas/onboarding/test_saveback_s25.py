"""Session 25 (save-back audit): a stage's or a milestone's PATCH that changes nothing (the record sent back as read)
records no history entry and keeps the row's updated_at; a real change records `stage_updated` /
`milestone_updated` with the changed fields only, each as `{"from", "to"}` (as the template's own update)."""
from sqlalchemy import select

from chalicelib.areas.onboarding.models import OnboardingMilestone, OnboardingStage
from chalicelib.areas.onboarding.service import ENTITY
from chalicelib.core.models import HistoryEntry
from tests.areas.onboarding.test_onboarding import BASE, template

STAGE_KEYS = ("name", "stage_type", "description", "color", "sort_order")
MILESTONE_KEYS = ("title", "description", "is_required", "auto_source", "sort_order")


def _entries(db, template_id, action):
    return [e.changes for e in db.scalars(select(HistoryEntry).where(
        HistoryEntry.entity_type == ENTITY, HistoryEntry.entity_id == template_id, HistoryEntry.action == action)
        .order_by(HistoryEntry.created_at, HistoryEntry.id))]


def _updated_at(db, model, row_id):
    db.expire_all()
    return db.get(model, row_id).updated_at


def _stage(api, user, ids):
    detail = api.get(f"{BASE}/{ids['template']}", as_=user).json
    return detail["stages"][0]


def test_a_no_op_stage_patch_records_nothing_and_keeps_updated_at(api, db, exec_user):
    ids = template(api, exec_user)
    tid, stage = ids["template"], _stage(api, exec_user, ids)
    stamp = _updated_at(db, OnboardingStage, stage["id"])
    answer = api.patch(f"{BASE}/{tid}/stages/{stage['id']}", as_=exec_user, json={k: stage[k] for k in STAGE_KEYS})
    assert answer.status == 200, answer
    assert answer.json["stage"] == stage
    assert (_entries(db, tid, "stage_updated"), _updated_at(db, OnboardingStage, stage["id"])) == ([], stamp)


def test_a_stage_patch_records_the_diff(api, db, exec_user):
    ids = template(api, exec_user)
    tid, stage = ids["template"], _stage(api, exec_user, ids)
    stamp = _updated_at(db, OnboardingStage, stage["id"])
    sent = {**{k: stage[k] for k in STAGE_KEYS}, "name": "Start", "description": "new"}
    answer = api.patch(f"{BASE}/{tid}/stages/{stage['id']}", as_=exec_user, json=sent)
    assert answer.status == 200 and answer.json["stage"]["name"] == "Start", answer
    assert _entries(db, tid, "stage_updated") == [{"stage_id": stage["id"], "name": {"from": "Kickoff", "to": "Start"},
                                                   "description": {"from": None, "to": "new"}}]
    assert _updated_at(db, OnboardingStage, stage["id"]) > stamp


def test_a_no_op_milestone_patch_records_nothing_and_keeps_updated_at(api, db, exec_user):
    ids = template(api, exec_user)
    tid, milestone = ids["template"], _stage(api, exec_user, ids)["milestones"][0]
    stamp = _updated_at(db, OnboardingMilestone, milestone["id"])
    answer = api.patch(f"{BASE}/milestones/{milestone['id']}", as_=exec_user,
                       json={k: milestone[k] for k in MILESTONE_KEYS})
    assert answer.status == 200, answer
    assert answer.json["milestone"] == milestone
    assert (_entries(db, tid, "milestone_updated"), _updated_at(db, OnboardingMilestone, milestone["id"])) == ([], stamp)


def test_a_milestone_patch_records_the_diff(api, db, exec_user):
    ids = template(api, exec_user)
    tid, milestone = ids["template"], _stage(api, exec_user, ids)["milestones"][0]
    stamp = _updated_at(db, OnboardingMilestone, milestone["id"])
    sent = {**{k: milestone[k] for k in MILESTONE_KEYS}, "is_required": False, "auto_source": "deal_won"}
    answer = api.patch(f"{BASE}/milestones/{milestone['id']}", as_=exec_user, json=sent)
    assert answer.status == 200 and answer.json["milestone"]["is_required"] == 0, answer
    assert _entries(db, tid, "milestone_updated") == [{"milestone_id": milestone["id"],
                                                       "is_required": {"from": True, "to": False},
                                                       "auto_source": {"from": None, "to": "deal_won"}}]
    assert _updated_at(db, OnboardingMilestone, milestone["id"]) > stamp


def test_a_no_op_template_patch_keeps_updated_at(api, db, exec_user):
    """The template itself too (it recorded no entry for a no-op, but moved updated_at)."""
    from chalicelib.areas.onboarding.models import OnboardingTemplate

    ids = template(api, exec_user)
    tid = ids["template"]
    read = api.get(f"{BASE}/{tid}", as_=exec_user).json["template"]
    stamp = _updated_at(db, OnboardingTemplate, tid)
    body = {k: read[k] for k in ("name", "description", "is_default", "is_active")}
    answer = api.patch(f"{BASE}/{tid}", as_=exec_user, json=body)
    assert answer.status == 200, answer.json
    assert (_entries(db, tid, "updated"), _updated_at(db, OnboardingTemplate, tid)) == ([], stamp)
    renamed = api.patch(f"{BASE}/{tid}", as_=exec_user, json={**body, "name": "Renamed"})
    assert renamed.status == 200 and _updated_at(db, OnboardingTemplate, tid) > stamp
    assert _entries(db, tid, "updated")[-1] == {"name": {"from": read["name"], "to": "Renamed"}}
