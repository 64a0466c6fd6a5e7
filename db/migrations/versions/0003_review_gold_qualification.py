"""review queue, gold values, warm-up and qualification

Existing rows get is_warmup = false and an empty returned_note (server defaults).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0003'
down_revision: Union[str, None] = '0002'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:

    op.create_table('qualifications',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('figures', sa.JSON(), nullable=False),
    sa.Column('decided_by', sa.Integer(), nullable=True),
    sa.Column('decided_at', sa.DateTime(), nullable=True),
    sa.Column('overridden', sa.Boolean(), nullable=False),
    sa.CheckConstraint("status in ('warmup', 'admitted')", name='ck_qualifications_status'),
    sa.ForeignKeyConstraint(['decided_by'], ['users.id'], ),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('project_id', 'user_id', name='uq_qualifications_project_user')
    )
    op.create_table('review_days',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('day', sa.String(length=10), nullable=False),
    sa.Column('n_submitted', sa.Integer(), nullable=False),
    sa.Column('n_sampled', sa.Integer(), nullable=False),
    sa.Column('drawn_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('project_id', 'day', name='uq_review_days_project_day')
    )
    op.create_table('review_items',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('sample_id', sa.Integer(), nullable=False),
    sa.Column('reasons', sa.JSON(), nullable=False),
    sa.Column('details', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('opened_at', sa.DateTime(), nullable=False),
    sa.Column('closed_at', sa.DateTime(), nullable=True),
    sa.Column('closed_by', sa.Integer(), nullable=True),
    sa.Column('decision', sa.String(length=32), nullable=False),
    sa.Column('note', sa.Text(), nullable=False),
    sa.CheckConstraint("status in ('open', 'closed')", name='ck_review_items_status'),
    sa.ForeignKeyConstraint(['closed_by'], ['users.id'], ),
    sa.ForeignKeyConstraint(['sample_id'], ['samples.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('review_items', schema=None) as batch_op:
        batch_op.create_index('ix_review_items_sample', ['sample_id'], unique=False)
        batch_op.create_index('ix_review_items_status', ['status', 'opened_at'], unique=False)

    op.create_table('gold_annotations',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('sample_id', sa.Integer(), nullable=False),
    sa.Column('boundaries', sa.JSON(), nullable=False),
    sa.Column('segment_axes', sa.JSON(), nullable=False),
    sa.Column('xi', sa.Float(), nullable=False),
    sa.Column('omega', sa.Float(), nullable=False),
    sa.Column('alpha', sa.Float(), nullable=False),
    sa.Column('source', sa.String(length=32), nullable=False),
    sa.Column('source_annotation_id', sa.Integer(), nullable=True),
    sa.Column('decided_by', sa.Integer(), nullable=True),
    sa.Column('decided_at', sa.DateTime(), nullable=False),
    sa.Column('note', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['decided_by'], ['users.id'], ),
    sa.ForeignKeyConstraint(['sample_id'], ['samples.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['source_annotation_id'], ['annotations.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('sample_id')
    )
    with op.batch_alter_table('annotations', schema=None) as batch_op:
        batch_op.add_column(sa.Column('returned_note', sa.Text(), nullable=False, server_default=''))

    with op.batch_alter_table('samples', schema=None) as batch_op:
        batch_op.add_column(sa.Column('is_warmup', sa.Boolean(), nullable=False, server_default=sa.false()))




def downgrade() -> None:

    with op.batch_alter_table('samples', schema=None) as batch_op:
        batch_op.drop_column('is_warmup')

    with op.batch_alter_table('annotations', schema=None) as batch_op:
        batch_op.drop_column('returned_note')

    op.drop_table('gold_annotations')
    with op.batch_alter_table('review_items', schema=None) as batch_op:
        batch_op.drop_index('ix_review_items_status')
        batch_op.drop_index('ix_review_items_sample')

    op.drop_table('review_items')
    op.drop_table('review_days')
    op.drop_table('qualifications')

