"""sign-in throttle per client address

``login_attempts`` gains the client ``address`` ("" when unknown; rows from before get "") and
indexes for the throttle's counts per address and overall (and for deleting old rows).

SQLite-safe without a table rebuild: ``ADD COLUMN ... NOT NULL DEFAULT ''`` and ``CREATE INDEX``
are plain statements on SQLite (no batch mode, no copy of the table).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0006'
down_revision: Union[str, None] = '0005'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.add_column('login_attempts',
                  sa.Column('address', sa.String(length=64), nullable=False, server_default=''))
    op.create_index('ix_login_attempts_address_at', 'login_attempts', ['address', 'at'], unique=False)
    op.create_index('ix_login_attempts_at', 'login_attempts', ['at'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_login_attempts_at', table_name='login_attempts')
    op.drop_index('ix_login_attempts_address_at', table_name='login_attempts')
    # SQLite >= 3.35 drops a column in place (no rebuild) when nothing else refers to it
    op.drop_column('login_attempts', 'address')
