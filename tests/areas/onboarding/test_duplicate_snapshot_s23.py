"""Session 23: a template's duplicate copies one state of its structure. It read the stages and then, in a second
statement, their milestones; under READ COMMITTED a reorder committed between the two (stages' order swapped, a
milestone moved to another stage) gave a copy of neither state: the old stage order with the new milestone
placement (docs/decisions/onboarding.md, session 23).

The reorder is committed by a second connection at the exact moment the duplicate's first statement reading the
stages has run (an after_cursor_execute listener on the request's connection), so the test is deterministic. The
template it reorders is committed for that connection to see, and removed at the end."""
from __future__ import annotations

import pytest
from sqlalchemy import event, text

from chalicelib.areas.onboarding.models import OnboardingMilestone, OnboardingStage, OnboardingTemplate
from chalicelib.core.ids import new_id

BASE = "/api/admin/onboarding-templates/client"

pytestmark = pytest.mark.skipif(__import__("os").environ.get("WMS_TEST_DB") == "sqlite",
                                reason="two connections meeting in Postgres")


@pytest.fixture
def committed_template(engine):
    """A template committed outside the test's transaction: stages S1 (order 0) holding M1, S2 (order 1) holding M2."""
    from sqlalchemy.orm import Session

    ids = {"template": new_id(), "S1": new_id(), "S2": new_id(), "M1": new_id(), "M2": new_id()}
    with engine.connect() as conn, Session(bind=conn) as session:
        session.add(OnboardingTemplate(id=ids["template"], name="Snapshot"))
        session.flush()
        session.add_all([OnboardingStage(id=ids["S1"], template_id=ids["template"], name="S1", stage_type="kickoff",
                                         sort_order=0),
                         OnboardingStage(id=ids["S2"], template_id=ids["template"], name="S2", stage_type="delivery",
                                         sort_order=1)])
        session.flush()
        session.add_all([OnboardingMilestone(id=ids["M1"], stage_id=ids["S1"], title="M1", sort_order=0),
                         OnboardingMilestone(id=ids["M2"], stage_id=ids["S2"], title="M2", sort_order=0)])
        session.commit()
    yield ids
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM onboarding_templates WHERE id = :id"), {"id": ids["template"]})


def _reorder_elsewhere(engine, ids) -> None:
    """What a reorder writes (the service's two UPDATEs), committed by another connection: the stages swap places and
    M1 moves to S2, after M2."""
    with engine.begin() as conn:
        conn.execute(text("UPDATE onboarding_stages SET sort_order = CASE id WHEN :s1 THEN 1 ELSE 0 END "
                          "WHERE id IN (:s1, :s2)"), {"s1": ids["S1"], "s2": ids["S2"]})
        conn.execute(text("UPDATE onboarding_milestones SET stage_id = :s2, sort_order = 1 WHERE id = :m1"),
                     {"s2": ids["S2"], "m1": ids["M1"]})


def _structure(api, user, template_id):
    stages = api.get(f"{BASE}/{template_id}", as_=user).json["stages"]
    return [(s["name"], [m["title"] for m in s["milestones"]]) for s in stages]


def test_a_reorder_committed_during_a_duplicate_does_not_mix_into_the_copy(api, db, exec_user, engine,
                                                                           db_connection, committed_template):
    ids = committed_template
    before = [("S1", ["M1"]), ("S2", ["M2"])]
    after = [("S2", ["M2", "M1"]), ("S1", [])]
    assert _structure(api, exec_user, ids["template"]) == before
    fired = []

    def between(conn, cursor, statement, parameters, context, executemany):
        # the request's connection (the test's), its first statement reading the source's stages: a reorder
        # commits right after it
        if fired or conn is not db_connection or not statement.lstrip().upper().startswith("SELECT"):
            return
        if "FROM onboarding_stages" in statement and ids["template"] in str(parameters):
            fired.append(statement)
            _reorder_elsewhere(engine, ids)

    event.listen(engine, "after_cursor_execute", between)
    try:
        copy = api.post(f"{BASE}/{ids['template']}/duplicate", as_=exec_user)
    finally:
        event.remove(engine, "after_cursor_execute", between)
    assert copy.status == 201, copy
    assert fired, "the duplicate read no stage of the source"
    assert _structure(api, exec_user, ids["template"]) == after  # the reorder did commit
    copied = _structure(api, exec_user, copy.json["template"]["id"])
    assert copied in (before, after), copied  # one state of the source, not a mix of both
