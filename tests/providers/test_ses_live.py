"""The live e-mail adapter (Amazon SES v2 through boto3; `responses` cannot see boto3's transport, so the SES
client is stubbed with botocore's Stubber and its transport errors): the SendEmail shape, a refusal 502 with
SES's code, a timeout 504."""
import boto3
import pytest
from botocore.exceptions import EndpointConnectionError, ReadTimeoutError
from botocore.stub import Stubber

from chalicelib.core.errors import BadGateway, GatewayTimeout
from chalicelib.providers.mail import live as mail_live


@pytest.fixture
def ses(monkeypatch):
    client = boto3.client("sesv2", region_name="ap-southeast-2", aws_access_key_id="AKIDEXAMPLE",
                          aws_secret_access_key="secret")
    monkeypatch.setattr(mail_live, "client", lambda service: client)
    with Stubber(client) as stub:
        yield client, stub


def test_send_email_shape_and_refusal(ses):
    _, stub = ses
    stub.add_response("send_email", {"MessageId": "0100018c-example-000000"}, {
        "FromEmailAddress": "notifications@agency.test", "Destination": {"ToAddresses": ["ann@agency.test"]},
        "Content": {"Simple": {"Subject": {"Data": "Hello", "Charset": "UTF-8"},
                               "Body": {"Text": {"Data": "Body", "Charset": "UTF-8"}}}}})
    mail = mail_live.SESMail(from_address="notifications@agency.test")
    assert mail.send(to=["ann@agency.test"], subject="Hello", text="Body") == "0100018c-example-000000"
    stub.add_client_error("send_email", service_error_code="TooManyRequestsException",
                          service_message="Maximum sending rate exceeded.", http_status_code=429)
    with pytest.raises(BadGateway, match="TooManyRequestsException"):
        mail.send(to=["ann@agency.test"], subject="Hello", text="Body")


def test_a_timeout_is_504_and_an_unreachable_ses_502(ses, monkeypatch):
    client, _ = ses
    mail = mail_live.SESMail(from_address="notifications@agency.test")

    def timeout(**kwargs):
        raise ReadTimeoutError(endpoint_url="https://email.ap-southeast-2.amazonaws.com")

    monkeypatch.setattr(client, "send_email", timeout)
    with pytest.raises(GatewayTimeout):
        mail.send(to=["ann@agency.test"], subject="Hello", text="Body")

    def unreachable(**kwargs):
        raise EndpointConnectionError(endpoint_url="https://email.ap-southeast-2.amazonaws.com")

    monkeypatch.setattr(client, "send_email", unreachable)
    with pytest.raises(BadGateway, match="unreachable"):
        mail.send(to=["ann@agency.test"], subject="Hello", text="Body")
