"""Staff routes that call a paid provider have no allowance (security audit S6, resource exhaustion).

The portal's ask counts 30 questions an hour per company (docs/decisions/portal.md); the staff routes that spend
the agency's money on each call count nothing, so one caller can spend without bound, in a loop:

- POST /api/projects/{id}/ai-summary: an AI request whose prompt holds the project and up to 500 task titles,
  open to anyone who may *view* the project (projects:view);
- POST /api/pages/ai/command: an AI request (up to about 60,000 characters once its inputs are bounded), any
  employee with pages:update;
- POST /api/relationships/contacts/{id}/messages: an SMS/MMS/WhatsApp message through Twilio (up to 1,600
  characters, about 11 billed segments) to a number the same employee may set on the contact, with the opt-in
  flag the same employee may set: toll fraud to premium numbers at the agency's expense;
- POST /api/deals/companies/{id}/enrich?force=true: a People Data Labs credit each time (force skips the 24-hour
  guard), any employee with deals:update.

Each test asks 101 times within a minute and expects a 429 before the end: any allowance of at most 100 an hour
per user (or per company, contact, project) passes.
"""

from tests.areas.deals.factories import make_company, make_contact
from tests.areas.projects.factories import make_project
from tests.factories import make_user

ATTEMPTS = 101


def _refused(send) -> bool:
    """Whether one of ATTEMPTS calls is refused with 429; any other failure stops the test."""
    for _ in range(ATTEMPTS):
        answer = send()
        if answer.status == 429:
            return True
        assert answer.status in (200, 201), answer
    return False


def test_a_project_viewer_cannot_request_ai_summaries_without_limit(api, db):
    viewer = make_user(db, access_level="employee")
    project = make_project(db, members=[viewer])
    assert _refused(lambda: api.post(f"/api/projects/{project.id}/ai-summary", as_=viewer))


def test_an_employee_cannot_run_ai_commands_without_limit(api, db):
    user = make_user(db, access_level="employee")
    body = {"ctx": {"children": [{"type": "p", "children": [{"text": "Hello"}]}]},
            "messages": [{"role": "user", "parts": [{"type": "text", "text": "write an intro"}]}]}
    assert _refused(lambda: api.post("/api/pages/ai/command", as_=user, json=body))


def test_an_employee_cannot_send_paid_messages_without_limit(api, db):
    user = make_user(db, access_level="employee")
    contact = make_contact(db)
    # the employee sets the number (any E.164 number, a premium one too) and the opt-in themselves
    profile = api.patch(f"/api/relationships/contacts/{contact.id}/relationship", as_=user,
                        json={"phone_number": "+61412345678", "sms_opt_in": True})
    assert profile.status == 200, profile
    body = {"channel": "sms", "body": "x" * 1600}
    assert _refused(lambda: api.post(f"/api/relationships/contacts/{contact.id}/messages", as_=user, json=body))


def test_an_employee_cannot_spend_enrichment_credits_without_limit(api, db):
    user = make_user(db, access_level="employee")
    company = make_company(db, name="Acme Homewares", domain="acme.com.au")
    assert _refused(lambda: api.post(f"/api/deals/companies/{company.id}/enrich?force=true", as_=user))
