"""index annotations by annotator and status

The annotator's counters (queue_status) count their own rows by status on every workbench run;
this index lets them read the index alone instead of the table.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""
from typing import Sequence, Union

from alembic import op

revision: str = "0002"
down_revision: Union[str, None] = "0001"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_index("ix_annotations_annotator_status", "annotations",
                    ["annotator_id", "status", "sample_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_annotations_annotator_status", table_name="annotations")
