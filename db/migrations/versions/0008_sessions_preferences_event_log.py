"""server-side sign-in sessions, per-user preferences, the workbench's event-log position

* ``user_sessions``: one row per signed-in browser. Only the SHA-256 of the random token is
  stored; a row is valid until ``expires_at`` unless ``revoked_at`` is set (sign-out, password
  change, deactivation).
* ``users.preferences``: JSON of per-user UI choices (e.g. the workbench's single-screen layout);
  rows from before get ``{}``.
* ``annotations.event_client`` / ``annotations.event_seq``: which browser surface last wrote the
  draft and the sequence number of the last edit event applied, so a re-sent event is applied
  once only, even after a reconnect or a server restart. Rows from before get ``''`` / ``0``.

SQLite-safe without a table rebuild: ``CREATE TABLE`` and ``ADD COLUMN ... NOT NULL DEFAULT`` are
plain statements on SQLite (no batch mode, no copy of a table, no cascade).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0008'
down_revision: Union[str, None] = '0007'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('user_sessions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('last_seen_at', sa.DateTime(), nullable=False),
    sa.Column('expires_at', sa.DateTime(), nullable=False),
    sa.Column('revoked_at', sa.DateTime(), nullable=True),
    sa.Column('revoked_reason', sa.String(length=32), nullable=False, server_default=''),
    sa.Column('user_agent', sa.String(length=255), nullable=False, server_default=''),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('token_hash', name='uq_user_sessions_token_hash')
    )
    op.create_index('ix_user_sessions_user_id', 'user_sessions', ['user_id'], unique=False)
    op.create_index('ix_user_sessions_expires_at', 'user_sessions', ['expires_at'], unique=False)
    op.add_column('users', sa.Column('preferences', sa.JSON(), nullable=False, server_default='{}'))
    op.add_column('annotations',
                  sa.Column('event_client', sa.String(length=64), nullable=False, server_default=''))
    op.add_column('annotations',
                  sa.Column('event_seq', sa.Integer(), nullable=False, server_default='0'))


def downgrade() -> None:
    # SQLite >= 3.35 drops a column in place (no rebuild) when nothing else refers to it
    op.drop_column('annotations', 'event_seq')
    op.drop_column('annotations', 'event_client')
    op.drop_column('users', 'preferences')
    op.drop_index('ix_user_sessions_expires_at', table_name='user_sessions')
    op.drop_index('ix_user_sessions_user_id', table_name='user_sessions')
    op.drop_table('user_sessions')
