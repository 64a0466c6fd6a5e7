"""a lead's change label that the gold curves do not give is recorded as an override

* ``gold_annotations`` gains ``curves_change``: when a lead's decision stores a context pair's
  change label other than the one the gold's two curves give (an override, which the decision
  must explain in its note), the label the curves give; "" otherwise. The export flags such gold
  in each record's provenance and the dataset card counts it.

The column is added with ``ALTER TABLE … ADD COLUMN`` and a server default, so existing rows keep
every value and read "" — gold decided before the rule is not rewritten (its note may not give a
reason, and whether it was an override is for the export to tell from its curves, not for the
upgrade to decide).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0015'
down_revision: Union[str, None] = '0014'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.add_column('gold_annotations', sa.Column('curves_change', sa.String(length=16), server_default='',
                                                nullable=False))


def downgrade() -> None:
    # SQLite >= 3.35 drops a column in place (no rebuild) when nothing else refers to it
    op.drop_column('gold_annotations', 'curves_change')
