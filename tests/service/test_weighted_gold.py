"""The gold pooled by the project's rule (equally, by calibration, by the annotator model), with
its provenance in the gold row and the export, on SQLite and PostgreSQL."""

from __future__ import annotations

import json

import numpy as np
from sqlalchemy import select

from annotation.corpus.text_import import TextRecord
from annotation.services.corpus import annotation_import
from annotation.services.projects import projects
from annotation.services.corpus import text_imports
from annotation.services.review import resolving
from annotation.services.export.export_reads import pseudonym, read_export_input
from db.models import GoldAnnotation, Sample, User

N = 60
#: three annotators: "steady" on the truth, "late" 10 log-time units late, "wild" noisy
_RNG_SEED = 7


def _project(db, lead, **settings) -> int:
    p = projects.create_project(db, lead, f"Weighted {settings}")
    if settings:
        projects.update_settings(db, lead, p.id, **settings)
    text_imports.import_texts(db, lead, p.id, [TextRecord(f"On day {i} the shop opens late and closes early.", 1,
                                                      f"W-{i:03d}", i + 1) for i in range(N)])
    rng = np.random.default_rng(_RNG_SEED)
    people = {"steady": (0.0, 1.0), "late": (10.0, 1.0), "wild": (0.0, 6.0)}
    names = list(people)
    lines = []
    for i in range(N):
        truth = 40.0 + (i % 30) * 2
        for who in (names[i % 3], names[(i + 1) % 3]):  # two of the three, each pair alike often
            bias, noise = people[who]
            xi = truth + bias + float(rng.normal(0, noise))
            lines.append(json.dumps({"sample_id": f"W-{i:03d}", "annotator": who, "boundaries": [0],
                                     "segment_axes": ["main"], "xi": round(xi, 3), "omega": 8.0, "alpha": 0.0,
                                     "submitted_at": f"2026-11-{1 + i % 20:02d}T10:00:00Z"}))
    annotation_import.import_annotations(db, lead, p.id, "\n".join(lines).encode(), "w.jsonl")
    return p.id


def _gold(db, project_id: int) -> list[GoldAnnotation]:
    with db.read() as s:
        return list(s.scalars(select(GoldAnnotation).join(Sample, Sample.id == GoldAnnotation.sample_id)
                              .where(Sample.project_id == project_id).order_by(Sample.id)))


def test_equal_pooling_is_the_mean_and_records_its_weights(db, lead):
    pid = _project(db, lead)
    gold = _gold(db, pid)
    assert gold and all(g.pooling == "equal" for g in gold)
    assert all(sorted(g.pool_weights.values()) == [0.5, 0.5] for g in gold)


def test_model_pooling_weighs_and_debiases_and_the_export_names_it(db, lead):
    pid = _project(db, lead, gold_pooling="model", flag_w1_max=200.0, flag_xi_max=400.0)
    resolving.resolve_project(db, lead, pid, recheck=True)
    gold = _gold(db, pid)
    assert gold and all(g.pooling == "model" for g in gold), {g.pooling for g in gold}
    with db.read() as s:
        ids = dict(s.execute(select(User.username, User.id)).all())
    for g in gold:
        assert abs(sum(g.pool_weights.values()) - 1) < 1e-5
    # where "steady" and "wild" annotated together, steady weighs more
    mixed = [g for g in gold if set(g.pool_weights) == {str(ids["steady"]), str(ids["wild"])}]
    assert mixed and all(g.pool_weights[str(ids["steady"])] > 0.6 for g in mixed)
    # the export's provenance carries the rule and the weights by pseudonym
    with db.read() as s:
        data = read_export_input(s, pid)
    row = next(r for r in data.figures.gold if r[4] == "model")
    assert json.loads(row[5]).keys() <= {pseudonym(ids[n]) for n in ("steady", "late", "wild")}


def test_calibration_pooling_without_seeds_pools_equally_and_says_so(db, lead):
    pid = _project(db, lead, gold_pooling="calibration")
    gold = _gold(db, pid)
    assert gold and all(g.pooling == "equal" for g in gold)


def test_changing_the_rule_repools_the_automatic_gold(db, lead):
    pid = _project(db, lead, flag_w1_max=200.0, flag_xi_max=400.0)
    before = {g.sample_id: g.xi for g in _gold(db, pid)}
    projects.update_settings(db, lead, pid, gold_pooling="model")
    after = _gold(db, pid)
    assert {g.pooling for g in after} == {"model"}
    assert any(abs(before[g.sample_id] - g.xi) > 0.5 for g in after)
