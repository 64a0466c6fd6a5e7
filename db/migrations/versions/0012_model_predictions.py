"""model predictions: what an applied training run (or a cross-fitted gold audit) predicted

* ``model_predictions``: one row per (job, sample) — the ensemble's curve (ξ, ω, α, base-1.1
  log minutes), its spread (mean W1 between the members' curves), the half-gone time of the
  mean curve with its interval over the members, and for an audit job the W1 from the gold
  and the audit score. The job (``jobs.kind`` ``predict`` or ``audit``) says which it is.

A new table only: no existing table is rebuilt, so nothing cascades on SQLite.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-29
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0012'
down_revision: Union[str, None] = '0011'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('model_predictions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('job_id', sa.Integer(), nullable=False),
    sa.Column('sample_id', sa.Integer(), nullable=False),
    sa.Column('xi', sa.Float(), nullable=False),
    sa.Column('omega', sa.Float(), nullable=False),
    sa.Column('alpha', sa.Float(), nullable=False),
    sa.Column('spread_w1', sa.Float(), nullable=False),
    sa.Column('half_gone_minutes', sa.Float(), nullable=False),
    sa.Column('half_gone_low', sa.Float(), nullable=False),
    sa.Column('half_gone_high', sa.Float(), nullable=False),
    sa.Column('gold_w1', sa.Float(), nullable=True),
    sa.Column('score', sa.Float(), nullable=True),
    sa.ForeignKeyConstraint(['job_id'], ['jobs.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['sample_id'], ['samples.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('job_id', 'sample_id', name='uq_model_predictions_job_sample')
    )
    op.create_index('ix_model_predictions_spread', 'model_predictions', ['job_id', 'spread_w1'], unique=False)
    op.create_index('ix_model_predictions_score', 'model_predictions', ['job_id', 'score'], unique=False)
    op.create_index('ix_model_predictions_sample', 'model_predictions', ['sample_id'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_model_predictions_sample', table_name='model_predictions')
    op.drop_index('ix_model_predictions_score', table_name='model_predictions')
    op.drop_index('ix_model_predictions_spread', table_name='model_predictions')
    op.drop_table('model_predictions')
