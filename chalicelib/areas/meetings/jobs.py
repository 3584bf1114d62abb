"""Background work of the meetings area: the scheduled meeting-notes sync.

Lambda may import this module without app.py; it sets itself up through core (settings and the database
engine are created lazily by `core.context.job_context()`).
"""
from __future__ import annotations

# no batch is started after this many seconds of the meetings jobs' 300 s (infra/areas.json): a batch asks the AI
# provider about up to service_sync.ANALYSES_PER_BATCH new notes, each call up to 30 s (session 23)
SYNC_SECONDS = 180


def scheduled_sync() -> dict:
    """Sync meeting notes when enabled and due (every MEETNOTES_SYNC_INTERVAL_MINUTES); run twice, one effect. No
    batch is started after SYNC_SECONDS (`more`: the run is due again at once and goes on from its committed
    batches). By hand: `python -m chalicelib.cli job meetings-sync`."""
    from .service_sync import run_sync

    return run_sync(force=False, seconds=SYNC_SECONDS)
