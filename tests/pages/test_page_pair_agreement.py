"""Agreement (lead) of a context-pairs project: the change label's kappa and α, ICC and W1 of
both curves, the gold against the reference labels, and tabs that say why an unsegmented project
has no axis-label or segmentation figures."""

from __future__ import annotations

import pytest
from sklearn.metrics import cohen_kappa_score

from annotation.services.review import resolving
from page_helpers import run, shown
from pair_data import pair_content, pairs_project, sample_id_of, write_submitted

GIVEN = [(52.0, 52.0), (46.0, 46.0), (30.0, 30.0), (52.0, 46.0), (30.0, 30.0), (52.0, 52.0)]
LABEL = {52.0: "increased", 46.0: "neutral", 30.0: "decreased"}


def seed_pairs(db, lead, pair, given):
    """A pairs project with one pair per entry of ``given`` (the two annotators' ξ given the
    follow-up), both annotated and resolved."""
    a, b = pair
    pid = pairs_project(db, lead, [{"id": f"P-{i}", "target": f"Target {i} is open today.",
                                    "follow_up": f"Follow-up {i}.", "reference_change": "increased"}
                                   for i in range(len(given))])
    for i, (x, y) in enumerate(given):
        sid = sample_id_of(db, pid, f"P-{i}")
        write_submitted(db, sid, a.user_id, pair_content(alone=(45.0 + i, 10.0, 0.0), given=(x + i, 10.0, 0.0)),
                        minutes=2 * i)
        write_submitted(db, sid, b.user_id, pair_content(alone=(45.0 + i, 10.0, 0.0), given=(y + i, 10.0, 0.0)),
                        minutes=2 * i + 1)
    resolving.resolve_project(db, lead, pid)
    return pid


@pytest.fixture
def pairs(db, lead, pair):
    return seed_pairs(db, lead, pair, GIVEN)


#: enough pairs for every figure of the pairs view (the ICC needs 30)
MANY = GIVEN * 6


def _captions(at) -> list[str]:
    return [shown(c.value) for c in at.caption]


def open_tab(at, name: str):
    at.session_state["agreement.tab"] = name
    return run(at)


def test_the_pairs_part_of_the_agreement_page(make_app, lead, pairs):
    at = run(make_app(lead))
    at.switch_page("screens/agreement.py")
    at = run(at)
    assert not at.exception
    assert "Context pairs" in [h.value for h in at.subheader]
    metrics = {m.label: m.value for m in at.metric}
    # six pairs: kappa and α are withheld by the rule, which the caption states with n
    assert metrics["Cohen's kappa (change label)"] == "—"
    assert metrics["Samples whose labels agree"] == "83%"
    captions = _captions(at)
    assert "n = 6 · — needs ≥ 10 samples with two change labels" in captions
    assert "n = 6 · — needs ≥ 30 units" in captions
    tables = [d.value for d in at.dataframe]
    curves = next(t for t in tables if "curve" in t.columns)
    assert list(curves["curve"]) == ["target alone", "given the follow-up"]
    assert set(curves["ICC(1,1) ξ"]) == {"— needs ≥ 30 samples with every curve (n = 6)"}
    assert set(curves["mean W1"]) == {"— needs ≥ 10 samples with two curves (n = 6)"}
    reference = next(t for t in tables if "compared" in t.columns)
    # five pairs settled (increased, neutral, decreased, decreased, increased), the reference says increased
    assert reference.iloc[0]["compared"] == "change" and reference.iloc[0]["samples"] == 5
    assert reference.iloc[0]["accuracy"] == "0.400"
    assert reference.iloc[1]["why no figure"].startswith("needs ≥ 5 samples")   # no reference classes
    for tab in ("Axis labels", "Segmentation", "Over time", "Annotator pairs"):
        at = open_tab(at, tab)
        assert not at.exception, tab
    at = open_tab(at, "Segmentation")
    assert any("do not segment" in c.value for c in at.caption)


def test_the_pairs_figures_with_their_n_on_enough_pairs(make_app, db, lead, pair):
    seed_pairs(db, lead, pair, MANY)
    at = run(make_app(lead))
    at.switch_page("screens/agreement.py")
    at = run(at)
    metrics = {m.label: m.value for m in at.metric}
    kappa = cohen_kappa_score([LABEL[x] for x, _ in MANY], [LABEL[y] for _, y in MANY])
    assert metrics["Cohen's kappa (change label)"] == f"{kappa:.3f}"
    n = len(MANY)
    assert any(c.startswith(f"n = {n} · 95 % CI [") for c in _captions(at))
    curves = next(d.value for d in at.dataframe if "curve" in d.value.columns)
    for column in ("ICC(1,1) ξ", "mean W1"):
        assert all(cell.endswith(f"(n = {n})") and not cell.startswith("—") for cell in curves[column]), column
    assert all("[" in cell for cell in curves["ICC(1,1) ξ"])  # with its bootstrap interval
