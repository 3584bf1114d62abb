"""A squad's e-mail group is one address (session 28's provider-limits audit): only an "@" was asked of it, so
"a@x.test, b@y.test" was kept and the delivery's address parsing sent to the first alone, dropping the second."""
from tests.factories import make_squad, make_user


def test_a_list_of_addresses_is_refused_and_one_address_or_blank_is_taken(api, db):
    squad = make_squad(db)
    executive = make_user(db, access_level="executive")
    path = f"/api/notifications/squads/{squad.id}/config"
    refused = api.put(path, as_=executive, json={"config": [
        {"notification_type": "squad_broadcast", "email_group": "a@agency.test, b@agency.test"}]})
    assert refused.status == 400, refused
    assert "email_group" in refused.json["details"][0]["field"]
    assert api.put(path, as_=executive, json={"config": [
        {"notification_type": "squad_broadcast", "email_group": " team@agency.test "}]}).status == 200
    assert api.put(path, as_=executive, json={"config": [
        {"notification_type": "squad_broadcast", "email_group": "  "}]}).status == 200
    config = {c["notification_type"]: c for c in api.get(path, as_=executive).json["config"]}
    assert config["squad_broadcast"]["email_group"] is None
