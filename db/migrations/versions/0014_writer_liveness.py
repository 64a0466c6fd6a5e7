"""writers that can be told dead: an import's process, an export's heartbeat

* ``import_batches`` gains ``host`` and ``pid``: the process writing the import. An import whose
  process is gone on this host is rolled back (or finished) at once by the next import into its
  project, instead of after its heartbeat has gone stale; on another host only the heartbeat
  tells (a process id means nothing there).
* ``dataset_exports`` gains ``heartbeat_at``, moved every few seconds while the export writes:
  an export whose writer on another app server died reads as failed once its heartbeat is
  stale, not an hour after it started.

Columns are added with ``ALTER TABLE … ADD COLUMN`` (nullable, or with a server default): no
table is rebuilt, so nothing cascades on SQLite and existing rows keep every value. Rows from
before have no writer recorded (``host`` "", ``pid`` and ``heartbeat_at`` NULL) and are judged as
before: an import by its heartbeat, an export by its age.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0014'
down_revision: Union[str, None] = '0013'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.add_column('import_batches', sa.Column('host', sa.String(length=255), server_default='', nullable=False))
    op.add_column('import_batches', sa.Column('pid', sa.Integer(), nullable=True))
    op.add_column('dataset_exports', sa.Column('heartbeat_at', sa.DateTime(), nullable=True))


def downgrade() -> None:
    # SQLite >= 3.35 drops a column in place (no rebuild) when nothing else refers to it
    op.drop_column('dataset_exports', 'heartbeat_at')
    op.drop_column('import_batches', 'pid')
    op.drop_column('import_batches', 'host')
