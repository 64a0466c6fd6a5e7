"""ongoing gold checks: the check marker on annotations, the scores, the pauses

* ``annotations.is_gold_check``: the annotation is a gold check handed to an admitted annotator
  (from the warm-up set); rows from before get ``false``.
* ``gold_checks``: one row per submitted check, its W1, Jaccard and Pk against gold and
  whether it passed.
* ``gold_check_pauses``: an annotator paused from production by the gold-check rule, and who
  lifted it, when and why.

SQLite-safe without a table rebuild: ``CREATE TABLE`` and ``ADD COLUMN ... NOT NULL DEFAULT`` are
plain statements on SQLite.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0010'
down_revision: Union[str, None] = '0009'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.add_column('annotations',
                  sa.Column('is_gold_check', sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table('gold_checks',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('sample_id', sa.Integer(), nullable=False),
    sa.Column('annotation_id', sa.Integer(), nullable=False),
    sa.Column('scored_at', sa.DateTime(), nullable=False),
    sa.Column('w1', sa.Float(), nullable=True),
    sa.Column('jaccard', sa.Float(), nullable=True),
    sa.Column('pk', sa.Float(), nullable=True),
    sa.Column('passed', sa.Boolean(), nullable=True),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id']),
    sa.ForeignKeyConstraint(['sample_id'], ['samples.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['annotation_id'], ['annotations.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('annotation_id')
    )
    op.create_index('ix_gold_checks_project_user', 'gold_checks', ['project_id', 'user_id', 'scored_at'],
                    unique=False)
    op.create_table('gold_check_pauses',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('paused_at', sa.DateTime(), nullable=False),
    sa.Column('figures', sa.JSON(), nullable=False),
    sa.Column('lifted_at', sa.DateTime(), nullable=True),
    sa.Column('lifted_by', sa.Integer(), nullable=True),
    sa.Column('lift_note', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id']),
    sa.ForeignKeyConstraint(['lifted_by'], ['users.id']),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_gold_check_pauses_project_user', 'gold_check_pauses',
                    ['project_id', 'user_id', 'lifted_at'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_gold_check_pauses_project_user', table_name='gold_check_pauses')
    op.drop_table('gold_check_pauses')
    op.drop_index('ix_gold_checks_project_user', table_name='gold_checks')
    op.drop_table('gold_checks')
    op.drop_column('annotations', 'is_gold_check')
