"""Context pairs end to end, through the paths people use, on SQLite and PostgreSQL: a lead imports
the TVCP release's CSV; two annotators annotate every pair through the workbench's one write path
(the target alone, then given the follow-up, moved by as much as the release's label says); the
pairs settle into gold with both curves and the change; agreement, the gold against the release's
labels, the ``tvcp`` export read as the TVCP authors' reader reads it, and scoring the gold's own
labels as predictions."""

from __future__ import annotations


import pandas as pd
import pytest
from sqlalchemy import select

from annotation.services.quality import agreement
from annotation.services.export import exports
from annotation.services.model import model_scores
from annotation.services.corpus import pair_imports
from annotation.services.workbench import queue, workbench_events
from annotation.services.protocols.sample_pairs import pairs_of
from db.models import GoldAnnotation, ReviewItem
from service_helpers import GOOD_POINTS, count

N_TARGETS = 10
CHANGES = ("decreased", "neutral", "increased")
#: how far the curve given the follow-up sits from the target's curve for each change: ±12 units
#: is a factor of ×3.1 in time, past the default ×1.5; 0 keeps it
SHIFT = {"decreased": -12.0, "neutral": 0.0, "increased": 12.0}
LABEL_MAP = {"decreased": 0, "neutral": 1, "increased": 2}   # the TVCP reader's


def release_csv() -> bytes:
    rows = ["context,follow_up,context_only_tv,combined_tv,change"]
    for t in range(N_TARGETS):
        for change in CHANGES:
            given = {"decreased": 4, "neutral": 6, "increased": 8}[change]
            rows.append(f'"The pharmacy on road {t} is closed for stocktaking today.",'
                        f'"Follow-up {t}: the stocktaking is {change} news.",6,{given},{change}')
    return ("\n".join(rows) + "\n").encode()


def annotate_all(db, annotator, project_id: int) -> int:
    """Annotate every pair the queue hands out the way the release labels it; returns how many."""
    done, client = 0, 0
    item = queue.next_item(db, annotator, project_id)
    while item is not None:
        with db.read() as s:
            change = pairs_of(s, [item.sample_id])[item.sample_id].reference_change
        moves = [{"kind": "point", "action": "move", "index": i, "x": x + SHIFT[change], "y": y,
                  "curve": "context"} for i, (x, y) in enumerate(GOOD_POINTS)]
        events = [*({"kind": "point", "action": "add", "x": x, "y": y} for x, y in GOOD_POINTS),
                  {"kind": "step", "step": 3}, *moves, {"kind": "change", "change": "derived"},
                  {"kind": "submit", "flagged": False}]
        client += 1
        out = workbench_events.apply_events(db, annotator, item.annotation_id, f"e2e{client:013d}",
                                            item.version, [{"seq": i + 1, **e} for i, e in enumerate(events)])
        assert out.submitted and out.refused == (), (out.submit_problems, out.refused)
        done += 1
        item = out.next_item or queue.next_item(db, annotator, project_id)
    return done


def test_a_release_is_imported_annotated_settled_measured_exported_and_scored(db, lead, make_user, tmp_path):
    summary = pair_imports.import_pair_file(db, lead, None, release_csv(), "tvcp.csv", new_project="TVCP")
    pid = summary.project_id
    assert (summary.added, summary.targets) == (3 * N_TARGETS, N_TARGETS)
    ann, bob = make_user("ann"), make_user("bob")
    assert annotate_all(db, ann, pid) == annotate_all(db, bob, pid) == 3 * N_TARGETS

    # every pair settled, with both curves and the release's change label, and nothing to review
    with db.read() as s:
        gold = s.scalars(select(GoldAnnotation)).all()
        facts = pairs_of(s, [g.sample_id for g in gold])
    assert len(gold) == 3 * N_TARGETS and count(db, ReviewItem) == 0
    assert all(g.context_xi is not None and g.change == facts[g.sample_id].reference_change for g in gold)

    scope = agreement.project_agreement(db, lead, pid)
    change = scope.report.results["change"].figures
    assert change.kappa == pytest.approx(1.0) and change.agreement == pytest.approx(1.0)
    reference_change = scope.pairs.reference[0]
    assert (reference_change.n, reference_change.accuracy) == (3 * N_TARGETS, pytest.approx(1.0))

    record = exports.export_dataset(db, lead, pid, tmp_path / "release", seed=5)
    frames = {split: pd.read_csv(tmp_path / "release" / "tvcp" / f"{split}.csv")
              for split in ("train", "valid", "test")}
    together = pd.concat(frames.values())
    assert len(together) == 3 * N_TARGETS
    assert list(together.columns[:5]) == ["context", "follow_up", "context_only_tv", "combined_tv", "change"]
    assert {LABEL_MAP[c] for c in together["change"]} == {0, 1, 2}   # the reader's label map takes them
    for _, row in together.iterrows():   # the follow-up says which change its release gave it
        assert row["follow_up"].endswith(f"{row['change']} news.")
    targets = [set(frame["target_id"]) for frame in frames.values()]
    assert not (targets[0] & targets[1] or targets[0] & targets[2] or targets[1] & targets[2])

    test = frames["test"]
    predictions = test[["_id", "change"]].to_csv(index=False).encode()
    entry = model_scores.score_submission(db, lead, pid, record.id, predictions, "gold.csv", "gold", "tvcp")
    assert entry.figures["accuracy"].value == entry.figures["exact_match"].value == 1.0
    assert entry.n_test == len(test)
