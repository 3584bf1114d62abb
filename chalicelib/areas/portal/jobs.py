"""Background work of the portal: the daily sync of the connected ad platforms.

Lambda may import this module without app.py; it sets itself up through core (settings and the database engine
are created lazily).
"""
from __future__ import annotations


def adplatforms_sync() -> dict:
    """Sync every connected ad platform's recent days (ADPLATFORMS_RESYNC_DAYS; a connection whose history was
    never read gets ADPLATFORMS_BACKFILL_DAYS), upserting one row per connection, campaign and day: run again,
    the same rows. Least recently synced first; no connection is started after SYNC_SECONDS (of the function's
    120 s): those left (`left`) come first in the next run. By hand: `python -m chalicelib.cli job adplatforms-sync`."""
    from .service_connections import SYNC_SECONDS, sync_connections

    return sync_connections(backfill=True, seconds=SYNC_SECONDS)
