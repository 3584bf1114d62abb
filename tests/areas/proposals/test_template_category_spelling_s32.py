"""The templates' `category` filter in another letter case (session 32, "the same thing written two ways" audit).

A template's category is a free label kept as written ("Web Design"); the list's `category` filter compared it
exactly, so `?category=web design` found nothing while the list showed the category, and templates filed as
"Retainer" and "retainer" could not be listed together. The filter now ignores letter case, as the list's order of
names does (docs/decisions/proposals.md)."""


def _template(api, user, name, category):
    made = api.post("/api/proposals/templates", as_=user, json={"name": name, "category": category})
    assert made.status == 201, made.json
    return made.json["id"]


def test_the_category_filter_ignores_letter_case(api, db, exec_user):
    web = _template(api, exec_user, "Shop", "Web Design")
    web_too = _template(api, exec_user, "Blog", "web design")
    _template(api, exec_user, "Audit", "SEO")
    listed = api.get("/api/proposals/templates?category=WEB%20DESIGN", as_=exec_user)
    assert listed.status == 200, listed.json
    assert sorted(t["id"] for t in listed.json["templates"]) == sorted([web, web_too])
    assert listed.json["total"] == 2
    shown = {t["category"] for t in listed.json["templates"]}
    assert shown == {"Web Design", "web design"}  # each kept as written
