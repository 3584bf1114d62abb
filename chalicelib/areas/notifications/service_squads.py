"""Squad notification configuration (executive only): per squad and type, the chat channel and
e-mail group that `notify_squad()` posts to, and whether it posts at all."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.locks import forget, lock_key, upsert_rows
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


CONFIG_FIELDS = ("chat_channel_id", "email_group", "enabled")


def update_config(ctx, *, squad_id: str, data: SquadConfigUpdate) -> int:
    """The entries' rows set (a type named twice: the last entry), answering the number of entries. Written as a
    set (session 27): one INSERT ... ON CONFLICT DO UPDATE whatever the number of types (core.locks.upsert_rows); a
    row sent back as stored is not rewritten."""
    load_squad(ctx, squad_id)
    check_known_types([entry.notification_type for entry in data.config], "config")
    lock_key(ctx.db, "squad-notification-config", squad_id)  # concurrent saves take turns (two inserts were a 409)
    stored = {row[0]: tuple(row[1:]) for row in ctx.db.execute(
        select(SquadNotificationConfig.notification_type,
               *(getattr(SquadNotificationConfig, name) for name in CONFIG_FIELDS))
        .where(SquadNotificationConfig.squad_id == squad_id))}
    wanted = {entry.notification_type: (entry.chat_channel_id, entry.email_group, entry.enabled)
              for entry in data.config}
    changed = {type_id: values for type_id, values in wanted.items() if stored.get(type_id) != values}
    upsert_rows(ctx.db, SquadNotificationConfig, [
        {"squad_id": squad_id, "notification_type": type_id, **dict(zip(CONFIG_FIELDS, values))}
        for type_id, values in changed.items()], conflict=("squad_id", "notification_type"))
    if changed:
        forget(ctx.db, SquadNotificationConfig)
    return len(data.config)
