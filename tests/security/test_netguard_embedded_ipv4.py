"""IPv6 addresses that stand for an IPv4 one (6to4, Teredo, NAT64) are judged by the IPv4 address they reach: Python
counts them global whatever they embed, so a research fetch or a push endpoint of `64:ff9b::a9fe:a9fe` reached the
metadata service through a NAT64 gateway (session 22's injection audit)."""
import pytest

from chalicelib.core import netguard
from chalicelib.providers.runner.base import runner_host_problem
from tests.areas.notifications.factories import AUTH, P256DH
from tests.conftest import RESOLVES
from tests.factories import grant, make_user

INTERNAL = ["64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
            "64:ff9b::a00:5",  # NAT64 of 10.0.0.5
            "64:ff9b:1::a00:5",  # a local-use NAT64 prefix (RFC 8215): refused whatever it embeds
            "2002:a9fe:a9fe::1",  # 6to4 of 169.254.169.254
            "2002:7f00:1::1",  # 6to4 of 127.0.0.1
            "2001:0:4136:e378:8000:63bf:f5ff:fffe"]  # Teredo, client 10.0.0.1


@pytest.mark.parametrize("address", INTERNAL)
def test_ipv6_forms_of_internal_ipv4_are_refused(address):
    with pytest.raises(netguard.UnsafeURL):
        netguard.check_public_web_url(f"http://[{address}]/latest/meta-data/")


@pytest.mark.parametrize("address", ["64:ff9b::5db8:d822", "2002:5db8:d822::1", "2606:4700:4700::1111"])
def test_ipv6_forms_of_public_ipv4_and_plain_ipv6_still_pass(address):
    netguard.check_public_web_url(f"http://[{address}]/")


def test_a_research_run_refuses_a_name_resolving_to_nat64_metadata(api, db, employee):
    from tests.areas.deals.factories import make_company, make_deal

    grant(db, employee, "deals", "update")
    deal = make_deal(db, company_id=make_company(db).id)
    RESOLVES["nat64.example.com"] = ["64:ff9b::a9fe:a9fe"]
    answer = api.post("/api/research/run", as_=employee,
                      json={"entity_type": "deal", "entity_id": deal.id, "store_url": "http://nat64.example.com/"})
    assert answer.status == 422, (answer.status, answer.json)


def test_a_push_subscription_to_nat64_of_a_private_address_is_refused(api, db):
    answer = api.post("/api/notifications/push/subscribe", as_=make_user(db),
                      json={"endpoint": "https://[64:ff9b::a00:5]/push/x", "keys": {"p256dh": P256DH, "auth": AUTH}})
    assert answer.status == 400, (answer.status, answer.json)


def test_a_runner_at_6to4_of_the_metadata_service_is_refused():
    assert runner_host_problem("http://[2002:a9fe:a9fe::1]/runs") is not None
    assert runner_host_problem("http://[64:ff9b::a9fe:a9fe]/runs") is not None
    assert runner_host_problem("http://[2002:a00:5::1]/runs") is None  # a private network may hold a runner
