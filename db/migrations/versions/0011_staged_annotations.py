"""staged annotations: an annotation import is parsed, checked and staged before it publishes

* ``staged_annotations``: the annotations of an unfinished import (``import_batches``), hidden
  from every reader until they are copied into ``annotations`` in short transactions.

A new table only: no existing table is rebuilt, so nothing cascades on SQLite.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-26
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0011'
down_revision: Union[str, None] = '0010'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('staged_annotations',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('batch_id', sa.Integer(), nullable=False),
    sa.Column('sample_id', sa.Integer(), nullable=False),
    sa.Column('annotator', sa.String(length=64), nullable=False),
    sa.Column('boundaries', sa.JSON(), nullable=False),
    sa.Column('segment_axes', sa.JSON(), nullable=False),
    sa.Column('points', sa.JSON(), nullable=False),
    sa.Column('xi', sa.Float(), nullable=True),
    sa.Column('omega', sa.Float(), nullable=True),
    sa.Column('alpha', sa.Float(), nullable=True),
    sa.Column('scale', sa.Float(), nullable=True),
    sa.Column('rmse', sa.Float(), nullable=True),
    sa.Column('params_source', sa.String(length=16), nullable=False),
    sa.Column('flags', sa.JSON(), nullable=False),
    sa.Column('note', sa.Text(), nullable=False),
    sa.Column('submitted_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['batch_id'], ['import_batches.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['sample_id'], ['samples.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_staged_annotations_batch', 'staged_annotations', ['batch_id', 'id'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_staged_annotations_batch', table_name='staged_annotations')
    op.drop_table('staged_annotations')
