"""annotators scored as experts, a performance-weighted gold and a third annotator

* ``samples`` gains ``realised_minutes`` (a known outcome imported with a text: the minutes after
  the text at which its statement stopped holding — a seed of the annotators' calibration) and
  ``extra_annotators`` (annotators asked beyond the project's k: a flagged or uncertain sample's
  third annotator), with an index on ``(project_id, status, n_assigned, extra_annotators)`` so the
  hand-out finds the few complete samples asked for one more without walking every complete one;
* ``gold_annotations`` gains ``pooling`` (which rule pooled the annotators' curves: ``equal``,
  ``calibration`` or ``model``) and ``pool_weights`` (each annotation's weight in it).

Every new column is nullable or has a server default, so existing rows keep every value: their
samples have no known outcome and no extra annotator, and their gold reads ``pooling = ''`` —
stored before the rule was recorded (the equal-weights mean, the only rule there was).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-07
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0017'
down_revision: Union[str, None] = '0016'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.add_column('samples', sa.Column('realised_minutes', sa.Float(), nullable=True))
    op.add_column('samples', sa.Column('extra_annotators', sa.SmallInteger(), nullable=False,
                                       server_default='0'))
    op.create_index('ix_samples_extra', 'samples', ['project_id', 'status', 'n_assigned', 'extra_annotators'])
    op.add_column('gold_annotations', sa.Column('pooling', sa.String(length=16), nullable=False,
                                                server_default=''))
    op.add_column('gold_annotations', sa.Column('pool_weights', sa.JSON(), nullable=True))


def downgrade() -> None:
    # SQLite >= 3.35 drops a column in place (no rebuild) when nothing else refers to it
    op.drop_column('gold_annotations', 'pool_weights')
    op.drop_column('gold_annotations', 'pooling')
    op.drop_index('ix_samples_extra', table_name='samples')
    op.drop_column('samples', 'extra_annotators')
    op.drop_column('samples', 'realised_minutes')
