"""Amazon SES v2 `SendEmail` through boto3 (`chalicelib.core.aws.client("sesv2")`).

botocore signs the request (SigV4) and itself retries throttling (HTTP 429 `TooManyRequestsException`) and
connection errors with backoff. What is left: no answer in time -> 504; a refusal (throttling still included,
kept 502 so that the notification worker, which reads 503 as `skipped`, retries it) or an unreachable SES -> 502.
"""
from __future__ import annotations

import os

from botocore.exceptions import BotoCoreError, ClientError, ConnectTimeoutError, ReadTimeoutError

from chalicelib.core.aws import client
from chalicelib.core.errors import BadGateway, GatewayTimeout


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
            "FromEmailAddress": self.from_address,
            "Destination": {"ToAddresses": list(to)},
            "Content": {"Simple": {"Subject": {"Data": subject[:998], "Charset": "UTF-8"}, "Body": body}},
        }
        if reply_to:
            kwargs["ReplyToAddresses"] = [reply_to]
        if self.configuration_set:
            kwargs["ConfigurationSetName"] = self.configuration_set
        try:
            answer = client("sesv2").send_email(**kwargs)
        except ClientError as exc:
            error = exc.response.get("Error", {})
            raise BadGateway(f"E-mail provider refused the message: {error.get('Code', 'Error')}: "
                             f"{error.get('Message', '')}".strip()) from exc
        except (ReadTimeoutError, ConnectTimeoutError) as exc:
            raise GatewayTimeout("E-mail provider did not answer in time") from exc
        except BotoCoreError as exc:
            raise BadGateway(f"E-mail provider unreachable: {exc}") from exc
        return answer["MessageId"]
