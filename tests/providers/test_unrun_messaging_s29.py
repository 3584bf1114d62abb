"""Session 29, code no test ran in the SMS, e-mail, push, place-search and enrichment adapters: Twilio's answer
it cannot read, SES addresses it cannot encode and a configuration set, Nominatim's unexpected bodies and items,
People Data Labs' errors without JSON and a non-finite reset, and the sandboxes' refusals."""
import boto3
import pytest
import responses
from botocore.stub import Stubber

from chalicelib.core.errors import BadGateway, ServiceUnavailable
from chalicelib.providers.enrichment.live import PeopleDataLabs, _reset_seconds
from chalicelib.providers.enrichment.sandbox import SandboxEnrichment
from chalicelib.providers.mail import live as mail_live
from chalicelib.providers.mail.sandbox import SandboxMail
from chalicelib.providers.places.live import NominatimPlaces
from chalicelib.providers.push.sandbox import SandboxPush
from chalicelib.providers.sms.live import TwilioSms
from chalicelib.providers.sms.sandbox import SandboxSms
from tests.providers.test_twilio_wire import SID, URL as TWILIO


@responses.activate
def test_twilio_accepting_with_an_unreadable_answer_is_502():
    responses.post(TWILIO, status=201, json={"status": "queued"})  # no sid
    with pytest.raises(BadGateway, match="could not be read"):
        TwilioSms(account_sid=SID, auth_token="t", from_number="+61400000000").send(channel="sms", to="+61412345678",
                                                                                  body="Hi")


def test_the_sms_sandbox_refuses_a_number_that_cannot_receive_sms(db):
    with pytest.raises(BadGateway, match="21614"):
        SandboxSms(db=db).send(channel="sms", to="+15005550009", body="Hi")


def test_ses_addresses_it_cannot_encode_are_left_for_ses_to_refuse():
    assert mail_live.ses_address("not an address") == "not an address"
    assert mail_live.ses_address("ann@" + "x" * 64 + ".test") == "ann@" + "x" * 64 + ".test"  # label too long
    assert mail_live.ses_address("jöhn@agency.test") == "jöhn@agency.test"  # a local part that is not ASCII


def test_a_configuration_set_is_sent(monkeypatch):
    client = boto3.client("sesv2", region_name="ap-southeast-2", aws_access_key_id="AKIDEXAMPLE",
                          aws_secret_access_key="secret")
    monkeypatch.setattr(mail_live, "client", lambda service: client)
    monkeypatch.setenv("MAIL_CONFIGURATION_SET", "wms-events")
    with Stubber(client) as stub:
        stub.add_response("send_email", {"MessageId": "m-1"}, {
            "FromEmailAddress": "notifications@agency.test", "Destination": {"ToAddresses": ["ann@agency.test"]},
            "Content": {"Simple": {"Subject": {"Data": "Hi", "Charset": "UTF-8"},
                                   "Body": {"Text": {"Data": "Body", "Charset": "UTF-8"}}}},
            "ConfigurationSetName": "wms-events"})
        assert mail_live.SESMail(from_address="notifications@agency.test").send(
            to=["ann@agency.test"], subject="Hi", text="Body") == "m-1"


def test_the_mail_sandbox_refuses_a_message_without_recipients(db):
    with pytest.raises(BadGateway, match="no recipient"):
        SandboxMail(db=db, from_address="n@agency.test").send(to=[], subject="x", text="y")


def test_the_push_sandbox_answers_a_failing_endpoint_as_a_500(db):
    with pytest.raises(BadGateway, match="HTTP 500"):
        SandboxPush(db=db, public_key="k").send(subscription={"endpoint": "https://push.test/fail/1"},
                                                payload={"title": "x"})


@responses.activate
def test_nominatim_answering_without_json_or_with_an_object_and_items_without_a_name(monkeypatch):
    from chalicelib.providers.places import live as places_live

    monkeypatch.setattr(places_live, "_throttle", lambda: None)
    places = NominatimPlaces(base_url="https://nominatim.test", user_agent="wms-test/1.0 (ops@agency.test)")
    responses.get("https://nominatim.test/search", body="<html>maintenance</html>")
    with pytest.raises(BadGateway, match="not JSON"):
        places.search("Town Hall", country=None)
    responses.replace(responses.GET, "https://nominatim.test/search", json={"error": {"message": "Bad query"}})
    with pytest.raises(BadGateway, match="unexpected body: Bad query"):
        places.search("Town Hall", country=None)
    responses.replace(responses.GET, "https://nominatim.test/search", json=[
        "junk", {"place_id": 1}, {"place_id": 7, "display_name": "Town Hall, Sydney"}])
    assert places.search("Town Hall", country="au") == [{"id": "7", "label": "Town Hall, Sydney"}]


@responses.activate
def test_pdl_errors_without_json_and_a_non_finite_reset():
    responses.get("https://api.peopledatalabs.com/v5/company/enrich", status=500, body="<html>oops</html>")
    with pytest.raises(BadGateway, match=r"failed \(HTTP 500\)"):
        PeopleDataLabs(api_key="k").enrich_company(name="Acme", website=None)
    assert _reset_seconds("inf") is None and _reset_seconds("30") == 30.0
    responses.replace(responses.GET, "https://api.peopledatalabs.com/v5/company/enrich", status=429,
                      headers={"x-ratelimit-reset": "Infinity"}, json={"error": {"message": "Rate limit exceeded"}})
    with pytest.raises(ServiceUnavailable):
        PeopleDataLabs(api_key="k").enrich_company(name="Acme", website=None)


def test_the_enrichment_sandbox_finds_no_profile_for_nodata():
    assert SandboxEnrichment().enrich_person(profile_url="https://linkedin.com/in/nodata-person") is None
