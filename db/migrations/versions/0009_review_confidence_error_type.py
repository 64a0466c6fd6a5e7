"""the lead's confidence (1-5) and error type with every review decision and on the gold it made

* ``review_items.confidence`` / ``review_items.error_type``: recorded with each decision (accept,
  pooled, edit, take a version, send back, discard). Rows from before get NULL / ``''`` (no lead
  recorded one).
* ``gold_annotations.confidence`` / ``gold_annotations.error_type``: the same figures on the gold a
  lead's decision stored (NULL / ``''`` for automatic gold and rows from before), so the export
  reads them with the gold.

SQLite-safe without a table rebuild: ``ADD COLUMN`` (nullable, or ``NOT NULL DEFAULT``) is a plain
statement on SQLite.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0009'
down_revision: Union[str, None] = '0008'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

_TABLES = ('review_items', 'gold_annotations')


def upgrade() -> None:
    for table in _TABLES:
        op.add_column(table, sa.Column('confidence', sa.SmallInteger(), nullable=True))
        op.add_column(table, sa.Column('error_type', sa.String(length=32), nullable=False,
                                       server_default=''))


def downgrade() -> None:
    # SQLite >= 3.35 drops a column in place (no rebuild) when nothing else refers to it
    for table in reversed(_TABLES):
        op.drop_column(table, 'error_type')
        op.drop_column(table, 'confidence')
