"""The portal's test helpers: a configured service token, client companies, and calls with the portal
headers (`portal.get("/dashboard", company)`)."""
from __future__ import annotations

import pytest

from chalicelib.areas.clients.models import ClientProfile
from tests.areas.deals.factories import make_company

TOKEN = "portal-test-token-0123456789"


def make_client(db, *, group: str | None = None, dashboard: bool = False, manager=None, visibility=None, **kw):
    company = make_company(db, status="client", **kw)
    db.add(ClientProfile(company_id=company.id, dashboard_enabled=dashboard, client_group=group,
                         delivery_manager_id=manager.id if manager else None, portal_visibility=visibility or {}))
    db.flush()
    return company


def make_refused_google_ads(db, company):
    """A Google Ads connection whose refresh token the (sandbox) provider refuses: its sync fails."""
    import json

    from chalicelib.areas.portal.models import AdConnection
    from chalicelib.core import crypto

    connection = AdConnection(company_id=company.id, platform="google_ads", display_name="Broken",
                              account_id="1111111111", secret=crypto.encrypt(json.dumps(
                                  {"customer_id": "1111111111", "refresh_token": "invalid"})))
    db.add(connection)
    db.flush()
    return connection


class Portal:
    def __init__(self, api) -> None:
        self.api = api

    def request(self, method, path, company=None, *, role="viewer", user="pu-1", group=None, json=None, token=TOKEN,
                headers=None):
        sent = {}
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        if company is not None:
            sent["X-Portal-Company-Id"] = company if isinstance(company, str) else company.id
        if role is not None:
            sent["X-Portal-User-Role"] = role
        if user is not None:
            sent["X-Portal-User-Id"] = user
        if group is not None:
            sent["X-Portal-Group-Company-Ids"] = ",".join(g if isinstance(g, str) else g.id for g in group)
        sent.update(headers or {})
        return self.api.request(method, f"/api/portal{path}", headers=sent, json=json)

    def get(self, path, company=None, **kw):
        return self.request("GET", path, company, **kw)

    def post(self, path, company=None, **kw):
        return self.request("POST", path, company, **kw)

    def put(self, path, company=None, **kw):
        return self.request("PUT", path, company, **kw)

    def delete(self, path, company=None, **kw):
        return self.request("DELETE", path, company, **kw)


@pytest.fixture
def portal(api, set_env):
    set_env(PORTAL_SERVICE_TOKEN=TOKEN, WMS_CHECK_RESPONSES="1")
    return Portal(api)
