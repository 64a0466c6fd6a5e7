"""The Consistency view of the De-duplication page (lead): similar texts whose golds disagree,
texts shown literally, sorted by similarity or W1, a button into Review, and the count of
samples without a stored vector. Vectors are written directly (no model is loaded)."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import select

from annotation.corpus.duplicates import pack_embedding
from annotation.corpus.embeddings import SBERT_MODEL_NAME
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.corpus.text_import import TextRecord
from db.models import GoldAnnotation, ReviewItem, Sample, TextEmbedding
from page_helpers import infos, markdown_text, run, shown

TEXTS = {
    # C-0 and C-1 say the same; their golds sit 20 log-time units apart (W1 = 20)
    "C-0": ("The *museum* is closed for [repairs](http://x) this week.", [1.0, 0.0, 0.0], 50.0, [["main"]]),
    "C-1": ("The museum is closed for repairs this week!", [0.99, 0.14, 0.0], 70.0, [["main"]]),
    # C-2 and C-3 say the same; one gold more spread, and C-3's also uses Static
    "C-2": ("The bridge reopens to traffic tomorrow.", [0.0, 1.0, 0.0], 50.0, [["main"]]),
    "C-3": ("Traffic returns to the bridge tomorrow.", [0.0, 0.995, 0.05], 55.0, [["static"], ["main"]]),
    # C-5 is like C-0 (cosine 0.97) and C-1 (0.96), its gold far later (W1 40 and 20)
    "C-5": ("The museum stays shut this week for repairs.", [0.97, 0.0, 0.243], 90.0, [["main"]]),
    # C-4 has gold but no stored vector
    "C-4": ("A lone text nobody embedded yet.", None, 50.0, [["main"]]),
}


@pytest.fixture
def project(db, lead):
    p = projects.create_project(db, lead, "Consistency project")
    text_imports.import_texts(db, lead, p.id, [TextRecord(t, 1, i, n + 1)
                                           for n, (i, (t, *_)) in enumerate(TEXTS.items())])
    with db.write() as s:
        ids = dict(s.execute(select(Sample.external_id, Sample.id).where(Sample.project_id == p.id)).all())
        for ext, (_, vector, xi, axes) in TEXTS.items():
            s.add(GoldAnnotation(sample_id=ids[ext], boundaries=list(range(len(axes))), segment_axes=axes,
                                 xi=xi, omega=8.0, alpha=0.0, source="auto"))
            if vector is not None:
                v = np.asarray(vector, dtype=np.float32)
                s.add(TextEmbedding(sample_id=ids[ext], model=SBERT_MODEL_NAME, dim=3,
                                    vector=pack_embedding(v / np.linalg.norm(v))))
        item = ReviewItem(sample_id=ids["C-1"], reasons=["daily_review"], status="open")
        s.add(item)
        s.flush()
        return p.id, item.id


def open_view(make_app, lead):
    at = run(make_app(lead))
    at.switch_page("screens/duplicates.py")
    run(at)
    at.segmented_control(key="duplicates.view").set_value("consistency")
    return run(at)


def _pair_ids(at) -> list[str]:
    """The sample ids in the order their captions appear."""
    return [c.value.split("**")[1].replace("\\", "") for c in at.caption if c.value.startswith("**C")]


def test_pairs_are_listed_with_literal_texts_and_sortable(make_app, db, lead, project):
    at = open_view(make_app, lead)
    assert not at.exception
    assert _pair_ids(at)[:2] == ["C-2", "C-3"]
    text = markdown_text(at)
    # the user's text is shown as typed, never as Markdown (no emphasis, no link)
    assert shown(text).count("The *museum* is closed for [repairs](http://x) this week.") == 2  # in two pairs
    assert "\\*museum\\*" in text
    captions = " ".join(c.value for c in at.caption)
    assert "differ: curves" in captions and "differ: axes" in captions
    assert "C-1's curve sits ≈ ×6.7 later than C-0's" in shown(captions)
    assert "4 pairs among 5 texts compared at " in captions
    warnings = [w.value for w in at.warning]
    assert len(warnings) == 1 and warnings[0].startswith("1 sample with gold has no stored text vector")

    by_similarity = _pair_ids(at)
    assert by_similarity[:2] == ["C-2", "C-3"]  # cosine 0.9987 before 0.990
    at.segmented_control(key="duplicates.consistency.order").set_value("w1")
    run(at)
    by_w1 = _pair_ids(at)
    assert by_w1[:2] == ["C-0", "C-5"]  # W1 40 is the furthest apart
    assert sorted(by_similarity) == sorted(by_w1)


def test_open_in_review(make_app, db, lead, project):
    pid, item_id = project
    at = open_view(make_app, lead)
    buttons = [b for b in at.button if b.key and b.key.startswith("duplicates.consistency.review.")]
    assert len(buttons) == 2  # only C-1 has an open review item; it is in two pairs
    buttons[0].click()
    run(at)
    assert at.session_state["review.pick"] == item_id


def test_nothing_to_compare(make_app, db, lead):
    projects.create_project(db, lead, "Empty")
    at = open_view(make_app, lead)
    (info,) = infos(at)
    assert info.startswith("No similar texts with disagreeing gold among the 0 compared (at ")


def test_the_search_runs_on_opening_and_on_request(make_app, db, lead, project):
    pid, _ = project
    at = open_view(make_app, lead)
    assert len(_pair_ids(at)) == 8  # four pairs, two texts each
    projects.update_settings(db, lead, pid, flag_w1_max=25.0)  # a W1 of 20 passes now
    at.segmented_control(key="duplicates.consistency.order").set_value("w1")
    run(at)
    assert len(_pair_ids(at)) == 8  # sorting reuses the search
    at.button(key="duplicates.consistency.again").click()
    run(at)
    assert _pair_ids(at) == ["C-0", "C-5", "C-2", "C-3"]
