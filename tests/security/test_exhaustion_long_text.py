"""Free text without a maximum in the tasks and projects areas (security audit S6, resource exhaustion).

A task's description, requirements, scope, delivery and testing notes, and a project's description and metadata,
take any length the body holds (a Lambda takes 6 MB). Every list carries them whole: two tasks whose description is
3.5 MB, written by one employee in two requests and assigned to a colleague, make the colleague's task list (and
every executive's) answer 7 MB, past the 6 MB a Lambda may answer: API Gateway then answers 502 to each of them
until someone shortens the descriptions. Two project descriptions do the same to the project list (measured:
10.5 MB), and each 3.5 MB value goes into the project's AI summary prompt too. Other areas bound
their free text (action items, calendar: Text(20000)); these do not.
"""

from tests.areas.projects.factories import make_project
from tests.factories import make_user

LAMBDA_RESPONSE_LIMIT = 6 * 1024 * 1024
HUGE = "x" * (3_500_000)


def test_an_employee_cannot_push_a_shared_task_list_past_the_response_limit(api, db):
    attacker = make_user(db, access_level="employee")
    colleague = make_user(db, access_level="employee")
    project = make_project(db, members=[attacker, colleague])
    # assigned to the colleague: the tasks are in the colleague's list (docs/decisions/tasks.md scoping)
    where = {"resource_type": "project", "resource_id": project.id, "assignee_id": colleague.id}

    answers = [api.post("/api/tasks", as_=attacker, json={"title": f"Spec {n}", "description": HUGE, **where})
               for n in range(2)]
    for field in ("requirements", "scope", "delivery_notes", "testing_notes"):
        answers.append(api.post("/api/tasks", as_=attacker, json={"title": field, field: HUGE, **where}))

    listed = api.get(f"/api/tasks?resource_type=project&resource_id={project.id}", as_=colleague)
    size = len(listed.body)
    assert listed.status == 200 and size < LAMBDA_RESPONSE_LIMIT, f"the list answers {size:,} bytes"
    assert [answer.status for answer in answers] == [400] * 6


def test_an_employee_cannot_push_the_project_list_past_the_response_limit(api, db):
    attacker = make_user(db, access_level="employee")
    colleague = make_user(db, access_level="employee")
    projects = [make_project(db, members=[attacker, colleague]) for _ in range(2)]

    answers = [api.put(f"/api/projects/{project.id}", as_=attacker, json={"description": HUGE, "metadata": "y"})
               for project in projects]
    answers.append(api.put(f"/api/projects/{projects[0].id}", as_=attacker, json={"metadata": HUGE}))

    listed = api.get("/api/projects", as_=colleague)
    size = len(listed.body)
    assert listed.status == 200 and size < LAMBDA_RESPONSE_LIMIT, f"the list answers {size:,} bytes"
    assert [answer.status for answer in answers] == [400] * 3
