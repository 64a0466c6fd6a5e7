"""The ORM's declarative base, shared by :mod:`db.models` and :mod:`db.models_backoffice`."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON
from sqlalchemy.orm import DeclarativeBase


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}
