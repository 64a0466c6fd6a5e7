"""index samples by project and warm-up mark

The queue asks on every call whether a project has warm-up samples (and which); without this
index that question read every sample of the project.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""
from typing import Sequence, Union

from alembic import op

revision: str = "0004"
down_revision: Union[str, None] = "0003"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_index("ix_samples_warmup", "samples", ["project_id", "is_warmup"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_samples_warmup", table_name="samples")
