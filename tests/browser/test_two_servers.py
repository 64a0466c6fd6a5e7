"""Two app servers on one PostgreSQL database, an annotator on each: how a team outgrows one
machine (issue 21; SPEC §9–10: all state lives in the database).

Two ``streamlit run app.py`` processes start at the same moment against one fresh, empty
database. Each opens (and so creates or upgrades) the database on its first page view; the test
holds the upgrade lock until both servers wait for it, so their two upgrades really are in
flight together: one creates the schema, the other waits for it and finds it done; both show
the Welcome page. Then (set-up through the services) an admin, a lead, two annotators and a
project of eight texts with k = 2; annotator A works on server 1 and annotator B on server 2, in
two Chromium contexts, step by step side by side: split the text, label both segments, place
three curve points, submit — both submit at once, so the second submit of each sample (the one
that settles it) races the other server's.

The database then holds every submit each browser made exactly once, with what was drawn; no
sample has more than k annotators; A and B shared every sample (k = 2), starting with the same
first one; each sample both submitted has exactly one gold annotation or review item.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import sqlalchemy as sa
from playwright.sync_api import expect
from sqlalchemy import func, select

from annotation.services.accounts import accounts
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.settings import ProjectSettings
from annotation.corpus.text_import import TextRecord
from db.engine import Database
from db.models import Annotation, Assignment, GoldAnnotation, ReviewItem, Sample, User
from db.upgrade import alembic_config
from tests.browser import app_server
from tests.browser.flow_steps import sign_in
from tests.upgrade_lock import upgrade_lock_held

pytestmark = [pytest.mark.browser, pytest.mark.postgres]

SURFACE = '[data-testid="surface"]'
PLOT = '[data-testid="curve-plot"]'
X_MAX = 200.0  # the chart's x range (base-1.1 log-time units)
K = 2
SUBMITS_EACH = 3
SPLIT = 3  # the boundary clicked: before the fourth word
CURVE = ((40.0, 0.5), (58.0, 1.0), (85.0, 0.3))
TEXTS = (
    "The night bus to the airport leaves every twenty minutes until midnight.",
    "The library on the main square is closed on Sundays during the summer.",
    "Our team meeting has moved from Tuesday to Thursday afternoon this week.",
    "The river has flooded the lower fields twice since the start of March.",
    "A new bridge across the harbour will open to cyclists next spring.",
    "The bakery sells fresh rye bread only on Friday mornings before nine.",
    "Roadworks on the ring road will close two lanes for about three months.",
    "The museum's winter exhibition of Dutch landscapes ends in late January.",
)


@pytest.fixture
def two_servers(postgres_url, tmp_path, request):
    """Two ``streamlit run app.py`` on one fresh PostgreSQL database, started at the same moment
    (both waited for until healthy); stopped by their own PIDs afterwards."""
    env = {"CHRONOCEPT_DATABASE_URL": postgres_url,
           "CHRONOCEPT_BACKUP_DIR": str(tmp_path / "backups"),
           "CHRONOCEPT_EXPORT_DIR": str(tmp_path / "exports"),
           "CHRONOCEPT_RUNS_DIR": str(tmp_path / "runs")}
    ports: list[int] = []
    while len(ports) < 2:
        port = app_server.free_port()
        if port not in ports:
            ports.append(port)
    logs = [tmp_path / f"server-{n}.log" for n in (1, 2)]
    with ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(app_server.start, Path("app.py"), port, log, env, timeout_s=90.0)
                   for port, log in zip(ports, logs)]
        outcomes = [(f.result(), None) if f.exception() is None else (None, f.exception())
                    for f in futures]
    started = [started for started, _ in outcomes if started is not None]
    try:
        failures = [str(error) for _, error in outcomes if error is not None]
        if failures:
            pytest.fail("\n\n".join(failures))
        yield postgres_url, [base for _, base in started], logs
    finally:
        for process, _ in started:
            app_server.stop(process)
        failed = getattr(request.node, "rep_call", None)
        if failed is not None and failed.failed:
            for log in logs:
                print(f"---- {log.name} ----")
                print(log.read_text(errors="replace")[-20_000:] if log.exists() else "(no log)")


def _head() -> str:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def _tables(url: str) -> set[str]:
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            return set(sa.inspect(conn).get_table_names())
    finally:
        engine.dispose()


def _team(url: str):
    """Admin, lead, annotators A and B, and a project of :data:`TEXTS` with k = 2."""
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    accounts.create_user(db, admin, "lead1", "lead1-password", "lead")
    lead = accounts.authenticate(db, "lead1", "lead1-password")
    for name in ("anna", "bruno"):
        accounts.create_user(db, admin, name, f"{name}-password", "annotator")
    project = projects.create_project(db, lead, "Two servers",
                                      settings=ProjectSettings(annotators_per_sample=K))
    records = [TextRecord(text, 1, f"T{n:02d}", n) for n, text in enumerate(TEXTS, start=1)]
    text_imports.import_texts(db, lead, project.id, records, source="two-servers")
    return db, project.id


def _settled(page, acked: int) -> None:
    """The server acknowledged edit ``acked`` of this sample and nothing is pending."""
    surface = page.locator(SURFACE)
    expect(surface).to_have_attribute("data-acked", str(acked), timeout=30_000)
    expect(surface).to_have_attribute("data-pending", "0", timeout=30_000)


def _click_chart(page, x: float, y: float) -> None:
    box = page.locator(PLOT).bounding_box()
    page.mouse.click(box["x"] + x / X_MAX * box["width"], box["y"] + (1 - y) * box["height"])


def _fresh_sample(page) -> str:
    """Wait for a sample with no edit yet on the workbench; its annotation id."""
    page.locator(f"{SURFACE}[data-acked='0'][data-pending='0'] [data-gap='{SPLIT}']").wait_for(timeout=30_000)
    return page.locator(SURFACE).get_attribute("data-annotation-id")


def _annotate_side_by_side(pages) -> list[str]:
    """One sample on each page, every step on both before the next step: split, label, draw,
    submit (both at once); wait for each page's next sample. Returns the submitted ids."""
    for page in pages:
        page.locator(f"{SURFACE} [data-gap='{SPLIT}']").click()
    for page in pages:
        _settled(page, 1)
        page.keyboard.press("Alt+ArrowRight")
    for page in pages:
        _settled(page, 2)
        expect(page.locator(SURFACE)).to_have_attribute("data-step", "1")
        page.locator(f"{SURFACE} [data-segment='0']").focus()
        page.keyboard.press("1")  # Main
        page.locator(f"{SURFACE} [data-segment='1']").focus()
        page.keyboard.press("2")  # the second axis
    for page in pages:
        _settled(page, 4)
        page.keyboard.press("Alt+ArrowRight")
    for page in pages:
        _settled(page, 5)
        page.locator(PLOT).wait_for(timeout=30_000)
        for x, y in CURVE:
            _click_chart(page, x, y)
    submitted = []
    for page in pages:
        _settled(page, 8)
        submitted.append(page.locator(SURFACE).get_attribute("data-annotation-id"))
    for page in pages:
        page.keyboard.press("Enter")
    for page, done in zip(pages, submitted):
        # the submitted sample's surface goes (for a moment Streamlit shows it, stale, beside
        # the next sample's: a locator for "the" surface then names two elements)
        expect(page.locator(f"{SURFACE}[data-annotation-id='{done}']")).to_have_count(0, timeout=30_000)
        expect(page.locator(SURFACE)).to_have_count(1, timeout=30_000)
        _fresh_sample(page)
    return submitted


def test_two_servers_two_annotators_one_database(chromium_browser, two_servers):
    url, bases, logs = two_servers
    contexts = [chromium_browser.new_context(viewport={"width": 1366, "height": 900}) for _ in bases]
    try:
        pages = []
        for context in contexts:
            context.set_default_timeout(20_000)
            pages.append(context.new_page())

        # Both servers open the fresh database at once: each first page view upgrades it.
        with upgrade_lock_held(url) as wait_for:
            for page, base in zip(pages, bases):
                page.goto(base)
            wait_for(2, timeout=90.0)  # both servers' upgrades are under way, waiting for the lock
            assert "alembic_version" not in _tables(url)
        for page in pages:
            expect(page.get_by_role("heading", name="Welcome to Chronocept Studio")).to_be_visible(timeout=60_000)
        engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
        with engine.connect() as conn:
            assert list(conn.scalars(sa.text("SELECT version_num FROM alembic_version"))) == [_head()]
        engine.dispose()

        db, project_id = _team(url)
        try:
            users = {"anna": (pages[0], bases[0]), "bruno": (pages[1], bases[1])}
            for name, (page, base) in users.items():
                sign_in(page, base, name, f"{name}-password")
            for page in pages:
                page.get_by_role("button", name="Start the next sample").click()
            first = [_fresh_sample(page) for page in pages]

            submitted: dict[str, list[int]] = {"anna": [], "bruno": []}
            for _ in range(SUBMITS_EACH):
                done = _annotate_side_by_side(pages)
                for name, annotation_id in zip(users, done):
                    submitted[name].append(int(annotation_id))
            assert [submitted["anna"][0], submitted["bruno"][0]] == [int(i) for i in first]
            for page, base in zip(pages, bases):
                assert page.url.startswith(base)  # each stayed on its own server
            _check_database(db, project_id, submitted)
        finally:
            db.dispose()
        for log in logs:  # no script run failed on either server
            text = log.read_text(errors="replace")
            assert not re.search(r"Traceback|Uncaught app exception", text), text[-5000:]
    finally:
        for context in contexts:
            context.close()


def _check_database(db: Database, project_id: int, submitted: dict[str, list[int]]) -> None:
    with db.read() as s:
        user_ids = dict(s.execute(select(User.username, User.id)).all())
        rows = s.execute(select(Annotation, Sample.external_id).join(Sample)
                         .where(Sample.project_id == project_id).order_by(Annotation.id)).all()
        samples = {smp.id: smp for smp in s.scalars(select(Sample).where(Sample.project_id == project_id))}
        assignments = dict(s.execute(select(Assignment.sample_id, func.count())
                                     .group_by(Assignment.sample_id)).all())
        gold = dict(s.execute(select(GoldAnnotation.sample_id, func.count())
                              .group_by(GoldAnnotation.sample_id)).all())
        reviews = dict(s.execute(select(ReviewItem.sample_id, func.count())
                                 .group_by(ReviewItem.sample_id)).all())

    # every submit each browser made is stored exactly once, as drawn, and nothing else is
    sample_of: dict[str, list[int]] = {}
    for name, ids in submitted.items():
        mine = [a for a, _ in rows if a.annotator_id == user_ids[name] and a.status == "submitted"]
        assert [a.id for a in mine] == sorted(ids) and len(set(ids)) == SUBMITS_EACH, (name, ids)
        for a in mine:
            assert a.boundaries == [0, SPLIT], a.boundaries
            assert a.segment_axes[0] == "main" and a.segment_axes[1] not in (None, "main"), a.segment_axes
            assert len(a.points) == len(CURVE) and a.submitted_at is not None
            for (x, y), (ex, ey) in zip(a.points, CURVE):
                assert abs(x - ex) < 1.0 and abs(y - ey) < 0.02, a.points
        sample_of[name] = [a.sample_id for a in sorted(mine, key=lambda a: a.id)]
        drafts = [a for a, _ in rows if a.annotator_id == user_ids[name] and a.status == "draft"]
        assert len(drafts) == 1  # the sample shown after the last submit
    # k = 2 shares every sample: both annotated the same ones, the same first one among them
    assert sample_of["anna"] == sample_of["bruno"], sample_of
    assert len(set(sample_of["anna"])) == SUBMITS_EACH

    # no sample has more than k annotators; the assignment count and the counter agree
    per_sample: dict[int, list[Annotation]] = {}
    for a, _ in rows:
        per_sample.setdefault(a.sample_id, []).append(a)
    for sample_id, smp in samples.items():
        annotators = [a.annotator_id for a in per_sample.get(sample_id, [])]
        assert len(annotators) == len(set(annotators)) <= K, (sample_id, annotators)
        assert smp.n_assigned == assignments.get(sample_id, 0) == len(annotators) <= K, sample_id
        both = sum(a.status == "submitted" for a in per_sample.get(sample_id, [])) == K
        settled = gold.get(sample_id, 0) + reviews.get(sample_id, 0)
        # a sample both submitted is settled exactly once (gold, or a review item); no other is
        assert settled == (1 if both else 0), (sample_id, gold.get(sample_id), reviews.get(sample_id))
        assert gold.get(sample_id, 0) <= 1 and reviews.get(sample_id, 0) <= 1
    assert sum(1 for ids in sample_of.values() for _ in ids) == K * SUBMITS_EACH
