"""The one context every service function receives first: `ctx`.

Built by the endpoint decorator for a request, and by `job_context()` for scheduled functions, queue
handlers and the CLI. It carries the unit of work (its session is `ctx.db`), the caller (a principal,
or None for jobs), and `after_commit` for work that must wait for the commit (queue messages,
provider calls).
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator

from .db import UnitOfWork, unit_of_work
from .errors import Forbidden
from .settings import Settings, get_settings

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from .auth import Principal
    from .models import User


@dataclass
class Context:
    uow: UnitOfWork
    principal: Principal | None = None
    request: Any = None  # the Chalice request; None in a job

    @property
    def db(self) -> Session:
        return self.uow.session

    @property
    def user(self) -> User | None:
        return self.principal.user if self.principal else None

    @property
    def actor_name(self) -> str:
        """The caller's name as a notice names who acted ("Someone" for a job or a service call)."""
        return self.user.name if self.user else "Someone"

    @property
    def user_id(self) -> str | None:
        return self.principal.id if self.principal else None

    @property
    def settings(self) -> Settings:
        return get_settings()

    def after_commit(self, callback: Callable[[], None]) -> None:
        self.uow.after_commit(callback)

    def release_connection(self) -> None:
        """Before a slow provider call (AI, chat, ledger): end the read transaction and return the
        connection; what is written after the call is committed as usual (core/db.py UnitOfWork.release)."""
        self.uow.release()

    def require(self, tool: str, level: str) -> None:
        if self.principal is None:
            raise Forbidden(f"Permission {tool}:{level} required")
        self.principal.require(tool, level)

    def can(self, tool: str, level: str) -> bool:
        return self.principal is not None and self.principal.can(tool, level)

    def reads(self, tool: str) -> bool:
        """Whether the caller may read `tool`'s records (`<tool>:view`), asked by the functions other areas call to
        name one (session 29); a job's context (no principal) reads them all."""
        return self.principal is None or self.principal.can(tool, "view")

    def header(self, name: str) -> str | None:
        if self.request is None:
            return None
        headers = self.request.headers or {}
        return headers.get(name) or headers.get(name.lower())


@contextmanager
def job_context(principal: Principal | None = None) -> Iterator[Context]:
    """A context for work outside a request: one unit of work (commit at the end, rollback and
    connection invalidation on failure), no caller unless one is given."""
    with unit_of_work() as uow:
        yield Context(uow=uow, principal=principal)
