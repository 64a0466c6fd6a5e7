"""Importing context pairs (both databases): pair samples with their ``sample_pairs`` row, the
release's reference labels, all or nothing, the protocol of the project, re-imports, target keys,
large imports in hidden batches, and the protocol fixed once a project has samples."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from sqlalchemy import select

from annotation.corpus.pair_import import PairRecord, generated_target_key
from annotation.segmentation import tokenize
from annotation.services.projects import projects
from annotation.services.corpus import demo_projects
from annotation.services.corpus import text_imports
from annotation.services.errors import InvalidInput, PermissionDenied
from annotation.services.protocols.sample_pairs import follow_ups_of, pairs_of
from annotation.services.corpus import pair_imports
from annotation.settings import ProjectSettings
from db.models import AuditEvent, Base, ImportBatch, Project, Sample, SamplePair
from service_helpers import complete_content, count, text_records
import workbench_writes

TVCP = ("context,follow_up,context_only_tv,combined_tv,change\n"
        "Job interview tomorrow; wish me luck.,They just moved it to next Friday.,8,9,increased\n"
        "Job interview tomorrow; wish me luck.,It was cancelled this morning.,8,0,decreased\n"
        "Stuck in traffic on the ring road.,The jam is clearing now.,4,2,decreased\n")


def _everything(db) -> dict[str, list[str]]:
    with db.read() as s:
        return {t.name: sorted(repr(tuple(r)) for r in s.execute(select(t))) for t in Base.metadata.sorted_tables}


def _pairs_project(db, lead, name: str = "Pairs") -> int:
    return projects.create_project(db, lead, name, settings=ProjectSettings(protocol="pairs")).id


def _rows(db, pid: int) -> list[tuple]:
    with db.read() as s:
        return [tuple(r) for r in s.execute(
            select(Sample.external_id, Sample.parent_text, Sample.n_tokens, Sample.benchmark, SamplePair.target_key,
                   SamplePair.follow_up, SamplePair.reference_alone, SamplePair.reference_given,
                   SamplePair.reference_change)
            .join(SamplePair, SamplePair.sample_id == Sample.id)
            .where(Sample.project_id == pid).order_by(Sample.id))]


def test_a_tvcp_file_imports_pairs_with_their_references(db, lead):
    pid = _pairs_project(db, lead)
    summary = pair_imports.import_pair_file(db, lead, pid, TVCP.encode(), "tvcp.csv")
    assert (summary.added, summary.already_present, summary.targets) == (3, 0, 2)
    rows = _rows(db, pid)
    target = "Job interview tomorrow; wish me luck."
    key = generated_target_key(target)
    assert rows[0] == ("B1-00001", target, len(tokenize(target)), 1, key,
                       "They just moved it to next Friday.", 8, 9, "increased")
    assert rows[1][4] == key and rows[1][6:] == (8, 0, "decreased")  # one target, one key
    assert rows[2][4] == generated_target_key("Stuck in traffic on the ring road.")
    with db.read() as s:
        ids = list(s.scalars(select(Sample.id).where(Sample.project_id == pid).order_by(Sample.id)))
        facts = pairs_of(s, ids)
        shown = follow_ups_of(s, ids)
        audit = s.scalar(select(AuditEvent.action).order_by(AuditEvent.id.desc()))
    assert facts[ids[0]].has_reference and facts[ids[0]].reference_change == "increased"
    assert shown[ids[0]] == "They just moved it to next Friday."  # the annotators' view: the text only
    assert audit == "import_pairs"
    # the same file again adds nothing
    again = pair_imports.import_pair_file(db, lead, pid, TVCP.encode(), "tvcp.csv")
    assert (again.added, again.already_present) == (0, 3)


def test_ids_and_target_ids_of_our_own_format(db, lead):
    pid = _pairs_project(db, lead)
    lines = [{"id": "p1", "target_id": "gym", "target": "Gym class at six tonight.", "follow_up": "It is cancelled."},
             {"id": "p2", "target": "Gym class at six tonight.", "follow_up": "The coach is ill all month."},
             {"target": "The café is closed.", "follow_up": "It reopens in an hour."}]
    data = "\n".join(json.dumps(line) for line in lines).encode()
    summary = pair_imports.import_pair_file(db, lead, pid, data, "pairs.jsonl")
    assert (summary.added, summary.targets) == (3, 2)
    rows = _rows(db, pid)
    assert [(r[0], r[4]) for r in rows] == [("p1", "gym"), ("p2", "gym"),  # joins the key given on line 1
                                            ("B1-00001", generated_target_key("The café is closed."))]
    assert [r[6:] for r in rows] == [(None, None, "")] * 3
    # a later file's follow-up of a known target joins its key; a target_id naming another target is refused
    more = json.dumps({"target": "Gym class at six tonight.", "follow_up": "It moved to seven."}).encode()
    pair_imports.import_pair_file(db, lead, pid, more, "more.jsonl")
    assert _rows(db, pid)[-1][4] == "gym"
    before = _everything(db)
    clash = json.dumps({"target_id": "gym", "target": "Swimming at five.", "follow_up": "Pool closed."}).encode()
    with pytest.raises(InvalidInput) as refused:
        pair_imports.import_pair_file(db, lead, pid, clash, "clash.jsonl")
    assert str(refused.value) == ("line 1: target_id 'gym' already names a different target in this project. "
                                  "Nothing was imported.")
    assert _everything(db) == before


def test_a_bad_line_refuses_the_whole_file_and_changes_nothing(db, lead):
    pid = _pairs_project(db, lead)
    pair_imports.import_pair_file(db, lead, pid, TVCP.encode(), "tvcp.csv")
    before = _everything(db)
    bad = TVCP + "Rain today.,It stopped.,12,3,neutral\n"
    with pytest.raises(InvalidInput) as refused:
        pair_imports.import_pair_file(db, lead, pid, bad.encode(), "bad.csv")
    assert str(refused.value) == ("bad.csv: line 5: context_only_tv must be a class index from 0 to 11, "
                                  "not '12'. Nothing was imported.")
    assert _everything(db) == before
    # an id already used by a different pair
    taken = json.dumps({"id": "B1-00001", "target": "Rain today.", "follow_up": "It stopped."}).encode()
    with pytest.raises(InvalidInput, match="line 1: id 'B1-00001' is already used by a different pair"):
        pair_imports.import_pair_file(db, lead, pid, taken, "taken.jsonl")
    assert _everything(db) == before


def test_pairs_and_texts_go_only_into_a_project_of_their_protocol(db, lead):
    texts = projects.create_project(db, lead, "Texts").id
    pairs = _pairs_project(db, lead)
    before = _everything(db)
    with pytest.raises(InvalidInput) as refused:
        pair_imports.import_pair_file(db, lead, texts, TVCP.encode(), "tvcp.csv")
    assert str(refused.value) == "'Texts' is a single texts project: it takes texts, not pairs. Nothing was imported."
    with pytest.raises(InvalidInput) as refused:
        text_imports.import_texts(db, lead, pairs, text_records(2))
    assert str(refused.value) == ("'Pairs' is a context pairs project: it takes pairs, not texts. "
                                  "Nothing was imported.")
    assert _everything(db) == before


def test_a_new_project_named_by_the_import_is_a_pairs_project(db, lead):
    summary = pair_imports.import_pair_file(db, lead, None, TVCP.encode(), "tvcp.csv", new_project="TVCP sample")
    info = projects.get_project(db, lead, summary.project_id)
    assert (info.name, info.settings.protocol, info.n_samples) == ("TVCP sample", "pairs", 3)
    before = _everything(db)
    with pytest.raises(InvalidInput, match="bad.csv: line 2: the follow-up is missing or empty"):
        pair_imports.import_pair_file(db, lead, None, b"target,follow_up\nRain today.,\n", "bad.csv",
                                  new_project="Never made")
    assert _everything(db) == before  # no empty project left behind


def test_a_large_import_writes_pairs_in_hidden_batches(db, lead, monkeypatch):
    monkeypatch.setattr(text_imports, "IMPORT_BATCH_ROWS", 4)
    monkeypatch.setattr(text_imports, "IMPORT_PAUSE_S", 0.0)
    pid = _pairs_project(db, lead)
    records = [PairRecord(f"Target number {i // 3} is valid for a while.", f"Follow-up {i} changes it.",
                          None, None, i + 1) for i in range(10)]
    summary = pair_imports.import_pairs(db, lead, pid, records, source="big.jsonl")
    assert (summary.added, summary.targets) == (10, 4)
    rows = _rows(db, pid)
    assert len(rows) == 10 and len({r[4] for r in rows}) == 4
    assert count(db, Sample, Sample.status == text_imports.IMPORTING) == 0
    with db.read() as s:
        assert s.scalar(select(ImportBatch.status)) == "published"


def test_a_failed_large_import_leaves_no_pair_behind(db, lead, monkeypatch):
    monkeypatch.setattr(text_imports, "IMPORT_BATCH_ROWS", 4)
    monkeypatch.setattr(text_imports, "IMPORT_PAUSE_S", 0.0)
    pid = _pairs_project(db, lead)
    before = _everything(db)
    real, calls = text_imports._write_hidden_batch, [0]

    def failing(*args, **kwargs):
        calls[0] += 1
        if calls[0] == 2:
            raise RuntimeError("injected")
        return real(*args, **kwargs)

    monkeypatch.setattr(text_imports, "_write_hidden_batch", failing)
    records = [PairRecord(f"Target {i} holds.", f"Follow-up {i}.", None, None, i + 1) for i in range(10)]
    with pytest.raises(RuntimeError, match="injected"):
        pair_imports.import_pairs(db, lead, pid, records)
    assert _everything(db) == before


def test_records_made_by_a_script_are_held_to_the_files_limits(db, lead):
    pid = _pairs_project(db, lead)
    before = _everything(db)
    with pytest.raises(InvalidInput) as refused:
        pair_imports.import_pairs(db, lead, pid, [PairRecord("Rain today.", "x" * 5001, None, None, 7)])
    assert str(refused.value) == ("line 7: The follow-up is 1–5000 characters (yours has 5001). "
                                  "Nothing was imported.")
    assert _everything(db) == before


def test_the_protocol_is_fixed_once_the_project_has_samples(db, lead):
    pid = projects.create_project(db, lead, "Pilot").id
    assert projects.update_settings(db, lead, pid, protocol="pairs", change_factor=2.0).protocol == "pairs"
    assert projects.update_settings(db, lead, pid, protocol="single").protocol == "single"
    text_imports.import_texts(db, lead, pid, text_records(2))
    with pytest.raises(InvalidInput) as refused:
        projects.update_settings(db, lead, pid, protocol="pairs")
    assert str(refused.value) == ("The protocol of 'Pilot' cannot change: it already has 2 samples (create a new "
                                  "project for the other protocol); nothing was changed.")
    assert projects.get_project(db, lead, pid).settings.protocol == "single"
    # other settings still change
    assert projects.update_settings(db, lead, pid, daily_quota=20).daily_quota == 20


def test_existing_projects_stay_single_texts(db, lead):
    """A project stored before the protocol existed has no such key: it reads as single texts."""
    pid = projects.create_project(db, lead, "Old").id
    with db.write() as s:
        project = s.get(Project, pid)
        project.settings = {k: v for k, v in project.settings.items()
                            if k not in ("protocol", "change_factor", "segment_targets")}
    assert projects.get_project(db, lead, pid).settings.protocol == "single"
    text_imports.import_texts(db, lead, pid, text_records(1))


def test_the_demo_pairs_project(db, lead):
    info = demo_projects.load_demo_pairs_project(db, lead)
    n = len(demo_projects.demo_pair_records())
    assert (info.name, info.settings.protocol, info.n_samples) == (demo_projects.DEMO_PAIRS_PROJECT_NAME, "pairs", n)
    rows = _rows(db, info.id)
    assert len({r[4] for r in rows}) == n // 3
    assert sorted({r[8] for r in rows}) == ["decreased", "increased", "neutral"]
    assert demo_projects.load_demo_pairs_project(db, lead).n_samples == n  # loading it again adds nothing


def test_only_a_lead_imports_pairs(db, lead, make_user):
    pid = _pairs_project(db, lead)
    annotator = make_user("ann1")
    before = _everything(db)
    with pytest.raises(PermissionDenied):
        pair_imports.import_pair_file(db, annotator, pid, TVCP.encode(), "tvcp.csv")
    assert _everything(db) == before


def test_a_new_pairs_project_hands_out_at_random_so_a_targets_follow_ups_do_not_come_in_a_row(db, lead, make_user):
    from annotation.services.corpus import pair_imports
    from annotation.services.workbench import queue

    records = [PairRecord(f"Target {t}: the ferry to the island is cancelled today.", f"Follow-up {t}-{c}.",
                          f"T{t}-{c}", f"T{t}", 3 * t + c + 1) for t in range(10) for c in range(3)]
    summary = pair_imports.import_pairs(db, lead, None, records, "pairs.jsonl", new_project="Fresh pairs")
    assert projects.get_project(db, lead, summary.project_id).settings.hand_out_order == "random"
    ann = make_user("ann")
    targets = []
    for _ in range(12):
        item = queue.next_item(db, ann, summary.project_id)
        with db.read() as s:
            targets.append(pairs_of(s, [item.sample_id])[item.sample_id].target_key)
        workbench_writes.submit(db, ann, item.annotation_id, item.version,
                                replace(complete_content().with_context_copied(), change="derived"))
    in_a_row = sum(a == b for a, b in zip(targets, targets[1:]))
    assert in_a_row < 6, targets   # in import order all 8 neighbours of the 4 targets would match
