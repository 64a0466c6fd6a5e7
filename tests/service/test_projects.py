"""Projects service: creation, settings, importing texts (all or nothing, idempotent), the demo."""

from __future__ import annotations

import json
import time

import pytest
from sqlalchemy import select

from annotation.services import projects, text_imports
from annotation.services.errors import InvalidInput, NotFound, PermissionDenied
from annotation.settings import ProjectSettings
from annotation.corpus.text_import import TextRecord
from db.models import AuditEvent, Project, Sample
from service_helpers import count, text_records


def _samples(db, project_id: int) -> list[tuple[str, int, str, int]]:
    with db.read() as s:
        return [(x.external_id, x.benchmark, x.parent_text, x.n_tokens) for x in s.scalars(
            select(Sample).where(Sample.project_id == project_id).order_by(Sample.id))]


def _stored_settings(db, project_id: int) -> dict:
    with db.read() as s:
        return dict(s.get(Project, project_id).settings)


def _jsonl(rows) -> bytes:
    return "\n".join(json.dumps(r) for r in rows).encode()


# --- create ----------------------------------------------------------------------------------


def test_lead_creates_project_with_default_settings(db, lead):
    info = projects.create_project(db, lead, "  News 2026  ", "  about news ")
    assert info.name == "News 2026" and info.description == "about news"
    assert info.settings == ProjectSettings()
    assert info.n_samples == 0
    assert [p.name for p in projects.list_projects(db, lead)] == ["News 2026"]
    assert projects.get_project(db, lead, info.id).settings.daily_quota == 70
    assert count(db, AuditEvent, AuditEvent.action == "create_project") == 1


def test_admin_may_create_project(db, admin):
    assert projects.create_project(db, admin, "Admin's").name == "Admin's"


def test_annotator_cannot_create_project_or_change_it(db, make_user, lead):
    ann = make_user("ann", "annotator")
    with pytest.raises(PermissionDenied):
        projects.create_project(db, ann, "Mine")
    assert count(db, Project) == 0
    p = projects.create_project(db, lead, "Team")
    with pytest.raises(PermissionDenied):
        projects.update_settings(db, ann, p.id, daily_quota=5)
    with pytest.raises(PermissionDenied):
        projects.import_texts(db, ann, p.id, text_records(3))
    with pytest.raises(PermissionDenied):
        projects.import_text_file(db, ann, p.id, b"a text.\n", "t.txt")
    with pytest.raises(PermissionDenied):
        projects.load_demo_project(db, ann)
    assert _stored_settings(db, p.id)["daily_quota"] == 70
    assert count(db, Sample) == 0
    assert count(db, Project) == 1
    # an annotator may read
    assert [x.name for x in projects.list_projects(db, ann)] == ["Team"]


@pytest.mark.parametrize("name", ["", "   ", "x" * 129])
def test_project_name_validated(db, lead, name):
    with pytest.raises(InvalidInput):
        projects.create_project(db, lead, name)
    assert count(db, Project) == 0


def test_duplicate_project_name_refused(db, lead):
    projects.create_project(db, lead, "Same")
    with pytest.raises(InvalidInput, match="already exists"):
        projects.create_project(db, lead, "Same")
    assert count(db, Project) == 1


def test_get_missing_project(db, lead):
    with pytest.raises(NotFound):
        projects.get_project(db, lead, 4242)
    with pytest.raises(NotFound):
        projects.update_settings(db, lead, 4242, daily_quota=3)
    with pytest.raises(NotFound):
        projects.import_texts(db, lead, 4242, text_records(1))


# --- settings --------------------------------------------------------------------------------


def test_update_settings_changes_only_what_was_asked(db, lead):
    p = projects.create_project(db, lead, "P")
    new = projects.update_settings(db, lead, p.id, daily_quota=12, annotators_per_sample=3,
                                   quota_timezone="Europe/Berlin")
    assert (new.daily_quota, new.annotators_per_sample, new.quota_timezone) == (12, 3, "Europe/Berlin")
    assert new.flag_pk_max == 0.2  # untouched
    stored = ProjectSettings.from_dict(_stored_settings(db, p.id))
    assert stored == new
    assert projects.get_project(db, lead, p.id).settings == new
    with db.read() as s:
        ev = s.scalars(select(AuditEvent).where(AuditEvent.action == "update_settings")).one()
    assert ev.detail["changes"]["daily_quota"] == [70, 12]
    assert set(ev.detail["changes"]) == {"daily_quota", "annotators_per_sample", "quota_timezone"}


def test_confirm_submit_setting_is_stored_as_a_boolean(db, lead):
    p = projects.create_project(db, lead, "P")
    assert projects.get_project(db, lead, p.id).settings.confirm_submit is False
    new = projects.update_settings(db, lead, p.id, confirm_submit=True)
    assert new.confirm_submit is True
    assert _stored_settings(db, p.id)["confirm_submit"] is True
    assert projects.get_project(db, lead, p.id).settings.confirm_submit is True


@pytest.mark.parametrize("changes", [
    {"daily_quota": 0},
    {"daily_quota": "lots"},
    {"annotators_per_sample": 0},
    {"annotators_per_sample": 11},
    {"quota_timezone": "Mars/Olympus_Mons"},
    {"flag_pk_max": 1.5},
    {"review_rate": -0.1},
    {"dedup_threshold": 0},
    {"log_base": 1.0},
    {"guidelines_version": "  "},
    {"daily_quota": 10, "flag_sigma": -1},  # one good, one bad: neither applied
    {"daily_quota": 2.9},  # not silently truncated to 2
    {"log_base": float("inf")},
    {"daily_qouta": 10},  # a typo is refused, not ignored
    {"confirm_submit": "perhaps"},  # a yes/no setting takes yes or no only
])
def test_update_settings_rejects_bad_values_and_changes_nothing(db, lead, changes):
    p = projects.create_project(db, lead, "P")
    before = _stored_settings(db, p.id)
    audit_before = count(db, AuditEvent)
    with pytest.raises(InvalidInput):
        projects.update_settings(db, lead, p.id, **changes)
    assert _stored_settings(db, p.id) == before
    assert count(db, AuditEvent) == audit_before


# --- import ----------------------------------------------------------------------------------


def test_import_texts_adds_samples_with_token_counts(db, lead):
    p = projects.create_project(db, lead, "P")
    recs = [TextRecord("The shop is closed today.", 1, "a-1", 1),
            TextRecord("The road is shut. It opens on Monday.", 2, "a-2", 2)]
    summary = projects.import_texts(db, lead, p.id, recs, source="upload.jsonl")
    assert (summary.added, summary.already_present, summary.benchmark_counts) == (2, 0, {1: 1, 2: 1})
    assert _samples(db, p.id) == [
        ("a-1", 1, "The shop is closed today.", 6),
        ("a-2", 2, "The road is shut. It opens on Monday.", 10),
    ]
    assert projects.get_project(db, lead, p.id).n_samples == 2
    with db.read() as s:
        smp = s.scalars(select(Sample)).first()
        assert (smp.status, smp.n_assigned, smp.source) == ("active", 0, "upload.jsonl")


def test_import_with_clashing_id_imports_nothing(db, lead):
    p = projects.create_project(db, lead, "P")
    projects.import_texts(db, lead, p.id, [TextRecord("Original text.", 1, "x-1", 1)])
    before = _samples(db, p.id)
    clash = [TextRecord("A brand new text.", 1, "x-2", 1),
             TextRecord("Another new text.", 1, None, 2),
             TextRecord("Different text under an old id.", 1, "x-1", 3)]
    with pytest.raises(InvalidInput) as exc:
        projects.import_texts(db, lead, p.id, clash)
    assert "line 3" in str(exc.value) and "x-1" in str(exc.value)
    assert _samples(db, p.id) == before  # the two good records before the clash are not kept
    assert count(db, AuditEvent, AuditEvent.action == "import_texts") == 1


def test_reimporting_the_same_file_adds_nothing(db, lead):
    p = projects.create_project(db, lead, "P")
    data = _jsonl([{"id": "n-1", "text": "The bakery is closed this week."},
                   {"text": "Heavy snow is falling in the hills."},
                   {"text": "The ferry stops running. Buses replace it until Friday.", "benchmark": 2}])
    first = projects.import_text_file(db, lead, p.id, data, "texts.jsonl")
    assert (first.added, first.already_present) == (3, 0)
    snapshot = _samples(db, p.id)
    second = projects.import_text_file(db, lead, p.id, data, "texts.jsonl")
    assert (second.added, second.already_present) == (0, 3)
    assert second.benchmark_counts == {1: 0, 2: 0}
    assert _samples(db, p.id) == snapshot


def test_same_text_twice_without_id_in_one_import_is_added_once(db, lead):
    p = projects.create_project(db, lead, "P")
    recs = [TextRecord("Same words here.", 1, None, 1), TextRecord("Same words here.", 1, None, 2)]
    summary = projects.import_texts(db, lead, p.id, recs)
    assert (summary.added, summary.already_present) == (1, 1)


def test_generated_ids_continue_the_projects_numbering(db, lead):
    p = projects.create_project(db, lead, "P")
    projects.import_texts(db, lead, p.id, [
        TextRecord("First single sentence.", 1, None, 1),
        TextRecord("A passage. With two sentences.", 2, None, 2),
        TextRecord("Second single sentence.", 1, None, 3),
    ])
    assert [x[0] for x in _samples(db, p.id)] == ["B1-00001", "B2-00001", "B1-00002"]
    # an explicit id is kept as given; a generated one continues the numbering without reusing it
    projects.import_texts(db, lead, p.id, [TextRecord("Explicit one.", 1, "B1-00007", 1),
                                           TextRecord("Third single sentence.", 1, None, 2)])
    ids = [x[0] for x in _samples(db, p.id)]
    assert ids[3] == "B1-00007"
    prefix, _, number = ids[4].partition("-")
    assert prefix == "B1" and int(number) > 2 and ids[4] not in ids[:4]
    # numbering continues after the highest id in the project, given or generated
    projects.import_texts(db, lead, p.id, [TextRecord("Fourth single sentence.", 1, None, 1)])
    assert _samples(db, p.id)[-1][0] == "B1-00008"


def test_generated_ids_follow_the_width_of_the_projects_numbering(db, lead, admin):
    """The demo's ids have four digits: texts imported into it go on at four (B1-0051 after
    B1-0050), not five beside them; the demo's own ids stay as they are."""
    demo = projects.load_demo_project(db, admin)
    before = [x[0] for x in _samples(db, demo.id)]
    last = max(int(i.partition("-")[2]) for i in before if i.startswith("B1-"))
    assert all(len(i) == len("B1-0001") for i in before)
    projects.import_texts(db, lead, demo.id, [TextRecord("A text the demo does not have.", 1, None, 1),
                                              TextRecord("A passage. The demo has not got it.", 2, None, 2)])
    after = [x[0] for x in _samples(db, demo.id)]
    assert after[:len(before)] == before
    assert after[-2] == f"B1-{last + 1:04d}" and len(after[-1]) == len("B2-0001") and after[-1].startswith("B2-")


def test_generated_id_never_takes_an_id_given_later_in_the_same_file(db, lead):
    """A file mixing records with and without ids imports whatever the order of its lines."""
    p = projects.create_project(db, lead, "P")
    recs = [TextRecord("A text without an id.", 1, None, 1),
            TextRecord("A text that names its id.", 1, "B1-00001", 2)]
    summary = projects.import_texts(db, lead, p.id, recs)
    assert summary.added == 2
    ids = {text: ext for ext, _, text, _ in _samples(db, p.id)}
    assert ids["A text that names its id."] == "B1-00001"
    assert ids["A text without an id."] != "B1-00001"
    assert len(set(ids.values())) == 2


def test_projects_are_independent_for_ids_and_texts(db, lead):
    a = projects.create_project(db, lead, "A")
    b = projects.create_project(db, lead, "B")
    projects.import_texts(db, lead, a.id, [TextRecord("Shared text.", 1, "id-1", 1)])
    summary = projects.import_texts(db, lead, b.id, [TextRecord("Other text.", 1, "id-1", 1)])
    assert summary.added == 1


def test_import_text_file_with_bad_line_names_it_and_writes_nothing(db, lead):
    p = projects.create_project(db, lead, "P")
    data = b'{"text": "Fine line."}\n{"text": "Also fine."}\n{"text": "broken"\n{"text": "x"}\n'
    with pytest.raises(InvalidInput) as exc:
        projects.import_text_file(db, lead, p.id, data, "bad.jsonl")
    msg = str(exc.value)
    assert "bad.jsonl" in msg and "line 3" in msg and "Nothing was imported" in msg
    assert count(db, Sample) == 0
    assert count(db, AuditEvent, AuditEvent.action == "import_texts") == 0


def test_a_million_line_file_is_refused_in_a_line_at_once(db, lead):
    p = projects.create_project(db, lead, "P")
    data = b"".join(b"Shop %06d open\n" % i for i in range(1_000_000))  # 17 MB
    started = time.process_time()  # the work done: other processes on a busy machine do not lengthen it
    with pytest.raises(InvalidInput) as exc:
        projects.import_text_file(db, lead, p.id, data, "huge.txt")
    assert time.process_time() - started < 1.0
    assert str(exc.value) == ("huge.txt: the file has 1,000,000 lines; at most 200,000 are imported at once "
                              "(split it into several files). Nothing was imported.")
    assert count(db, Sample) == 0
    with pytest.raises(InvalidInput, match="larger than 20 MB. Nothing was imported"):
        text_imports.check_text_file_size("big.txt", 20 * 2**20 + 1)


@pytest.mark.parametrize("data,filename,line", [
    (b"text,id\nfine,a\nbad,b,extra\n", "t.csv", "line 3"),
    (b"id,benchmark\n1,1\n", "t.csv", "line 1"),
    (b"ok text\n\xff\xfe bad bytes\n", "t.txt", "line 2"),
    (b'{"text": "a", "benchmark": 7}\n', "t.jsonl", "line 1"),
])
def test_import_text_file_malformed_variants(db, lead, data, filename, line):
    p = projects.create_project(db, lead, "P")
    with pytest.raises(InvalidInput, match=line):
        projects.import_text_file(db, lead, p.id, data, filename)
    assert count(db, Sample) == 0


def test_import_text_file_unsupported_and_empty(db, lead):
    p = projects.create_project(db, lead, "P")
    with pytest.raises(InvalidInput, match="unsupported"):
        projects.import_text_file(db, lead, p.id, b"a,b", "sheet.xlsx")
    with pytest.raises(InvalidInput, match="no texts"):
        projects.import_text_file(db, lead, p.id, b"\n\n", "empty.txt")
    assert count(db, Sample) == 0


def test_import_text_file_default_benchmark(db, lead):
    p = projects.create_project(db, lead, "P")
    s = projects.import_text_file(db, lead, p.id, b"One. Two.\nThree\n", "t.txt", default_benchmark=1)
    assert s.benchmark_counts == {1: 2, 2: 0}


# --- demo ------------------------------------------------------------------------------------


def test_load_demo_project_twice_adds_nothing_the_second_time(db, lead):
    info = projects.load_demo_project(db, lead)
    assert info.name == projects.DEMO_PROJECT_NAME
    assert info.n_samples == 50
    first = _samples(db, info.id)
    assert len({x[0] for x in first}) == 50
    assert {x[1] for x in first} == {1, 2}
    assert all(n > 0 for *_, n in first)

    again = projects.load_demo_project(db, lead)
    assert again.id == info.id and again.n_samples == 50
    assert _samples(db, info.id) == first
    assert count(db, Project) == 1
    assert count(db, Sample) == 50


# --- issue 9: a refused import with a new project creates no project -----------------------------

def test_import_into_a_new_project_is_one_all_or_nothing_step(db, lead):
    with pytest.raises(InvalidInput, match=r"bad\.csv: line 3: malformed CSV .*Nothing was imported"):
        projects.import_text_file(db, lead, None, b'text\nFine text.\n"Never closed\n', "bad.csv",
                                  new_project="Fresh")
    with pytest.raises(InvalidInput, match="line 2: the JSON is nested too deeply"):
        projects.import_text_file(db, lead, None, b'{"text": "Fine."}\n' + b"[" * 100_000, "deep.jsonl",
                                  new_project="Fresh")
    assert count(db, Project) == 0 and count(db, Sample) == 0
    summary = projects.import_text_file(db, lead, None, b"text\nFine text.\n", "good.csv", new_project="Fresh")
    assert summary.added == 1
    [p] = projects.list_projects(db, lead)
    assert (p.name, p.id, p.n_samples) == ("Fresh", summary.project_id, 1)
    with pytest.raises(InvalidInput, match="already exists"):
        projects.import_text_file(db, lead, None, b"text\nOther text.\n", "x.csv", new_project="Fresh")
