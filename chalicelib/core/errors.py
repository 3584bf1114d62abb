"""Domain errors, each carrying its HTTP status (decisions.md section 4)."""
from __future__ import annotations


class DomainError(Exception):
    status = 400
    default_message = "Bad request"

    def __init__(self, message: str | None = None, *, details: list[dict] | None = None, extra: dict | None = None):
        super().__init__(message or self.default_message)
        self.message = message or self.default_message
        self.details = details
        self.extra = extra or {}

    def body(self) -> dict:
        body: dict = {"error": self.message}
        if self.details is not None:
            body["details"] = self.details
        body.update(self.extra)
        return body


class BadRequest(DomainError):
    status = 400
    default_message = "Bad request"


class ValidationFailed(BadRequest):
    default_message = "Invalid input"


class Unauthorized(DomainError):
    status = 401
    default_message = "Authentication required"


class Forbidden(DomainError):
    status = 403
    default_message = "Forbidden"


class NotFound(DomainError):
    status = 404
    default_message = "Not found"


class Conflict(DomainError):
    status = 409
    default_message = "Conflict"


class TooManyRequests(DomainError):
    status = 429
    default_message = "Too many requests: try again later"


class RequestTimeout(DomainError):
    status = 408
    default_message = "Request aborted"


class PayloadTooLarge(DomainError):
    status = 413
    default_message = "Payload too large"


class UnsupportedMediaType(DomainError):
    status = 415
    default_message = "Unsupported media type"


class Unprocessable(DomainError):
    status = 422
    default_message = "Unprocessable entity"


class BadGateway(DomainError):
    status = 502
    default_message = "Upstream provider failed"


class ServiceUnavailable(DomainError):
    status = 503
    default_message = "Service not configured"


class GatewayTimeout(DomainError):
    status = 504
    default_message = "The provider did not answer in time"


def not_found(what: str) -> NotFound:
    return NotFound(f"{what} not found")


def bad_field(field: str, message: str) -> BadRequest:
    """A 400 about one field of the request: `"<field> <message>"`, the field and message in `details`."""
    return BadRequest(f"{field} {message}", details=[{"field": field, "message": message}])
