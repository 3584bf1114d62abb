"""Amazon SES v2 `SendEmail` through boto3 (`chalicelib.core.aws.client("sesv2")`).

botocore signs the request (SigV4) and itself retries throttling (HTTP 429 `TooManyRequestsException`) and
connection errors with backoff. What is left: no answer in time -> 504; a refusal (throttling still included,
kept 502 so that the notification worker, which reads 503 as `skipped`, retries it) or an unreachable SES -> 502.

Parameters (SendEmail, API v2, https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_SendEmail.html):
`FromEmailAddress`, `Destination.ToAddresses`, `ReplyToAddresses`, `Content.Simple` with `Subject` and
`Body.Text`/`Body.Html` as `{Data, Charset: UTF-8}`, optional `ConfigurationSetName`; the answer's `MessageId`.
SES does not support SMTPUTF8: every address must be 7-bit ASCII, a Unicode domain in Punycode and a Unicode
"friendly" name as a MIME encoded-word (https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_Destination.html),
so addresses are encoded so before the call (`ses_address`). Errors are botocore's ClientError with SES's
`Error.Code` (MessageRejected, MailFromDomainNotVerifiedException, AccountSuspendedException,
SendingPausedException, TooManyRequestsException, BadRequestException, ...), named in the 502's message.
"""
from __future__ import annotations

import os
from email.utils import formataddr, parseaddr

from botocore.exceptions import BotoCoreError, ClientError, ConnectTimeoutError, ReadTimeoutError

from chalicelib.core import timeutil
from chalicelib.core.aws import CONNECT_TIMEOUT, READ_TIMEOUT, client
from chalicelib.core.errors import BadGateway, GatewayTimeout
from chalicelib.providers.http import unreachable

from .base import subject_line


def ses_address(address: str) -> str:
    """An address as SES takes it: 7-bit ASCII, a Unicode domain in Punycode, a Unicode display name as a MIME
    encoded-word (RFC 2047). SES refuses the others itself (a local part that is not ASCII, say)."""
    name, addr = parseaddr(address)
    if not addr or "@" not in addr:
        return address
    local, _, domain = addr.rpartition("@")
    try:
        domain = domain.encode("idna").decode("ascii")
    except UnicodeError:
        return address
    try:
        return formataddr((name, f"{local}@{domain}"), charset="utf-8")
    except UnicodeError:  # a local part that is not ASCII: SES answers why
        return address


class SESMail:
    def __init__(self, *, from_address: str) -> None:
        self.from_address = from_address
        # optional SES configuration set (event publishing); read here, not a core setting
        self.configuration_set = os.environ.get("MAIL_CONFIGURATION_SET") or None

    def send(self, *, to: list[str], subject: str, text: str, html: str | None = None,
             reply_to: str | None = None) -> str:
        body: dict = {"Text": {"Data": text, "Charset": "UTF-8"}}
        if html:
            body["Html"] = {"Data": html, "Charset": "UTF-8"}
        kwargs: dict = {
            "FromEmailAddress": ses_address(self.from_address),
            "Destination": {"ToAddresses": [ses_address(address) for address in to]},
            "Content": {"Simple": {"Subject": {"Data": subject_line(subject)[:998], "Charset": "UTF-8"}, "Body": body}},
        }
        if reply_to:
            kwargs["ReplyToAddresses"] = [ses_address(reply_to)]
        if self.configuration_set:
            kwargs["ConfigurationSetName"] = self.configuration_set
        left = timeutil.time_left()  # within a request: SES's client cannot be given a shorter timeout per call
        if left is not None and left < CONNECT_TIMEOUT + READ_TIMEOUT:
            raise GatewayTimeout(f"E-mail provider was not called: less than {CONNECT_TIMEOUT + READ_TIMEOUT} s are "
                                 "left of the request's time for provider calls")
        try:
            answer = client("sesv2").send_email(**kwargs)
        except ClientError as exc:
            error = exc.response.get("Error", {})
            raise BadGateway(f"E-mail provider refused the message: {error.get('Code', 'Error')}: "
                             f"{error.get('Message', '')}".strip()) from exc
        except (ReadTimeoutError, ConnectTimeoutError) as exc:
            raise GatewayTimeout("E-mail provider did not answer in time") from exc
        except BotoCoreError as exc:  # its text (the endpoint URL) is the log's, never the caller's
            raise unreachable("E-mail provider", exc) from exc
        return answer["MessageId"]
