"""Annotators as experts (SPEC section 15) on SQLite and PostgreSQL: the seeds (warm-up-set
samples with gold, texts imported with a known outcome), the figures after the rule, the
calibration of a late annotator, the figures' cache, the role, and the import field
``stopped_holding_minutes``."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
from sqlalchemy import select

from annotation.quality.expert_scores import OUTCOME, PANEL, realisation_of_gold
from annotation.services.corpus import annotation_import, text_imports
from annotation.services.quality import experts
from annotation.services.projects import projects
from annotation.services.workbench import queue
from annotation.services.review import warmup_set
from annotation.services.errors import InvalidInput, PermissionDenied
from db.base import Base
from db.models import Sample
from gold_data import LATE_BY, expert_project, seed_minutes
from service_helpers import complete_content, text_records
import workbench_writes

# "Sample number 0 says the shop on street 0 is closed this week." has 14 tokens.
SPLIT = dict(boundaries=(0, 4), segment_axes=("static", "main"))
N_WARM = 12


def gold_of(i: int) -> tuple[float, float, float]:
    """The lead's gold on warm-up sample S-00i."""
    return 30.0 + 6.0 * i, 8.0, 0.5


def manual(xi, omega, alpha):
    return complete_content(**SPLIT, xi=xi, omega=omega, alpha=alpha, params_source="manual")


def sample_id(db, pid, ext) -> int:
    with db.read() as s:
        return s.scalar(select(Sample.id).where(Sample.project_id == pid, Sample.external_id == ext))


@pytest.fixture
def warm(db, lead):
    """14 texts: S-000…S-011 the warm-up set with gold (S-000 also imported with a known outcome
    of a day), S-012 and S-013 production texts (S-013 with a known outcome of an hour)."""
    records = text_records(N_WARM + 2)
    records[0] = dataclasses.replace(records[0], realised_minutes=1440.0)
    records[13] = dataclasses.replace(records[13], realised_minutes=60.0)
    pid = projects.create_project(db, lead, "Warm").id
    text_imports.import_texts(db, lead, pid, records)
    ids = [f"S-{i:03d}" for i in range(N_WARM)]
    warmup_set.mark_warmup(db, lead, pid, ids)
    for i, ext in enumerate(ids):
        xi, omega, alpha = gold_of(i)
        warmup_set.set_warmup_gold(db, lead, sample_id(db, pid, ext), **SPLIT, xi=xi, omega=omega, alpha=alpha)
    return pid


def do_warmup(db, user, pid, shift: float = 0.0) -> int:
    """Submit the user's warm-up samples, each the gold moved ``shift`` later; returns how many."""
    done = 0
    while True:
        item = queue.next_item(db, user, pid)
        if item is None or not item.is_warmup:
            return done
        xi, omega, alpha = gold_of(int(item.external_id[2:]))
        workbench_writes.submit(db, user, item.annotation_id, item.version, manual(xi + shift, omega, alpha))
        done += 1


def production_import(db, lead, pid):
    """Two imported annotators on the production texts S-012 and S-013."""
    lines = [json.dumps({"sample_id": ext, "annotator": who, "boundaries": [0, 4], "segment_axes": ["static", "main"],
                         "xi": 50.0, "omega": 8.0, "alpha": 0.5, "submitted_at": "2026-11-02T10:00:00Z"})
             for ext in ("S-012", "S-013") for who in ("imp_a", "imp_b")]
    annotation_import.import_annotations(db, lead, pid, "\n".join(lines).encode(), "prod.jsonl")


def test_seeds_are_warmup_gold_and_known_outcomes_the_outcome_winning(db, lead, make_user, warm):
    ann = make_user("ann")
    assert do_warmup(db, ann, warm) == N_WARM
    production_import(db, lead, warm)
    with db.read() as s:
        rows = experts.read_seed_rows(s, warm)
    seeds = {(x.annotator, x.item): x for x in experts.seeds_of(rows)}
    ids = {ext: sample_id(db, warm, ext) for ext in ("S-000", "S-001", "S-011", "S-012", "S-013")}
    # a warm-up sample with gold: the gold's half-gone point, against the panel
    one = seeds[(ann.user_id, ids["S-001"])]
    assert one.kind == PANEL and one.realisation == pytest.approx(realisation_of_gold(gold_of(1)))
    assert seeds[(ann.user_id, ids["S-011"])].realisation == pytest.approx(realisation_of_gold(gold_of(11)))
    # S-000 has gold and a known outcome (a day): the outcome wins, log base 1.1 of the minutes
    both = seeds[(ann.user_id, ids["S-000"])]
    assert both.kind == OUTCOME and both.realisation == pytest.approx(math.log(1440.0) / math.log(1.1))
    # production annotations: S-013 (a known outcome of an hour) is a seed, S-012 is not
    production = {(a, i) for a, i in seeds if i in (ids["S-012"], ids["S-013"])}
    assert {i for _, i in production} == {ids["S-013"]} and len(production) == 2
    assert [seeds[k].realisation for k in production] == pytest.approx([math.log(60.0) / math.log(1.1)] * 2)
    overview = experts.expert_overview(db, lead, warm)
    assert (overview.n_items, overview.n_outcome_items) == (N_WARM + 1, 2)
    by_name = dict(overview.rows())
    assert (by_name["ann"].n_seeds, by_name["ann"].n_outcomes) == (N_WARM, 1)
    assert by_name["ann"].calibration.shown and by_name["ann"].information.value > 0
    assert by_name["imp_a"].n_seeds == 1 and by_name["imp_a"].calibration.text() == "— needs ≥ 10 seeds (n = 1)"


def test_a_late_annotator_is_less_calibrated_and_few_seeds_are_withheld(db, lead):
    pid = expert_project(db, lead)
    overview = experts.expert_overview(db, lead, pid)
    assert (overview.n_items, overview.n_outcome_items) == (12, 12)
    rows = dict(overview.rows())
    assert list(rows) == ["ann_centred", "ann_late", "ann_new"]
    centred, late, new = rows["ann_centred"], rows["ann_late"], rows["ann_new"]
    assert centred.n_seeds == late.n_seeds == 12 and centred.n_outcomes == 12
    assert centred.calibration.value > 0.05 > late.calibration.value
    assert centred.calibration.interval is not None and centred.calibration.n == 12
    # same widths: the same information; the weight goes to the calibrated annotator
    assert centred.information.value == pytest.approx(late.information.value, rel=0.05)
    assert centred.weight.value > 0.99 > 0.01 > late.weight.value
    # under 10 seeds: "—" with the rule and n, for every figure
    assert new.n_seeds == 5 and not new.calibration.shown
    assert {f.text() for f in (new.calibration, new.information, new.weight)} == {"— needs ≥ 10 seeds (n = 5)"}
    as_json = overview.to_json()
    assert as_json["seed_items"] == 12 and as_json["outcome_items"] == 12
    assert [a["annotator"] for a in as_json["annotators"]] == ["ann_centred", "ann_late", "ann_new"]
    assert as_json["annotators"][2]["calibration"]["value"] is None
    assert as_json["annotators"][2]["calibration"]["needs"]["min_n"] == 10
    assert LATE_BY > 20  # the late curves sit past every realisation's 5 % point


def test_the_figures_are_kept_until_a_seed_or_a_gold_changes(db, lead, make_user, warm):
    pid = expert_project(db, lead, {"ann_new": 5}, name="Few")
    first = experts.project_expert_figures(db, pid)
    assert experts.project_expert_figures(db, pid) is first  # kept: the page's reruns compute nothing
    line = json.dumps({"sample_id": "E-005", "annotator": "ann_new", "boundaries": [0], "segment_axes": ["main"],
                       "xi": 60.0, "omega": 10.0, "alpha": 0.0, "submitted_at": "2026-11-09T10:00:00Z"})
    annotation_import.import_annotations(db, lead, pid, line.encode(), "one.jsonl")
    again = experts.project_expert_figures(db, pid)
    assert again is not first and dict(again.rows())["ann_new"].n_seeds == 6
    # a changed gold moves the realisation of every seed on it
    ann = make_user("ann")
    do_warmup(db, ann, warm)
    before = experts.project_expert_figures(db, warm)
    warmup_set.set_warmup_gold(db, lead, sample_id(db, warm, "S-005"), **SPLIT, xi=120.0, omega=8.0, alpha=0.5)
    after = experts.project_expert_figures(db, warm)
    assert after is not before
    with db.read() as s:
        rows = experts.read_seed_rows(s, warm)
    moved = [x for x in experts.seeds_of(rows) if x.item == sample_id(db, warm, "S-005")]
    assert moved[0].realisation == pytest.approx(realisation_of_gold((120.0, 8.0, 0.5)))
    assert dict(after.rows())["ann"].calibration.value != dict(before.rows())["ann"].calibration.value


def _everything(db) -> dict[str, list[str]]:
    with db.read() as s:
        return {t.name: sorted(repr(tuple(r)) for r in s.execute(select(t))) for t in Base.metadata.sorted_tables}


def test_a_non_lead_is_refused_in_one_line_and_nothing_changes(db, lead, make_user):
    pid = expert_project(db, lead, {"ann_new": 5}, name="Refused")
    ann = make_user("ann")
    before = _everything(db)
    with pytest.raises(PermissionDenied) as refused:
        experts.expert_overview(db, ann, pid)
    assert "\n" not in str(refused.value) and "lead" in str(refused.value)
    assert _everything(db) == before


def test_stopped_holding_minutes_round_trip_and_refusal(db, lead):
    pid = projects.create_project(db, lead, "Outcomes").id
    jsonl = "\n".join(json.dumps(r) for r in (
        {"id": "J-1", "text": "The road to the coast is closed today.", "stopped_holding_minutes": 90},
        {"id": "J-2", "text": "The bakery sells fresh bread this morning.", "stopped_holding_minutes": "1440"},
        {"id": "J-3", "text": "The museum opens a new wing next year."})).encode()
    text_imports.import_text_file(db, lead, pid, jsonl, "texts.jsonl")
    csv = ("id,text,stopped_holding_minutes\n"
           "C-1,The pool is closed for cleaning this week.,10080\n"
           "C-2,The train to the city leaves in ten minutes.,\n").encode()
    text_imports.import_text_file(db, lead, pid, csv, "texts.csv")
    with db.read() as s:
        stored = dict(s.execute(select(Sample.external_id, Sample.realised_minutes)
                                .where(Sample.project_id == pid)).all())
    assert stored == {"J-1": 90.0, "J-2": 1440.0, "J-3": None, "C-1": 10080.0, "C-2": None}
    # a bad value refuses the whole file, naming its line
    for data, name, line in (
            (b'{"text": "The gate is open now.", "stopped_holding_minutes": 5}\n'
             b'{"text": "The shop is open until noon.", "stopped_holding_minutes": -3}\n', "bad.jsonl", 2),
            (b"text,stopped_holding_minutes\nThe gate is open now.,5\nThe hall is full tonight.,soon\n",
             "bad.csv", 3)):
        with pytest.raises(InvalidInput) as refused:
            text_imports.import_text_file(db, lead, pid, data, name)
        message = str(refused.value)
        assert f"line {line}" in message and "stopped_holding_minutes" in message and "\n" not in message
    with db.read() as s:
        assert len(s.scalars(select(Sample.id).where(Sample.project_id == pid)).all()) == 5
    assert seed_minutes(0) == pytest.approx(1.1 ** 30)
