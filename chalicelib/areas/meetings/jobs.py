"""Background work of the meetings area: the scheduled meeting-notes sync.

Lambda may import this module without app.py; it sets itself up through core (settings and the database
engine are created lazily by `core.context.job_context()`).
"""
from __future__ import annotations


def scheduled_sync() -> dict:
    """Sync meeting notes when enabled and due (every MEETNOTES_SYNC_INTERVAL_MINUTES); run twice, one effect.
    By hand: `python -m chalicelib.cli job meetings-sync`."""
    from .service_sync import run_sync

    return run_sync(force=False)
