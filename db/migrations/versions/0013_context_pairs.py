"""context pairs: a second project protocol (a target statement read with a follow-up)

* ``sample_pairs``: one row per sample of a context-pairs project — its follow-up, the key that
  groups the follow-ups of one target, an imported release's reference labels, and for an
  authored follow-up its author, the target sample it was written for, the intended change and
  the author's own curve of the target given it.
* ``annotations`` and ``staged_annotations`` gain the curve of the target given the follow-up
  (``context_points``, ``context_xi`` … ``context_params_source``) and ``change`` (the label an
  annotator chose instead of the derived one); ``gold_annotations`` gains the gold's second
  curve and change label.

Columns are added with ``ALTER TABLE … ADD COLUMN`` (nullable, or with a server default): no
table is rebuilt, so nothing cascades on SQLite and existing rows keep every value; a
single-texts project's rows read as before (no second curve, no change).

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-29
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0013'
down_revision: Union[str, None] = '0012'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

_CONTEXT_TABLES = ('annotations', 'staged_annotations')


def _context_columns() -> list[sa.Column]:
    return [
        sa.Column('context_points', sa.JSON(), server_default='[]', nullable=False),
        sa.Column('context_xi', sa.Float(), nullable=True),
        sa.Column('context_omega', sa.Float(), nullable=True),
        sa.Column('context_alpha', sa.Float(), nullable=True),
        sa.Column('context_scale', sa.Float(), nullable=True),
        sa.Column('context_rmse', sa.Float(), nullable=True),
        sa.Column('context_params_source', sa.String(length=16), server_default='fit', nullable=False),
        sa.Column('change', sa.String(length=16), server_default='', nullable=False),
    ]


def upgrade() -> None:
    op.create_table('sample_pairs',
    sa.Column('sample_id', sa.Integer(), nullable=False),
    sa.Column('target_key', sa.String(length=64), nullable=False),
    sa.Column('follow_up', sa.Text(), nullable=False),
    sa.Column('reference_alone', sa.SmallInteger(), nullable=True),
    sa.Column('reference_given', sa.SmallInteger(), nullable=True),
    sa.Column('reference_change', sa.String(length=16), server_default='', nullable=False),
    sa.Column('intended_change', sa.String(length=16), server_default='', nullable=False),
    sa.Column('authored_by', sa.Integer(), nullable=True),
    sa.Column('authored_from', sa.Integer(), nullable=True),
    sa.Column('authored_at', sa.DateTime(), nullable=True),
    sa.Column('authored_xi', sa.Float(), nullable=True),
    sa.Column('authored_omega', sa.Float(), nullable=True),
    sa.Column('authored_alpha', sa.Float(), nullable=True),
    sa.ForeignKeyConstraint(['sample_id'], ['samples.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['authored_by'], ['users.id']),
    sa.ForeignKeyConstraint(['authored_from'], ['samples.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('sample_id')
    )
    op.create_index('ix_sample_pairs_target', 'sample_pairs', ['target_key'], unique=False)
    op.create_index('ix_sample_pairs_author', 'sample_pairs', ['authored_by'], unique=False)
    for table in _CONTEXT_TABLES:
        for column in _context_columns():
            op.add_column(table, column)
    op.add_column('gold_annotations', sa.Column('context_xi', sa.Float(), nullable=True))
    op.add_column('gold_annotations', sa.Column('context_omega', sa.Float(), nullable=True))
    op.add_column('gold_annotations', sa.Column('context_alpha', sa.Float(), nullable=True))
    op.add_column('gold_annotations', sa.Column('change', sa.String(length=16), server_default='', nullable=False))


def downgrade() -> None:
    # SQLite >= 3.35 drops a column in place (no rebuild) when nothing else refers to it
    for name in ('change', 'context_alpha', 'context_omega', 'context_xi'):
        op.drop_column('gold_annotations', name)
    for table in reversed(_CONTEXT_TABLES):
        for column in reversed(_context_columns()):
            op.drop_column(table, column.name)
    op.drop_index('ix_sample_pairs_author', table_name='sample_pairs')
    op.drop_index('ix_sample_pairs_target', table_name='sample_pairs')
    op.drop_table('sample_pairs')
