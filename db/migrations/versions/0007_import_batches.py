"""import batches: large text imports written in short transactions, published at the end

A new table only; ``samples`` is not rebuilt (its ``status`` column has no CHECK constraint, so
the new value ``importing`` needs no change to it). Safe on SQLite: no batch-mode rebuild, no
cascade.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0007'
down_revision: Union[str, None] = '0006'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('import_batches',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('open_project_id', sa.Integer(), nullable=True),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('source', sa.String(length=255), nullable=False),
    sa.Column('added', sa.Integer(), nullable=False),
    sa.Column('creates_project', sa.Boolean(), nullable=False),
    sa.Column('created_by', sa.Integer(), nullable=True),
    sa.Column('started_at', sa.DateTime(), nullable=False),
    sa.Column('heartbeat_at', sa.DateTime(), nullable=False),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.CheckConstraint("status in ('running', 'publishing', 'published')", name='ck_import_batches_status'),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], ),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('open_project_id', name='uq_import_batches_open_project')
    )


def downgrade() -> None:
    # rows of an unfinished import are not part of the older schema's world: drop them first
    op.execute("DELETE FROM samples WHERE status = 'importing'")
    op.drop_table('import_batches')
