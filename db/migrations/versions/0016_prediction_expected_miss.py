"""a model's prediction keeps its calibrated uncertainty

* ``model_predictions`` gains ``expected_miss``: how far (W1, log-time units) the model usually
  misses a curve like this one, learnt from its cross-fitted residuals
  (:mod:`annotation.training.calibration`) — what "most uncertain first" orders by and what the
  calibrated half-gone interval is scaled by — with an index on ``(job_id, expected_miss)`` for
  that order.

Nullable, so existing predictions keep every value and read NULL: a job applied before the
model's uncertainty was calibrated has none, and the queue does not order by it (its run was
never cross-validated against the trivial reference either).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-07
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0016'
down_revision: Union[str, None] = '0015'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.add_column('model_predictions', sa.Column('expected_miss', sa.Float(), nullable=True))
    op.create_index('ix_model_predictions_miss', 'model_predictions', ['job_id', 'expected_miss'])


def downgrade() -> None:
    op.drop_index('ix_model_predictions_miss', table_name='model_predictions')
    # SQLite >= 3.35 drops a column in place (no rebuild) when nothing else refers to it
    op.drop_column('model_predictions', 'expected_miss')
