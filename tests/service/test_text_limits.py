"""Every String column has one length rule, the same on SQLite and PostgreSQL.

SQLite stores any length in a ``String(n)`` column; PostgreSQL's ``varchar(n)`` refuses a longer
value with a ``DataError`` — a traceback for the user, and for a value copied onward (the
guidelines version onto each new annotation) a failure of every later call. So each column is
one of two kinds, and :func:`test_every_string_column_has_a_rule` fails for a column that is
neither:

* :data:`TYPED` — a person, a file or the command line can put text there: a service call with
  a value one character over the column's width is refused with :class:`InvalidInput` naming
  the field and the limit, changing nothing, and a value of exactly the width is stored (each
  case runs on both databases);
* :data:`MADE_BY_CODE` — the code writes it: the entry says why it fits and gives what the code
  writes there, checked against the width; text from outside that nobody typed (a user agent,
  a client address, a name tried at sign-in) is cut to the column
  (:func:`test_text_from_outside_is_cut_to_its_column`).
"""

from __future__ import annotations

import json
import socket
import tempfile
from dataclasses import dataclass
from datetime import date
from typing import Any, Callable, Iterable
from unittest.mock import Mock

import pytest
from argon2 import PasswordHasher
from sqlalchemy import String, Text, select

from annotation.settings import GOLD_POOLINGS, NEWEST_GUIDELINES, ProjectSettings
from annotation.content import CHANGE_CHOICES
from annotation.review.adjudication import DECISIONS, ERROR_TYPES, RESOLUTION_SOURCES
from annotation.corpus.duplicates import REPRESENTATIONS
from annotation.corpus.embeddings import SBERT_MODEL_NAME
from annotation.export.dataset import LICENCE_MAX_CHARS
from annotation.leftovers import pid_scope
from annotation.services.accounts import accounts, sessions
from annotation.services.corpus import annotation_import, text_imports
from annotation.services import audit
from annotation.services.export import exports
from annotation.services.jobs import jobs
from annotation.services.projects import projects
from annotation.services.corpus import pair_imports
from annotation.services.workbench import queue, workbench_events
from annotation.services.review import warmup_set
from annotation.services.errors import AuthenticationFailed, InvalidInput, failure_message
from annotation.services.text_limits import width
from annotation.corpus.pair_import import PairRecord
from annotation.corpus.text_import import MAX_ID_CHARS, TextRecord
from annotation.text_limits import MAX_TEXT_CHARS
from annotation.usernames import USERNAME_MAX_CHARS
from db.models import (
    DUPLICATE_STATUSES,
    IMPORT_BATCH_STATUSES,
    JOB_STATUSES,
    ROLES,
    SAMPLE_STATUSES,
    Annotation,
    Base,
    DatasetExport,
    ImportBatch,
    LoginAttempt,
    Project,
    Sample,
    SamplePair,
    User,
    UserSession,
)
from annotation.flag_reasons import MODEL_DISAGREES
from annotation.services.quality import gold_checks, qualification
from annotation.services.review import review
from annotation.services.review.settling import open_review
from annotation.text_limits import NOTE_MAX_CHARS, SHORT_NOTE_MAX_CHARS
from db.models import GoldAnnotation, GoldCheckPause, Qualification, ReviewItem
from gold_data import gold_project

PASSWORD = "long-enough-password"
TEXT = "On Friday the team will finish the report and then everybody rests."


def _string_columns() -> dict[str, Any]:
    """Every bounded text column of the schema, as ``table.column``."""
    return {f"{table.name}.{column.name}": column
            for table in Base.metadata.sorted_tables for column in table.columns
            if isinstance(column.type, String) and not isinstance(column.type, Text)}


def _width(name: str) -> int:
    return _string_columns()[name].type.length


# --- text the code makes ------------------------------------------------------------------------


@dataclass(frozen=True)
class MadeByCode:
    why: str
    #: what the code writes there (each must fit); None: cut to the column, tested below
    values: Callable[[], Iterable[str]] | None


CUT = None

MADE_BY_CODE: dict[str, MadeByCode] = {
    "users.password_hash": MadeByCode("an Argon2id hash in its PHC string (about 100 characters)",
                                      lambda: [PasswordHasher().hash("x" * 1024)]),
    "users.role": MadeByCode("one of the roles; the services and a check constraint refuse others",
                             lambda: ROLES),
    "user_sessions.token_hash": MadeByCode("the SHA-256 of the token, in hex",
                                           lambda: [sessions.token_hash("t" * 128)]),
    "user_sessions.revoked_reason": MadeByCode("a reason code of sessions (cut to the column)",
                                               lambda: sessions.REASON_MESSAGES),
    "user_sessions.user_agent": MadeByCode("the browser's User-Agent header, cut", CUT),
    "login_attempts.username": MadeByCode("the name tried at sign-in, cut: no account's is longer", CUT),
    "login_attempts.address": MadeByCode("the client's IP address, cut", CUT),
    "samples.status": MadeByCode("a sample status", lambda: SAMPLE_STATUSES),
    "import_batches.status": MadeByCode("an import batch status", lambda: IMPORT_BATCH_STATUSES),
    "annotations.status": MadeByCode("draft or submitted (a check constraint)",
                                     lambda: ("draft", "submitted")),
    "annotations.params_source": MadeByCode("where the parameters came from: the fit or the hand",
                                            lambda: ("fit", "manual")),
    "staged_annotations.params_source": MadeByCode("as annotations.params_source", lambda: ("fit", "manual")),
    "annotations.context_params_source": MadeByCode("as annotations.params_source", lambda: ("fit", "manual")),
    "staged_annotations.context_params_source": MadeByCode("as annotations.params_source",
                                                           lambda: ("fit", "manual")),
    "annotations.change": MadeByCode("a change label the annotator picks from a list, or none",
                                     lambda: CHANGE_CHOICES),
    "staged_annotations.change": MadeByCode("a change label, checked by the content's rules",
                                            lambda: CHANGE_CHOICES),
    "gold_annotations.change": MadeByCode("a change label or none", lambda: CHANGE_CHOICES),
    "gold_annotations.curves_change": MadeByCode("the change label the gold curves give (read_change), "
                                                 "kept beside a lead's override, or none", lambda: CHANGE_CHOICES),
    "gold_annotations.pooling": MadeByCode("the pooling rule's key (annotation.settings.GOLD_POOLINGS)",
                                           lambda: GOLD_POOLINGS),
    "sample_pairs.reference_change": MadeByCode("a release's change label, checked on import",
                                                lambda: CHANGE_CHOICES),
    "sample_pairs.intended_change": MadeByCode("the change an author picks from a list",
                                               lambda: CHANGE_CHOICES),
    "staged_annotations.annotator": MadeByCode(
        "a file's annotator name, checked by the username rule (annotation.usernames) when the file "
        "is read, so never longer than a username", lambda: ["u" * USERNAME_MAX_CHARS]),
    "annotations.event_client": MadeByCode(
        "the workbench surface's id; apply_events refuses a longer one",
        lambda: ["c" * workbench_events.CLIENT_MAX_CHARS]),
    "gold_annotations.source": MadeByCode("a resolution source or the warm-up gold",
                                          lambda: [*RESOLUTION_SOURCES, warmup_set.WARMUP_SOURCE]),
    "gold_annotations.error_type": MadeByCode("an error type the lead picks from a list",
                                              lambda: ERROR_TYPES),
    "review_items.status": MadeByCode("open or closed (a check constraint)", lambda: ("open", "closed")),
    "review_items.decision": MadeByCode("a decision the lead picks", lambda: [d.name for d in DECISIONS]),
    "review_items.error_type": MadeByCode("an error type the lead picks from a list", lambda: ERROR_TYPES),
    "review_days.day": MadeByCode("an ISO date", lambda: [date.max.isoformat()]),
    "qualifications.status": MadeByCode("warmup or admitted (a check constraint)",
                                        lambda: ("warmup", "admitted")),
    "text_embeddings.model": MadeByCode("the name of the bundled encoder", lambda: [SBERT_MODEL_NAME]),
    "near_duplicates.representation": MadeByCode("which representation fired", lambda: REPRESENTATIONS),
    "near_duplicates.status": MadeByCode("a mark's status", lambda: DUPLICATE_STATUSES),
    "dataset_exports.status": MadeByCode("an export's status", lambda: ("writing", "complete", "failed")),
    "jobs.kind": MadeByCode("the kind of job", lambda: [jobs.TRAINING]),
    "jobs.status": MadeByCode("a job's status", lambda: JOB_STATUSES),
    "import_batches.host": MadeByCode("where the writer's process id means one process: the host name (at "
                                      "most 64 characters on Linux), boot id and pid namespace",
                                      lambda: [pid_scope()]),
    "jobs.host": MadeByCode("the worker's host name (at most 64 characters on Linux, 255 in DNS)",
                            lambda: [socket.gethostname()]),
    # audit.record refuses a longer one (test_the_audit_log_refuses_names_longer_than_its_columns)
    "audit_log.action": MadeByCode("the services' action names", lambda: ()),
    "audit_log.entity": MadeByCode("the services' entity names", lambda: ()),
    "audit_log.entity_id": MadeByCode("a row id or a text's id", lambda: ()),
}


# --- text a person or a file types -------------------------------------------------------------


@dataclass(frozen=True)
class Typed:
    """One way text reaches ``column``: ``setup`` makes what the call needs (returns a context),
    ``write`` is the service call, ``stored`` reads the column's values back. The refusal
    must contain ``field`` and the width."""

    column: str
    how: str
    field: str
    setup: Callable[[Any], Any]
    write: Callable[[Any, Any, str], object]
    stored: Callable[[Any, Any], list[str]]
    char: str = "é"  # PostgreSQL counts characters, not bytes, as Python does

    @property
    def id(self) -> str:
        return f"{self.column}-{self.how}"


def _values(db, column) -> list[str]:
    with db.read() as s:
        return list(s.scalars(select(column)))


def _admin(db):
    return accounts.create_first_admin(db, "admin", PASSWORD)


def _lead_and_project(db, n_texts: int = 1):
    admin = _admin(db)
    pid = projects.create_project(db, admin, "P").id
    if n_texts:
        text_imports.import_texts(db, admin, pid, [TextRecord(TEXT, 1, f"S-{i}", i + 1) for i in range(n_texts)])
    return admin, pid


def _pairs_project(db):
    admin = _admin(db)
    return admin, projects.create_project(db, admin, "Pairs", settings=ProjectSettings(protocol="pairs")).id


def _interchange(annotator: str) -> bytes:
    return json.dumps({"sample_id": "S-0", "annotator": annotator, "boundaries": [0, 5],
                       "segment_axes": ["main", "intention"], "xi": 40.0, "omega": 8.0, "alpha": 0.5,
                       "submitted_at": "2026-11-01T10:00:00Z"}).encode()


def _batched_import(db, ctx, value: str) -> None:
    admin, pid = ctx
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(text_imports, "IMPORT_BATCH_ROWS", 1)
        mp.setattr(text_imports, "IMPORT_PAUSE_S", 0.0)
        text_imports.import_texts(db, admin, pid, [TextRecord(f"{TEXT} {i}", 1, None, i + 1) for i in range(2)],
                              source=value)


def _hand_out(db, ctx) -> list[str]:
    admin, pid = ctx
    queue.next_item(db, admin, pid)
    return _values(db, Annotation.guidelines_version)


def _export(db, ctx, value: str) -> None:
    lead, pid = ctx
    exports.export_dataset(db, lead, pid, tempfile.mkdtemp(prefix="limits-export-"), seed=1, licence=value,
                           include_agreement=False)


TYPED: tuple[Typed, ...] = (
    Typed("users.username", "create_user", "username", _admin,
          lambda db, admin, v: accounts.create_user(db, admin, v, PASSWORD, "annotator"),
          lambda db, _: _values(db, User.username), char="u"),
    Typed("users.username", "annotation_import", "username", _lead_and_project,
          lambda db, ctx, v: annotation_import.import_annotations(db, ctx[0], ctx[1], _interchange(v),
                                                                  "a.jsonl"),
          lambda db, _: _values(db, User.username), char="u"),
    Typed("users.display_name", "create_user", "display name", _admin,
          lambda db, admin, v: accounts.create_user(db, admin, "bob", PASSWORD, "annotator", v),
          lambda db, _: _values(db, User.display_name)),
    Typed("users.display_name", "create_first_admin", "display name", lambda db: None,
          lambda db, _, v: accounts.create_first_admin(db, "admin", PASSWORD, v),
          lambda db, _: _values(db, User.display_name)),
    Typed("projects.name", "create_project", "project name", _admin,
          lambda db, admin, v: projects.create_project(db, admin, v),
          lambda db, _: _values(db, Project.name)),
    Typed("projects.name", "import_texts_new_project", "project name", _admin,
          lambda db, admin, v: text_imports.import_texts(db, admin, None, [TextRecord(TEXT, 1, None, 1)],
                                                     new_project=v),
          lambda db, _: _values(db, Project.name)),
    Typed("samples.external_id", "import_text_file", "id", lambda db: _lead_and_project(db, 0),
          lambda db, ctx, v: text_imports.import_text_file(
              db, ctx[0], ctx[1], json.dumps({"id": v, "text": TEXT}).encode(), "t.jsonl"),
          lambda db, _: _values(db, Sample.external_id), char="i"),
    Typed("samples.external_id", "import_texts", "id", lambda db: _lead_and_project(db, 0),
          lambda db, ctx, v: text_imports.import_texts(db, ctx[0], ctx[1], [TextRecord(TEXT, 1, v, 1)]),
          lambda db, _: _values(db, Sample.external_id)),
    Typed("sample_pairs.target_key", "import_pairs", "target id", _pairs_project,
          lambda db, ctx, v: pair_imports.import_pairs(db, ctx[0], ctx[1], [PairRecord(TEXT, "It was moved.", None, v, 1)]),
          lambda db, _: _values(db, SamplePair.target_key), char="t"),
    Typed("sample_pairs.target_key", "import_pair_file", "target_id", _pairs_project,
          lambda db, ctx, v: pair_imports.import_pair_file(
              db, ctx[0], ctx[1], json.dumps({"target_id": v, "target": TEXT, "follow_up": "It was moved."}).encode(),
              "p.jsonl"),
          lambda db, _: _values(db, SamplePair.target_key), char="t"),
    Typed("samples.source", "import_texts", "file name", lambda db: _lead_and_project(db, 0),
          lambda db, ctx, v: text_imports.import_texts(db, ctx[0], ctx[1], [TextRecord(TEXT, 1, None, 1)],
                                                   source=v),
          lambda db, _: _values(db, Sample.source)),
    Typed("import_batches.source", "batched import_texts", "file name", lambda db: _lead_and_project(db, 0),
          _batched_import, lambda db, _: _values(db, ImportBatch.source)),
    Typed("annotations.guidelines_version", "update_settings", "guidelines version", _lead_and_project,
          lambda db, ctx, v: projects.update_settings(db, ctx[0], ctx[1], guidelines_version=v),
          _hand_out),
    Typed("dataset_exports.licence", "export_dataset", "licence",
          lambda db: (lead := _admin(db), gold_project(db, lead, n=6)),
          _export, lambda db, _: _values(db, DatasetExport.licence), char="l"),
)


def _everything(db) -> dict[str, list[str]]:
    """Every row of every table, to show that a refused call changed nothing."""
    with db.read() as s:
        return {table.name: sorted(repr(tuple(row)) for row in s.execute(select(table)))
                for table in Base.metadata.sorted_tables}


# --- the rules ------------------------------------------------------------------------------


def test_every_string_column_has_a_rule():
    columns = set(_string_columns())
    typed = {case.column for case in TYPED}
    assert not typed & set(MADE_BY_CODE), "a column is either typed or made by the code"
    assert columns - typed - set(MADE_BY_CODE) == set(), \
        "new String column(s): add a TYPED case (a checked service call) or a MADE_BY_CODE entry"
    assert (typed | set(MADE_BY_CODE)) - columns == set(), "no such column any more"
    assert all(column.type.length for column in _string_columns().values()), "a String needs a width"


@pytest.mark.parametrize("name", sorted(MADE_BY_CODE))
def test_what_the_code_writes_fits_its_column(name):
    values = MADE_BY_CODE[name].values
    if values is not CUT:
        too_long = [v for v in values() if len(v) > _width(name)]
        assert not too_long, f"{name} ({_width(name)} characters) cannot hold {too_long}"


def test_the_domains_limits_are_their_columns_widths():
    """Limits the domain's parsers apply with no database (a username, a text's id, a licence)
    are the same numbers as their columns'."""
    assert USERNAME_MAX_CHARS == width(User.username)
    assert MAX_ID_CHARS == width(Sample.external_id)
    assert LICENCE_MAX_CHARS == width(DatasetExport.licence)


@pytest.mark.parametrize("case", TYPED, ids=lambda case: case.id)
def test_typed_text_one_over_the_width_is_refused_and_the_width_is_stored(db, case):
    n = _width(case.column)
    ctx = case.setup(db)
    before = _everything(db)
    with pytest.raises(InvalidInput) as refused:
        case.write(db, ctx, case.char * (n + 1))
    message = str(refused.value)
    assert case.field in message.lower() and str(n) in message, message
    assert failure_message(refused.value) == message  # a page shows it as it is
    assert _everything(db) == before
    case.write(db, ctx, case.char * n)
    assert case.char * n in case.stored(db, ctx)


def test_text_from_outside_is_cut_to_its_column(db):
    admin = _admin(db)
    sessions.start_session(db, admin, user_agent="Mozilla/5.0 " + "a" * 1000)
    with pytest.raises(AuthenticationFailed):
        accounts.authenticate(db, "n" * 300, PASSWORD, address="f" * 300)
    agents = _values(db, UserSession.user_agent)
    assert [len(a) for a in agents] == [width(UserSession.user_agent)]
    assert _values(db, LoginAttempt.username) == ["n" * width(LoginAttempt.username)]
    assert _values(db, LoginAttempt.address) == ["f" * width(LoginAttempt.address)]


def test_the_audit_log_refuses_names_longer_than_its_columns():
    """A defect, raised on SQLite too, where the row would otherwise be stored."""
    session = Mock()
    too_long = (("a" * 65, "project", 1), ("act", "p" * 33, 1), ("act", "project", "i" * 65))
    for action, entity, entity_id in too_long:
        with pytest.raises(ValueError, match="longer than"):
            audit.record(session, None, action, entity, entity_id)
    audit.record(session, None, "a" * 64, "p" * 32, "i" * 64)
    assert session.add.call_count == 1


# --- the two cases the probe found (PostgreSQL refused them with a traceback) -------------------


def test_a_long_guidelines_version_is_refused_and_hand_outs_go_on(db):
    admin, pid = _lead_and_project(db)
    before = _everything(db)
    with pytest.raises(InvalidInput) as refused:
        projects.update_settings(db, admin, pid, guidelines_version="2.0 (revised after the pilot, March)")
    assert str(refused.value) == "The guidelines version can be at most 32 characters (yours has 36)."
    assert _everything(db) == before
    item = queue.next_item(db, admin, pid)
    assert item is not None and _values(db, Annotation.guidelines_version) == [NEWEST_GUIDELINES]


def test_a_long_display_name_is_refused_and_creates_no_account(db):
    admin = _admin(db)
    before = _everything(db)
    with pytest.raises(InvalidInput) as refused:
        accounts.create_user(db, admin, "bob", PASSWORD, "annotator", "x" * 129)
    assert str(refused.value) == "The display name can be at most 128 characters (yours has 129)."
    assert _everything(db) == before


def test_a_version_stored_before_the_rule_is_cut_at_hand_out(db):
    """A project whose settings already hold a longer version (accepted before the rule) keeps
    handing out work; its next settings save asks for a shorter version."""
    admin, pid = _lead_and_project(db)
    long_version = "2.0 (revised after the pilot, March)"
    with db.write() as s:
        project = s.get(Project, pid)
        project.settings = {**project.settings, "guidelines_version": long_version}
    assert queue.next_item(db, admin, pid) is not None
    assert _values(db, Annotation.guidelines_version) == [long_version[:32]]
    with pytest.raises(InvalidInput, match="guidelines version can be at most 32"):
        projects.update_settings(db, admin, pid, daily_quota=20)


# --- unbounded text: a follow-up is limited as a sample's text is --------------------------------


@pytest.mark.parametrize("what", ["target", "follow_up"])
def test_a_pairs_texts_are_limited_like_a_parent_text(db, what):
    """``samples.parent_text`` and ``sample_pairs.follow_up`` are Text columns: the import's own
    limit (MAX_TEXT_CHARS, as for a text) holds for both, from a file and from a script."""
    admin, pid = _pairs_project(db)
    fields = {"target": TEXT, "follow_up": "It was moved to Friday."}
    before = _everything(db)
    with pytest.raises(InvalidInput) as refused:
        pair_imports.import_pair_file(db, admin, pid, json.dumps({**fields, what: "x" * (MAX_TEXT_CHARS + 1)}).encode(),
                                  "p.jsonl")
    shown = what.replace("_", "-")
    assert str(refused.value) == f"p.jsonl: line 1: the {shown} is longer than {MAX_TEXT_CHARS} characters. " \
                                 "Nothing was imported."
    with pytest.raises(InvalidInput, match=f"line 1: The {shown} is 1–{MAX_TEXT_CHARS} characters"):
        pair_imports.import_pairs(db, admin, pid, [PairRecord(**{**fields, what: "x" * (MAX_TEXT_CHARS + 1)},
                                                          external_id=None, target_id=None, line=1)])
    assert _everything(db) == before
    pair_imports.import_pair_file(db, admin, pid, json.dumps({**fields, what: "é" * MAX_TEXT_CHARS}).encode(), "p.jsonl")
    column = Sample.parent_text if what == "target" else SamplePair.follow_up
    assert "é" * MAX_TEXT_CHARS in _values(db, column)


# --- the notes of annotation/text_limits: the pages cap them, the services refuse longer ones --------

def _open_item(db, pid: int) -> int:
    with db.write() as s:
        smp = s.scalar(select(Sample).where(Sample.project_id == pid).order_by(Sample.id))
        return open_review(s, smp, [MODEL_DISAGREES], [{"code": MODEL_DISAGREES}]).id


def test_a_review_note_over_the_limit_is_refused_and_the_item_stays_open(db, lead, make_project):
    pid = make_project(1)
    item_id = _open_item(db, pid)
    with pytest.raises(InvalidInput, match=f"^The note can be at most {NOTE_MAX_CHARS} characters "
                                           f"\\(yours has {NOTE_MAX_CHARS + 1}\\)\\.$"):
        review.decide(db, lead, item_id, "discard", confidence=3, error_type=next(iter(ERROR_TYPES)),
                      note="é" * (NOTE_MAX_CHARS + 1))
    with db.read() as s:
        assert s.get(ReviewItem, item_id).status == "open"
    assert review.decide(db, lead, item_id, "discard", confidence=3, error_type=next(iter(ERROR_TYPES)),
                         note="é" * NOTE_MAX_CHARS) == "discard"


def test_a_qualification_note_over_the_limit_is_refused(db, lead, make_user, make_project):
    pid, ann = make_project(1), make_user("ann1")
    with pytest.raises(InvalidInput, match=f"^The note can be at most {NOTE_MAX_CHARS} characters"):
        qualification.admit(db, lead, pid, ann.user_id, "x" * (NOTE_MAX_CHARS + 1))
    with db.read() as s:
        assert s.scalar(select(Qualification).where(Qualification.user_id == ann.user_id)) is None
    qualification.admit(db, lead, pid, ann.user_id, "x" * NOTE_MAX_CHARS)


def test_a_warmup_gold_note_over_the_short_limit_is_refused(db, lead, make_project):
    pid = make_project(1)
    sid = _first_sample(db, pid)
    with db.read() as s:
        warmup_set.mark_warmup(db, lead, pid, [s.get(Sample, sid).external_id])
    gold = dict(boundaries=[0], segment_axes=["main"], xi=40.0, omega=8.0, alpha=0.5)
    with pytest.raises(InvalidInput, match=f"^The note can be at most {SHORT_NOTE_MAX_CHARS} characters"):
        warmup_set.set_warmup_gold(db, lead, sid, note="x" * (SHORT_NOTE_MAX_CHARS + 1), **gold)
    assert _values(db, GoldAnnotation.note) == []
    warmup_set.set_warmup_gold(db, lead, sid, note="x" * SHORT_NOTE_MAX_CHARS, **gold)
    assert _values(db, GoldAnnotation.note) == ["x" * SHORT_NOTE_MAX_CHARS]


def test_a_pause_lift_note_over_the_limit_is_refused_and_the_pause_stays(db, lead, make_user, make_project):
    pid, ann = make_project(1), make_user("ann1")
    with db.write() as s:
        pause = GoldCheckPause(project_id=pid, user_id=ann.user_id, figures={})
        s.add(pause)
        s.flush()
        pause_id = pause.id
    with pytest.raises(InvalidInput, match=f"^The note can be at most {NOTE_MAX_CHARS} characters"):
        gold_checks.lift_pause(db, lead, pause_id, "x" * (NOTE_MAX_CHARS + 1))
    assert _values(db, GoldCheckPause.lifted_at) == [None]
    gold_checks.lift_pause(db, lead, pause_id, "x" * NOTE_MAX_CHARS)
    assert _values(db, GoldCheckPause.lift_note) == ["x" * NOTE_MAX_CHARS]


def _first_sample(db, pid: int) -> int:
    with db.read() as s:
        return s.scalar(select(Sample.id).where(Sample.project_id == pid).order_by(Sample.id))
