"""A lead imports texts, reviews the near-duplicates, exports the gold and downloads it — in Chromium.

The database holds a small project whose samples already have gold (``tests.gold_data``). The
lead signs in, uploads a JSON Lines file of four new texts (two of them identical but for the
final punctuation), imports them, runs the near-duplicate search (the real SBERT model, in the
server), confirms the pair — the later text leaves the pool — finds it under "Confirmed", undoes
the decision, then exports the project and downloads the zip, which holds the dataset card, the
benchmark files and the manifest of export 1.
"""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from annotation.services.accounts import accounts
from db.engine import Database
from tests.browser.flow_steps import open_page, sign_in, wait_until, whole_page_shot
from db.models import NearDuplicate, Sample
from tests.gold_data import gold_project

pytestmark = pytest.mark.browser

N_GOLD = 9
FOLDER = "gold-dataset"
#: the texts the lead uploads: N-002 is N-001 with another final punctuation mark
NEW_TEXTS = (
    ("N-001", "The museum will reopen its east wing next spring after the roof repairs."),
    ("N-002", "The museum will reopen its east wing next spring after the roof repairs!"),
    ("N-003", "Yesterday a farmer sold three goats at the village market for a good price."),
    ("N-004", "Our flight to Lisbon leaves at dawn on Friday, so pack your bags tonight."),
)


@pytest.fixture
def seeded(tmp_path):
    """A SQLite file with an admin, a lead and the gold project; the export folder's root."""
    url = f"sqlite:///{tmp_path / 'dataset.db'}"
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    accounts.create_user(db, admin, "lead1", "lead1-password", "lead")
    lead = accounts.authenticate(db, "lead1", "lead1-password")
    project_id = gold_project(db, lead, N_GOLD, "Gold")
    yield url, db, project_id, tmp_path / "exports"
    db.dispose()


def sample_status(db: Database, project_id: int, external_id: str) -> str | None:
    with db.read() as s:
        return s.scalar(select(Sample.status).where(Sample.project_id == project_id,
                                                    Sample.external_id == external_id))


def mark_of(db: Database, project_id: int, external_id: str) -> tuple[int, str, str] | None:
    """(mark id, status, external id of the kept text) of the mark on ``external_id``."""
    with db.read() as s:
        row = s.execute(
            select(NearDuplicate.id, NearDuplicate.status, NearDuplicate.duplicate_of_id)
            .join(Sample, Sample.id == NearDuplicate.sample_id)
            .where(Sample.project_id == project_id, Sample.external_id == external_id)).first()
        if row is None:
            return None
        return row.id, row.status, s.get(Sample, row.duplicate_of_id).external_id


def shot(page, path) -> None:
    whole_page_shot(page, path)


def import_texts(page) -> None:
    open_page(page, "Projects & texts")
    expect(page.get_by_role("heading", name="Import texts into “Gold”")).to_be_visible()
    lines = "\n".join(json.dumps({"id": i, "text": t, "benchmark": 1}) for i, t in NEW_TEXTS)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        {"name": "new_texts.jsonl", "mimeType": "application/json", "buffer": lines.encode()})
    expect(page.get_by_text(f"Preview — {len(NEW_TEXTS)} texts")).to_be_visible(timeout=20_000)
    page.get_by_role("button", name=f"Import {len(NEW_TEXTS)} texts into Gold").click()
    expect(page.get_by_text(f"Imported {len(NEW_TEXTS)} texts into Gold ({len(NEW_TEXTS)} benchmark 1, "
                            "0 benchmark 2); 0 were already in the project.")).to_be_visible(
        timeout=20_000)


def review_duplicates(page, db: Database, project_id: int, shot_path) -> None:
    open_page(page, "De-duplication")
    expect(page.get_by_text("The search has not run in this project yet")).to_be_visible()
    page.get_by_role("button", name="Find near-duplicates in Gold").click()
    # the first run loads SBERT in the server and embeds every text
    mark = wait_until(lambda: mark_of(db, project_id, "N-002"), timeout=90, what="the mark on N-002")
    mark_id, status, kept = mark
    assert (status, kept) == ("pending", "N-001")
    assert mark_of(db, project_id, "N-003") is None and mark_of(db, project_id, "N-004") is None
    # a button with a tooltip also has a zero-size twin in the DOM: take the visible one; while a
    # run is under way Streamlit keeps the previous run's elements (data-stale="true")
    confirm = page.locator(f'.st-key-duplicates-confirm-{mark_id}:not([data-stale="true"]) button:visible')
    expect(confirm).to_be_visible(timeout=60_000)
    expect(page.get_by_text("Near-duplicate · N-002")).to_be_visible()
    expect(page.get_by_text("Kept · N-001 (earlier)")).to_be_visible()
    expect(page.get_by_text("N-003")).to_have_count(0)
    shot(page, shot_path)
    assert sample_status(db, project_id, "N-002") == "active"

    confirm.click()
    wait_until(lambda: sample_status(db, project_id, "N-002") == "duplicate",
               what="N-002 confirmed as a duplicate")
    assert mark_of(db, project_id, "N-002")[1] == "confirmed"
    assert sample_status(db, project_id, "N-001") == "active"
    expect(page.get_by_text("Near-duplicate · N-002")).to_have_count(0, timeout=20_000)

    page.get_by_role("radiogroup", name="Show").get_by_role("radio", name="Confirmed").click()
    expect(page.get_by_text("Near-duplicate · N-002")).to_be_visible(timeout=20_000)
    expect(page.get_by_text("Confirmed by lead1")).to_be_visible()
    undo = page.locator(f'.st-key-duplicates-undo-{mark_id}:not([data-stale="true"]) button:visible')
    undo.click()
    wait_until(lambda: sample_status(db, project_id, "N-002") == "active", what="N-002 back in the pool")
    assert mark_of(db, project_id, "N-002")[1] == "pending"
    expect(page.get_by_text("No confirmed duplicates.")).to_be_visible(timeout=20_000)


def export_and_download(page, export_dir, tmp_path) -> None:
    open_page(page, "Export dataset")
    expect(page.get_by_text("None yet.")).to_be_visible()
    page.get_by_role("textbox", name="Folder name").fill(FOLDER)
    page.get_by_role("spinbutton", name="Split seed").fill("1234")
    page.get_by_role("button", name="Export Gold").click()
    expect(page.get_by_text("Export 1 is ready")).to_be_visible(timeout=30_000)
    assert (export_dir / FOLDER / "export.json").is_file()

    download_button = page.locator('.st-key-export-zip-last-1:not([data-stale="true"]) button:visible')
    expect(download_button).to_be_enabled()
    with page.expect_download(timeout=30_000) as info:
        download_button.click()
    download = info.value
    assert download.suggested_filename == f"{FOLDER}.zip"
    saved = tmp_path / "download.zip"
    download.save_as(saved)
    with zipfile.ZipFile(io.BytesIO(saved.read_bytes())) as archive:
        names = set(archive.namelist())
        for member in ("README.md", "benchmark_1/train.json", "benchmark_2/train.json",
                       "annotations/train.json", "export.json"):
            assert f"{FOLDER}/{member}" in names, sorted(names)
        manifest = json.loads(archive.read(f"{FOLDER}/export.json"))
        train = archive.read(f"{FOLDER}/benchmark_1/train.json").decode()
    assert manifest["export_id"] == 1
    assert manifest["seed"] == 1234
    exported = {json.loads(line)["_id"] for line in train.splitlines() if line.strip()}
    assert exported and all(i.startswith("G-") for i in exported)  # the new texts have no gold


def test_lead_imports_deduplicates_and_exports(page, run_streamlit, seeded, tmp_path):
    url, db, project_id, export_dir = seeded
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url,
                                        "CHRONOCEPT_EXPORT_DIR": str(export_dir)})
    sign_in(page, base, "lead1", "lead1-password")

    import_texts(page)
    assert {i: sample_status(db, project_id, i) for i, _ in NEW_TEXTS} == {
        i: "active" for i, _ in NEW_TEXTS}

    review_duplicates(page, db, project_id, tmp_path / "deduplication.png")
    assert (tmp_path / "deduplication.png").stat().st_size > 0

    export_and_download(page, export_dir, tmp_path)
    assert (export_dir / FOLDER / "README.md").is_file()
    assert (export_dir / FOLDER / "benchmark_1" / "train.json").is_file()
