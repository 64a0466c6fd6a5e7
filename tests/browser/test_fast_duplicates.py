"""De-duplication used fast, in Chromium: Confirm on card 1, then Release on card 2 while the page
redraws (the server is held in the middle of the Confirm's run, and the Release comes 150 ms
later). A click the page could not act on is said so — "The page changed under your click;
nothing was done." — and nothing wrong is stored: each mark is what its own button asked for,
or untouched.
"""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import expect

from annotation.corpus.text_import import TextRecord
from annotation.services.accounts import accounts
from annotation.services.corpus import duplicates
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from db.engine import Database
from tests.browser.flow_steps import open_page, sign_in, wait_for_idle, wait_until
from tests.browser.gates import held_calls

pytestmark = pytest.mark.browser

PACE_MS = 150
UNANSWERED = "The page changed under your click; nothing was done."
#: two texts, each with a near-copy that differs in its last mark (TF-IDF finds them)
TEXTS = ("The museum will reopen its east wing next spring after the roof repairs.",
         "The museum will reopen its east wing next spring after the roof repairs!",
         "Our flight to Lisbon leaves at dawn on Friday, so pack your bags tonight.",
         "Our flight to Lisbon leaves at dawn on Friday, so pack your bags tonight!",
         "Yesterday a farmer sold three goats at the village market for a good price.")


class UnrelatedVectors:
    """An encoder whose vectors share nothing: only the wording (TF-IDF) marks a pair."""

    def get_sentence_embedding_dimension(self) -> int:
        return 16

    def encode(self, texts, **kwargs):
        return np.eye(16, dtype=np.float32)[: len(texts)]


@pytest.fixture
def two_pairs(tmp_path):
    url = f"sqlite:///{tmp_path / 'dedup.db'}"
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    accounts.create_user(db, admin, "lead1", "lead1-password", "lead")
    lead = accounts.authenticate(db, "lead1", "lead1-password")
    project = projects.create_project(db, lead, "Dedup")
    text_imports.import_texts(db, lead, project.id, [TextRecord(t, 1, f"T-{n}", n + 1) for n, t in enumerate(TEXTS)])
    duplicates.run_dedup(db, lead, project.id, model=UnrelatedVectors())
    yield url, db, lead, project.id
    db.dispose()


def test_a_card_clicked_while_the_page_redraws_is_said_to_do_nothing(page, run_streamlit, two_pairs, tmp_path):
    url, db, lead, project_id = two_pairs
    first, second = duplicates.list_pairs(db, lead, project_id)
    gate = tmp_path / "pair_page.gate"
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url, "CHRONOCEPT_TEST_GATES":
                                        f"annotation.services.corpus.duplicates:pair_page={gate}"},
                         preload="tests.browser.gates")
    page.set_viewport_size({"width": 1400, "height": 1000})
    sign_in(page, base, "lead1", "lead1-password")
    open_page(page, "De-duplication")
    confirm = page.locator(f".st-key-duplicates-confirm-{first.id} button:visible")
    release = page.locator(f".st-key-duplicates-release-{second.id} button:visible")
    expect(release).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    gate.touch()
    confirm.click()
    wait_until(lambda: held_calls(gate) >= 1, what="the server held in the middle of its run")
    page.wait_for_timeout(PACE_MS)
    release.click()
    # its own run has started (and run its callbacks) when it is held too; then both go on
    wait_until(lambda: held_calls(gate) >= 2, what="the click reaching the server")
    gate.unlink()
    expect(page.get_by_text(UNANSWERED)).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    status = {p.id: p.status for p in duplicates.list_pairs(db, lead, project_id, status=None)}
    # one click was not acted on (the page said so); what was done is what its button named
    assert status[first.id] in ("pending", "confirmed") and status[second.id] in ("pending", "released")
    assert [status[first.id], status[second.id]].count("pending") >= 1
    expect(page.get_by_test_id("stException")).to_have_count(0)
