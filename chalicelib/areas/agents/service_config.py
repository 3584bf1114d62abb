"""Project agent configuration: GET and PUT /api/projects/{id}/agent-config, and the runner target of a project.

The runner secret is stored encrypted with the core secrets key (core.crypto: Fernet, or KMS) and never
answered: the record says only whether one is set. A PUT replaces every field; `runner_secret` left out keeps
the stored secret (a client cannot read it back to resend it), null clears it. An enabled configuration needs
a runner_url and a runner secret (400 otherwise), so that nothing is dispatched to a runner that cannot run it.
"""
from __future__ import annotations

import logging
from urllib.parse import urlsplit

from chalicelib.core import crypto
from chalicelib.core.errors import BadRequest
from chalicelib.core.locks import lock_key
from chalicelib.providers.runner.base import runner_host_problem

from .models import ProjectAgentConfig
from .queries import config_record, load_project, project_config

log = logging.getLogger("wms.agents")

FIELDS = ("project_type", "repo_org", "repo_name", "default_branch", "deploy_target", "preview_url_pattern",
          "production_url", "workflow_config", "runner_url", "enabled")


def get_config(ctx, *, project_id: str) -> dict | None:
    project = load_project(ctx, project_id)
    config = project_config(ctx.db, project.id)
    return config_record(config) if config else None


def _origin(url: str | None) -> tuple | None:
    """(scheme, host, port) of a URL, the default port filled in; None without a URL."""
    if not url:
        return None
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    return (parts.scheme.lower(), (parts.hostname or "").rstrip(".").lower(),
            port or {"http": 80, "https": 443}.get(parts.scheme.lower()))


def put_config(ctx, *, project_id: str, data) -> dict:
    project = load_project(ctx, project_id)
    values = {name: getattr(data, name) for name in FIELDS}
    details = []
    problem = runner_host_problem(values["runner_url"])
    if problem:
        details.append({"field": "runner_url", "message": problem})
    lock_key(ctx.db, "project-agent-config", project.id)  # two first PUTs do not both insert
    config = project_config(ctx.db, project.id)
    secret_sent = "runner_secret" in data.model_fields_set
    has_secret = bool(data.runner_secret) if secret_sent else bool(config and config.runner_secret_encrypted)
    # a runner_url cleared sends the secret nowhere: no move (session 29: turning the runner off was this 400)
    if not secret_sent and config is not None and config.runner_secret_encrypted and values["runner_url"] \
            and _origin(values["runner_url"]) != _origin(config.runner_url):
        # the stored secret goes, as a bearer token, to whatever runner_url names: a new host must be given the
        # secret by whoever moves it there (anyone with projects:update may edit this configuration)
        details.append({"field": "runner_secret",
                        "message": "must be sent again when runner_url moves to another scheme, host or port"})
    if values["enabled"]:
        if not values["runner_url"]:
            details.append({"field": "runner_url", "message": "is required when enabled is true"})
        if not has_secret:
            details.append({"field": "runner_secret", "message": "is required when enabled is true"})
    if details:
        raise BadRequest("Invalid agent configuration", details=details)
    if config is None:
        config = ProjectAgentConfig(project_id=project.id)
        ctx.db.add(config)
        changed = values
    else:
        changed = {name: value for name, value in values.items() if getattr(config, name) != value}
    if changed or secret_sent:
        # the configuration sent back as read writes nothing: its editor and time stay (session 25)
        for name, value in changed.items():
            setattr(config, name, value)
        if secret_sent:
            config.runner_secret_encrypted = crypto.encrypt(data.runner_secret) if data.runner_secret else None
        config.updated_by = ctx.user_id
        ctx.db.flush()
    log.info("agent configuration saved", extra={"project_id": project.id, "enabled": bool(config.enabled)})
    return config_record(config)


def runner_secret(config: ProjectAgentConfig | None) -> str | None:
    """The configuration's runner secret in clear (kept in memory only), or None when none is set or the
    current key cannot read it (then the project counts as not configured)."""
    if config is None or not config.runner_secret_encrypted:
        return None
    try:
        return crypto.decrypt(config.runner_secret_encrypted)
    except crypto.SecretUnreadable:
        log.warning("a project's runner secret cannot be decrypted", extra={"project_id": config.project_id})
        return None
