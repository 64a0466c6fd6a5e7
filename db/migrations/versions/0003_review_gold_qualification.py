"""review queue, gold values, warm-up and qualification

Existing rows get is_warmup = false and an empty returned_note (server defaults); existing
projects get their running parameter sums.

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
    op.create_table('parameter_stats',
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('n', sa.Integer(), nullable=False),
    sa.Column('sum_xi', sa.Float(), nullable=False),
    sa.Column('sumsq_xi', sa.Float(), nullable=False),
    sa.Column('sum_omega', sa.Float(), nullable=False),
    sa.Column('sumsq_omega', sa.Float(), nullable=False),
    sa.Column('sum_alpha', sa.Float(), nullable=False),
    sa.Column('sumsq_alpha', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('project_id')
    )
    # running sums for the projects that exist already (new projects get theirs when created)
    op.execute(
        "INSERT INTO parameter_stats (project_id, n, sum_xi, sumsq_xi, sum_omega, sumsq_omega, "
        "sum_alpha, sumsq_alpha) "
        "SELECT p.id, count(a.id), coalesce(sum(a.xi), 0), coalesce(sum(a.xi * a.xi), 0), "
        "coalesce(sum(a.omega), 0), coalesce(sum(a.omega * a.omega), 0), "
        "coalesce(sum(a.alpha), 0), coalesce(sum(a.alpha * a.alpha), 0) "
        "FROM projects p LEFT JOIN samples s ON s.project_id = p.id "
        "LEFT JOIN annotations a ON a.sample_id = s.id AND a.status = 'submitted' "
        "AND a.xi IS NOT NULL AND a.omega IS NOT NULL AND a.alpha IS NOT NULL "
        "GROUP BY p.id"
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
    op.drop_table('parameter_stats')
    op.drop_table('qualifications')

