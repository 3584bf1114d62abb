"""The client portal (document 3, "Client portal"): routes called by the portal worker, company-scoped."""
