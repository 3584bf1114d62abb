"""Amazon SES v2 SendEmail wire format (botocore's Stubber checks the exact parameters; no network).

SES does not support SMTPUTF8: "the email address string must be 7-bit ASCII. If you want to send to or from email
addresses that contain Unicode characters in the domain part of an address, you must encode the domain using
Punycode ... If you want to use Unicode characters in the 'friendly from' name, you must encode [it] using MIME
encoded-word syntax" (https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_Destination.html,
https://docs.aws.amazon.com/ses/latest/dg/send-email-formatted.html)."""
import boto3
import pytest
from botocore.stub import Stubber

from chalicelib.providers.mail import live as mail_live


@pytest.fixture
def stub(monkeypatch):
    client = boto3.client("sesv2", region_name="ap-southeast-2", aws_access_key_id="AKIDEXAMPLE",
                          aws_secret_access_key="secret")
    monkeypatch.setattr(mail_live, "client", lambda service: client)
    with Stubber(client) as stubber:
        yield stubber
        stubber.assert_no_pending_responses()


def test_unicode_names_and_domains_are_sent_as_ses_takes_them(stub):
    stub.add_response("send_email", {"MessageId": "0100018c-example-000001"}, {
        "FromEmailAddress": "=?utf-8?q?Zo=C3=AB_Agency?= <notifications@xn--bcher-kva.test>",
        "Destination": {"ToAddresses": ["ann@xn--bcher-kva.test", "bob@agency.test"]},
        "ReplyToAddresses": ["=?utf-8?b?UmVuw6ll?= <renee@agency.test>"],  # RFC 2047 "B" form of Renée
        "Content": {"Simple": {"Subject": {"Data": "Héllo", "Charset": "UTF-8"},
                               "Body": {"Text": {"Data": "Body", "Charset": "UTF-8"},
                                        "Html": {"Data": "<p>Body</p>", "Charset": "UTF-8"}}}}})
    mail = mail_live.SESMail(from_address="Zoë Agency <notifications@bücher.test>")
    assert mail.send(to=["ann@bücher.test", "bob@agency.test"], subject="Héllo", text="Body", html="<p>Body</p>",
                     reply_to="Renée <renee@agency.test>") == "0100018c-example-000001"


def test_ascii_addresses_are_sent_unchanged(stub):
    stub.add_response("send_email", {"MessageId": "0100018c-example-000002"}, {
        "FromEmailAddress": "Agency <notifications@agency.test>",
        "Destination": {"ToAddresses": ["ann@agency.test"]},
        "Content": {"Simple": {"Subject": {"Data": "Hello", "Charset": "UTF-8"},
                               "Body": {"Text": {"Data": "Body", "Charset": "UTF-8"}}}}})
    mail = mail_live.SESMail(from_address="Agency <notifications@agency.test>")
    assert mail.send(to=["ann@agency.test"], subject="Hello", text="Body") == "0100018c-example-000002"
