"""Append-only audit trail: every service write records who did what to which entity."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotation.services.text_limits import require_fit
from db.models import AuditEvent, utcnow


def record(session: Session, actor_id: int | None, action: str, entity: str, entity_id: object,
           **detail: Any) -> None:
    """Add one audit event to the current transaction (it commits or rolls back with it).
    ``action``, ``entity`` and ``entity_id`` are the code's names and ids, never typed text."""
    event = AuditEvent(at=utcnow(), actor_id=actor_id, action=require_fit(action, AuditEvent.action),
                       entity=require_fit(entity, AuditEvent.entity),
                       entity_id=require_fit(str(entity_id), AuditEvent.entity_id), detail=detail)
    session.add(event)


def history(session: Session, entity: str, entity_id: object) -> list[AuditEvent]:
    """Events about one entity, oldest first."""
    stmt = (select(AuditEvent).where(AuditEvent.entity == entity,
                                     AuditEvent.entity_id == str(entity_id))
            .order_by(AuditEvent.id))
    return list(session.scalars(stmt))
