"""writers that can be told dead: an import's process, an export's heartbeat

* ``import_batches`` gains ``host`` and ``pid``: the process writing the import. An import whose
  process is gone on this host is rolled back (or finished) at once by the next import into its
  project, instead of after its heartbeat has gone stale; on another host only the heartbeat
  tells (a process id means nothing there).
* ``samples`` gains ``import_batch_id``: the batched import that wrote the row, so that rolling
  back or publishing one import touches that import's rows and no other's (an index finds an
  import's hidden rows in id order). No foreign key: adding one to ``samples`` would rebuild
  the table on SQLite. The hidden rows of an import unfinished at the upgrade are tied to it
  here: they are its project's (one unfinished import per project, and a rolled-back import
  left none behind), so it can still be rolled back or finished.
* ``import_batches`` ids are never handed out again: on SQLite the table is rebuilt with
  AUTOINCREMENT (SQLite otherwise gives a deleted row's id to the next row when it was the
  highest; PostgreSQL's sequence never does). A batch's id then names one import for good, and
  a recovery acting late on a rolled-back import cannot hold the next one under the same id.
* ``dataset_exports`` gains ``heartbeat_at``, moved every few seconds while the export writes:
  an export whose writer on another app server died reads as failed once its heartbeat is
  stale, not an hour after it started.

Columns are added with ``ALTER TABLE … ADD COLUMN`` (nullable, or with a server default), and
existing rows keep every value. The one table rebuilt, ``import_batches`` on SQLite, is rebuilt
with foreign keys off (as every migration runs there), so nothing cascades into its staged
annotations. Rows from
before have no writer recorded (``host`` "", ``pid`` and ``heartbeat_at`` NULL) and are judged as
before: an import by its heartbeat, an export by its age. Samples other than an unfinished
import's hidden rows name no import (``import_batch_id`` NULL).

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
    if op.get_bind().dialect.name == 'sqlite':
        # SQLite hands a deleted row's id to the next row when it was the highest; AUTOINCREMENT
        # never does (PostgreSQL's sequence never does either): a batch's id names one import
        # for good, so that a late recovery of a rolled-back import never holds the next one
        with op.batch_alter_table('import_batches', recreate='always',
                                  table_kwargs={'sqlite_autoincrement': True}):
            pass
    op.add_column('samples', sa.Column('import_batch_id', sa.Integer(), nullable=True))
    op.execute("UPDATE samples SET import_batch_id = (SELECT b.id FROM import_batches b "
               "WHERE b.open_project_id = samples.project_id) WHERE status = 'importing'")
    op.create_index('ix_samples_import_batch', 'samples', ['import_batch_id', 'status', 'id'], unique=False)


def downgrade() -> None:
    # SQLite >= 3.35 drops a column in place (no rebuild) when nothing else refers to it; the
    # batches' AUTOINCREMENT stays (ids that are never reused serve 0013 as well)
    op.drop_index('ix_samples_import_batch', table_name='samples')
    op.drop_column('samples', 'import_batch_id')
    op.drop_column('dataset_exports', 'heartbeat_at')
    op.drop_column('import_batches', 'pid')
    op.drop_column('import_batches', 'host')
