"""Onboarding: every list a route answers costs the same statements at 5 and at 100 rows (docs/area-contract.md,
"Reads"). The template list is tested in test_onboarding.py."""
from datetime import datetime, timezone

from chalicelib.areas.onboarding.models import (MilestoneCompletion, OnboardingMilestone, OnboardingProgress,
                                                OnboardingStage, OnboardingTemplate)
from tests.areas.portal.conftest import make_client
from tests.factories import assert_constant, make_user

BASE = "/api/admin/onboarding-templates/client"


def _stages(db, template, n, progress=None):
    """n stages of two milestones each (the first completed when `progress` is given)."""
    for index in range(n):
        stage = OnboardingStage(template_id=template.id, name=f"S{index}", stage_type="kickoff", sort_order=index)
        db.add(stage)
        db.flush()
        first, second = (OnboardingMilestone(stage_id=stage.id, title="M1"),
                         OnboardingMilestone(stage_id=stage.id, title="M2", sort_order=1))
        db.add_all([first, second])
        db.flush()
        if progress is not None:
            db.add(MilestoneCompletion(progress_id=progress.id, milestone_id=first.id, completed_by=make_user(db).id))
    db.flush()


def test_template_detail_stages_and_milestones(api, db, exec_user, count_queries):
    template = OnboardingTemplate(name="T")
    db.add(template)
    db.flush()
    body = assert_constant(api, count_queries, exec_user, f"{BASE}/{template.id}",
                           lambda n: _stages(db, template, n), lambda b: len(b["stages"]))
    assert all(len(s["milestones"]) == 2 for s in body["stages"])


def test_client_progress_stages_and_milestones(api, db, exec_user, count_queries):
    company = make_client(db)
    template = OnboardingTemplate(name="T")
    db.add(template)
    db.flush()
    progress = OnboardingProgress(company_id=company.id, template_id=template.id,
                                  started_at=datetime(2026, 3, 1, tzinfo=timezone.utc))
    db.add(progress)
    db.flush()
    body = assert_constant(api, count_queries, exec_user, f"/api/clients/{company.id}/onboarding",
                           lambda n: _stages(db, template, n, progress), lambda b: len(b["onboarding"]["stages"]))
    assert all(s["milestones"][0]["completed_by"] for s in body["onboarding"]["stages"])
