"""Squad notification configuration (executive only): per squad and type, the chat channel and
e-mail group that `notify_squad()` posts to, and whether it posts at all."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.locks import lock_key
from chalicelib.core.notify_catalogue import TYPES
from chalicelib.core.notify_models import SquadNotificationConfig
from chalicelib.core.serialize import flag

from .queries import check_known_types, load_squad
from .schemas import SquadConfigUpdate


def get_config(ctx, *, squad_id: str) -> list[dict]:
    """Every catalogue type merged with the squad's rows; a type without a row is enabled with no
    channel of its own (it then posts to the squad's chat_channel_id)."""
    load_squad(ctx, squad_id)
    rows = {row.notification_type: row for row in ctx.db.scalars(
        select(SquadNotificationConfig).where(SquadNotificationConfig.squad_id == squad_id))}
    entries = []
    for item in TYPES:
        row = rows.get(item.id)
        entries.append({
            "notification_type": item.id, "category": item.category, "label": item.label,
            "chat_channel_id": row.chat_channel_id if row else None,
            "email_group": row.email_group if row else None,
            "enabled": flag(row.enabled if row else True),
        })
    return entries


def update_config(ctx, *, squad_id: str, data: SquadConfigUpdate) -> int:
    load_squad(ctx, squad_id)
    check_known_types([entry.notification_type for entry in data.config], "config.notification_type")
    lock_key(ctx.db, "squad-notification-config", squad_id)  # concurrent saves take turns (two inserts were a 409)
    rows = {row.notification_type: row for row in ctx.db.scalars(
        select(SquadNotificationConfig).where(SquadNotificationConfig.squad_id == squad_id))}
    for entry in data.config:
        row = rows.get(entry.notification_type)
        if row is None:
            row = SquadNotificationConfig(squad_id=squad_id, notification_type=entry.notification_type)
            ctx.db.add(row)
            rows[entry.notification_type] = row
        row.chat_channel_id, row.email_group, row.enabled = entry.chat_channel_id, entry.email_group, entry.enabled
    ctx.db.flush()
    return len(data.config)
