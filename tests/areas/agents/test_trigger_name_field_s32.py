"""Session 32, audit "error bodies that name the wrong field": a trigger name that is not letters, digits, `_ . -`
is a 400 naming the route's path parameter as the route spells it (`trigger_name`, in the OpenAPI document); it
named `name`, no parameter of the route."""


def test_a_bad_trigger_name_names_the_path_parameter(api, exec_user):
    answer = api.post("/api/business-agents/reporting/trigger/bad%20name", as_=exec_user)
    assert answer.status == 400 and [d["field"] for d in answer.json["details"]] == ["trigger_name"], answer.json
