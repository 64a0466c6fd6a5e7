"""Statement pieces that differ by database."""

from __future__ import annotations

from typing import Any, Sequence

from sqlalchemy import Integer, any_, literal
from sqlalchemy.dialects.postgresql import ARRAY


def id_in(column: Any, ids: Sequence[int], s: Any) -> Any:
    """``column IN ids`` for session ``s``'s database. On PostgreSQL one array parameter,
    ``column = ANY(%s)``: an IN list of hundreds of ids is one parameter each, and compiling
    and converting such a statement for psycopg cost more than running it (a third of settling
    100k samples); the statement's text is then the same whatever the ids."""
    if s.bind.dialect.name == "postgresql":
        return column == any_(literal(list(ids), ARRAY(Integer)))
    return column.in_(ids)
