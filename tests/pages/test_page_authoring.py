"""Write follow-ups (screens/authoring.py) and the authors' validation share on Annotators, in
Streamlit's AppTest: a single-texts project says so in one line; an author sees the target and
its settled curve, a warning when a curve does not say its intent, a refusal that writes
nothing, and a save that writes the three pairs and moves on to the next target."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from annotation.services.corpus import authoring
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from authoring_data import pairs_project, settle, target_text, three_drafts
from db.models import SamplePair
from page_helpers import errors, infos, run, text_records, titles, toasts

PAGE = "screens/authoring.py"


def _open(make_app, actor, page=PAGE):
    at = run(make_app(actor))
    at.switch_page(page)
    return run(at)


def _warnings(at) -> list[str]:
    return [w.value for w in at.warning]


def _box(at, intent: str, what: str, target_sample_id: int):
    key = f"authoring.{what}.{intent}.{target_sample_id}"
    return at.text_area(key=key) if what == "text" else at.text_input(key=key)


def _target_id(db, key: str = "T-0") -> int:
    with db.read() as s:
        return s.scalar(select(SamplePair.sample_id).where(SamplePair.target_key == key,
                                                           SamplePair.authored_by.is_(None)))


def test_a_single_texts_project_says_so_in_one_line(db, lead, ann, make_app):
    p = projects.create_project(db, lead, "Plain texts")
    text_imports.import_texts(db, lead, p.id, text_records(2))
    at = _open(make_app, ann)
    assert titles(at) == ["Write follow-ups"]
    assert infos(at) == ["Writing follow-ups belongs to context-pairs projects; Plain texts has single texts."]
    assert not at.text_area


def test_without_a_settled_target_there_is_nothing_to_write(db, lead, ann, make_app):
    pairs_project(db, lead, targets=2, settled=0)
    at = _open(make_app, ann)
    assert infos(at)[0].startswith("No target to write for")
    assert not at.text_area


def test_the_author_sees_the_target_warnings_and_saves_three_pairs(db, lead, ann, make_app):
    pid = pairs_project(db, lead, targets=2)
    sid = _target_id(db)
    at = _open(make_app, ann)
    assert target_text(0) in [t.value for t in at.text]
    assert len(at.text_area) == 3 and not errors(at)
    # the durations start as the settled curve: the "keep" follow-up says neutral; the others warn
    warned = _warnings(at)
    assert any(w.startswith("Your curve says “neutral”, not “decreased”") for w in warned)
    assert any(w.startswith("Your curve says “neutral”, not “increased”") for w in warned)
    assert not any("not “neutral”" in w for w in warned)
    for intent, text, durations in (("decreased", "The bakery burned down.", ("1 day", "3 days")),
                                    ("neutral", "I bought bread elsewhere.", None),
                                    ("increased", "The works were extended.", ("6 months", "2 years"))):
        _box(at, intent, "text", sid).input(text)
        if durations:
            peak, half = durations
            _box(at, intent, "peak", sid).input(peak)
            _box(at, intent, "half", sid).input(half)
    at = run(at)
    assert not any(w.startswith("Your curve says") for w in _warnings(at))
    at.button(key="authoring.save").click()
    at = run(at)
    assert not errors(at)
    assert any("three follow-ups are saved" in t for t in toasts(at))
    with db.read() as s:
        rows = s.execute(select(SamplePair.follow_up, SamplePair.intended_change)
                         .where(SamplePair.authored_by == ann.user_id).order_by(SamplePair.sample_id)).all()
    assert [tuple(r) for r in rows] == [("The bakery burned down.", "decreased"),
                                        ("I bought bread elsewhere.", "neutral"),
                                        ("The works were extended.", "increased")]
    # the next target, with empty boxes
    assert target_text(1) in [t.value for t in at.text]
    assert all(not box.value for box in at.text_area)
    assert authoring.authoring_task(db, ann, pid).target_key == "T-1"


def test_a_refused_save_says_why_in_one_line_and_writes_nothing(db, lead, ann, make_app):
    pairs_project(db, lead, targets=1)
    sid = _target_id(db)
    at = _open(make_app, ann)
    _box(at, "decreased", "text", sid).input("The bakery burned down.")
    _box(at, "neutral", "text", sid).input("The bakery burned down.")
    _box(at, "increased", "text", sid).input("The works were extended.")
    _box(at, "increased", "peak", sid).input("soon")
    at = run(at)
    assert any("could not read 'soon' as a duration" in w for w in _warnings(at))
    at.button(key="authoring.save").click()
    at = run(at)
    assert errors(at) == ["The follow-ups to decrease and to keep are the same text; write a different one for each."]
    with db.read() as s:
        assert s.scalar(select(SamplePair.sample_id).where(SamplePair.authored_by.is_not(None))) is None
    assert _box(at, "neutral", "text", sid).value == "The bakery burned down."  # nothing typed is lost


def test_a_stale_tab_is_refused_and_moves_on(db, lead, ann, make_app):
    pid = pairs_project(db, lead, targets=2)
    sid = _target_id(db)
    at = _open(make_app, ann)
    for draft in three_drafts():
        _box(at, draft.intended_change, "text", sid).input(draft.text)
    at = run(at)
    authoring.save_follow_ups(db, ann, pid, "T-0", three_drafts("Other tab. "))  # the other tab saved first
    at.button(key="authoring.save").click()
    at = run(at)
    assert errors(at) == [authoring.ALREADY_WRITTEN]
    assert target_text(1) in [t.value for t in at.text]
    with db.read() as s:
        assert len(s.scalars(select(SamplePair.sample_id).where(SamplePair.authored_by == ann.user_id)).all()) == 3


@pytest.fixture
def authored(db, lead, make_user):
    """ann wrote for four targets (11 of 12 settled, 9 as intended); bob for one (2 settled)."""
    pid = pairs_project(db, lead, targets=4, name="Authored")
    ann, bob = make_user("ann"), make_user("bob")
    ann_ids = [i for t in range(4) for i in authoring.save_follow_ups(db, ann, pid, f"T-{t}", three_drafts(f"{t}. "))]
    bob_ids = authoring.save_follow_ups(db, bob, pid, "T-0", three_drafts("Bob. "))
    intents = ["decreased", "neutral", "increased"] * 4
    for n, sample_id in enumerate(ann_ids[:11]):
        settle(db, sample_id, intents[n] if n < 9 else ("increased" if intents[n] == "neutral" else "neutral"))
    for n, sample_id in enumerate(bob_ids[:2]):
        settle(db, sample_id, intents[n])
    return pid


def test_annotators_page_shows_each_authors_validation_share(authored, lead, make_app):
    at = _open(make_app, lead, "screens/annotators.py")
    table = next(f.value for f in at.dataframe if "validation share" in f.value.columns)
    by_author = table.set_index("author")
    assert by_author.loc["ann", "validation share"] == "82 % (9 of 11 settled)"
    assert (by_author.loc["ann", "written"], by_author.loc["ann", "settled"], by_author.loc["ann", "as intended"]) \
        == (12, 11, 9)
    assert by_author.loc["bob", "validation share"] == \
        "— (only 2 settled; a share needs at least 10 settled pairs)"


def test_annotators_page_of_a_single_texts_project_has_no_authors(db, lead, make_app):
    p = projects.create_project(db, lead, "Plain texts")
    text_imports.import_texts(db, lead, p.id, text_records(2))
    at = _open(make_app, lead, "screens/annotators.py")
    assert "Authors of follow-ups" not in [h.value for h in at.subheader]
    assert not any("validation share" in f.value.columns for f in at.dataframe)
