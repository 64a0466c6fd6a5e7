"""The Warm-up page's choosing controls used fast, in Chromium (issue 22: every control that
chooses what an action applies to is used at 100 ms intervals, and the action lands on what the
screen named).

* **People:** the Annotator box switched between two people in warm-up 100 ms apart, a note
  typed and the admit button pressed at once: whoever is admitted is the person the pressed
  button named, with the note typed under their name — never the other one. Then, unhurried,
  the admission note field is empty again (the used note used to stay in it).
* **Gold:** the Sample box switched between three warm-up samples 100 ms apart and "Save the gold
  of …" pressed at once: the sample whose gold is stored again is the one the pressed button
  named, and no other sample's gold changes.

The button is pressed by a script that reads its label and clicks it in one task, so the label
recorded is the label of the button clicked.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from annotation.services.accounts import accounts
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.workbench import queue
from annotation.services.review import warmup_set
from annotation.content import AnnotationContent
from annotation.corpus.text_import import TextRecord
from db.engine import Database
from db.models import AuditEvent, GoldAnnotation, Qualification, Sample, User
from tests.browser.flow_steps import open_page, sign_in, wait_for_idle, wait_until
import workbench_writes

pytestmark = pytest.mark.browser

PACE_MS = 100
WARMUP = ("S-000", "S-001", "S-002")
GOLD = dict(boundaries=(0, 4), segment_axes=("static", "main"), xi=30.0, omega=8.0, alpha=0.5)
#: click the first visible button whose label matches, and say which label it had (one task)
PRESS_JS = """(pattern) => {
  const re = new RegExp(pattern);
  // a button's text is its icon's name (a ligature) and its label, on lines of their own
  const label = (x) => (x.innerText || '').split('\\n').map((s) => s.trim()).filter(Boolean).pop() || '';
  const b = [...document.querySelectorAll('button')].find((x) => re.test(label(x))
                                                          && x.offsetParent !== null && !x.disabled);
  if (!b) return null;
  const text = label(b);
  b.click();
  return text;
}"""


@pytest.fixture
def seeded(tmp_path):
    url = f"sqlite:///{tmp_path / 'warmup.db'}"
    db = Database.connect(url)
    admin = accounts.create_first_admin(db, "admin", "admin-password")
    accounts.create_user(db, admin, "lead1", "lead1-password", "lead")
    lead = accounts.authenticate(db, "lead1", "lead1-password")
    p = projects.create_project(db, lead, "Pilot")
    text_imports.import_texts(db, lead, p.id, [TextRecord(f"Sample number {i} says the shop on street {i} is closed "
                                                      "this week.", 1, f"S-{i:03d}", i + 1) for i in range(6)])
    warmup_set.mark_warmup(db, lead, p.id, list(WARMUP))
    with db.read() as s:
        sids = dict(s.execute(select(Sample.external_id, Sample.id).where(Sample.project_id == p.id)).all())
    for ext in WARMUP:
        warmup_set.set_warmup_gold(db, lead, sids[ext], **GOLD)
    for name in ("ann_a", "ann_b"):  # both finish the warm-up far from the gold: in warm-up still
        accounts.create_user(db, admin, name, f"{name}-password", "annotator")
        user = accounts.authenticate(db, name, f"{name}-password")
        for _ in WARMUP:
            item = queue.next_item(db, user, p.id)
            workbench_writes.submit(db, user, item.annotation_id, item.version, AnnotationContent(
                boundaries=(0,), segment_axes=("main",), points=((20.0, 0.4), (40.0, 1.0), (70.0, 0.3))))
    yield url, db, p.id, sids
    db.dispose()


def _statuses(db, pid) -> dict[str, tuple[str, str]]:

    with db.read() as s:
        status = dict(s.execute(select(User.username, Qualification.status)
                                .join(Qualification, Qualification.user_id == User.id)
                                .where(Qualification.project_id == pid)).all())
        notes = {}
        for event in s.scalars(select(AuditEvent).where(AuditEvent.action == "qualification_admit")):
            notes[event.detail.get("username", "")] = event.detail.get("note", "")
    return {name: (st, notes.get(name, "")) for name, st in status.items()}


def _gold_times(db, sids) -> dict[str, object]:
    with db.read() as s:
        return {ext: s.scalar(select(GoldAnnotation.decided_at).where(GoldAnnotation.sample_id == sids[ext]))
                for ext in WARMUP}


def _label(button) -> str:
    """A button's label: its text less the icon's name (a ligature, on a line of its own)."""
    return button.inner_text().strip().splitlines()[-1].strip()


def _choose(page, box: str, option: str) -> None:
    page.get_by_role("combobox", name=box).click()
    page.get_by_role("option", name=option, exact=False).first.click()


def test_people_box_and_admit_used_fast(page, run_streamlit, seeded):
    url, db, pid, _ = seeded
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    sign_in(page, base, "lead1", "lead1-password")
    open_page(page, "Warm-up & qualification")
    expect(page.get_by_role("button", name="Admit ann_a to production")).to_be_visible(timeout=30_000)
    wait_for_idle(page)

    for name in ("ann_b", "ann_a", "ann_b"):  # the box, 100 ms apart, no wait for the page
        _choose(page, "Annotator", name)
        page.wait_for_timeout(PACE_MS)
    note = page.get_by_role("textbox", name="Note (required)")
    note.fill("talked it through")
    page.wait_for_timeout(PACE_MS)
    pressed = page.evaluate(PRESS_JS, r"^Admit \S+ to production$")
    assert pressed is not None
    named = re.match(r"^Admit (\S+) to production$", pressed).group(1)
    wait_for_idle(page)
    page.wait_for_timeout(500)
    wait_for_idle(page)
    states = _statuses(db, pid)
    admitted = [n for n, (status, _) in states.items() if status == "admitted"]
    # the note may have gone to a field the page then replaced: refused, nobody admitted
    assert admitted in ([], [named]), (pressed, states)
    if admitted:
        assert states[named][1] == "talked it through"

    # unhurried: admit the one shown, and the used note is gone from the field
    wait_for_idle(page)
    shown = page.get_by_role("button", name=re.compile(r"^Admit \S+ to production$"))
    if shown.count():
        who = re.match(r"^Admit (\S+) to production$", _label(shown.first)).group(1)
        page.get_by_role("textbox", name="Note (required)").fill(f"ready: {who}")
        wait_for_idle(page)
        shown.first.click()
        expect(page.get_by_text(f"{who} is admitted to production.")).to_be_visible(timeout=30_000)
        wait_for_idle(page)
        assert _statuses(db, pid)[who] == ("admitted", f"ready: {who}")
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_gold_sample_box_and_save_used_fast(page, run_streamlit, seeded):
    url, db, pid, sids = seeded
    before = _gold_times(db, sids)
    base = run_streamlit("app.py", env={"CHRONOCEPT_DATABASE_URL": url})
    sign_in(page, base, "lead1", "lead1-password")
    open_page(page, "Warm-up & qualification")
    page.get_by_role("tab", name="Gold").click()
    expect(page.get_by_role("button", name="Save the gold of S-000")).to_be_visible(timeout=30_000)
    wait_for_idle(page)

    for ext in ("S-002", "S-001", "S-002", "S-000", "S-001"):  # 100 ms apart, no wait
        _choose(page, "Sample", ext)
        page.wait_for_timeout(PACE_MS)
    pressed = page.evaluate(PRESS_JS, r"^Save the gold of S-\d{3}$")
    assert pressed is not None
    named = pressed.rsplit(" ", 1)[-1]
    # the save's outcome is a line under the buttons that stays (a toast may be cut short)
    outcome = page.get_by_test_id("stAlertContentSuccess").filter(has_text=re.compile(r"^Stored the gold of "))
    page.wait_for_timeout(500)
    wait_for_idle(page)
    after = _gold_times(db, sids)
    changed = [ext for ext in WARMUP if after[ext] != before[ext]]
    assert changed in ([], [named]), (pressed, changed)  # a click on a replaced button does nothing
    if changed:
        _choose(page, "Sample", named)  # the outcome is shown with its own sample
        expect(outcome).to_have_text(f"Stored the gold of {named}.", timeout=30_000)

    # unhurried: the box's sample is the one the button names, and saving stores it
    wait_for_idle(page)
    button = page.get_by_role("button", name=re.compile(r"^Save the gold of S-\d{3}$"))
    shown = _label(button.first).rsplit(" ", 1)[-1]
    expect(page.get_by_role("combobox", name="Sample")).to_have_value(re.compile(rf"^{shown} — "))
    button.first.click()
    wait_until(lambda: _gold_times(db, sids)[shown] != after[shown], what=f"the gold of {shown} stored again")
    expect(outcome).to_have_text(f"Stored the gold of {shown}.", timeout=30_000)
    assert [ext for ext in WARMUP if _gold_times(db, sids)[ext] != after[ext]] == [shown]
    expect(page.get_by_test_id("stException")).to_have_count(0)
