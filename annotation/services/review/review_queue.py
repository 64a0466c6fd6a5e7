"""The lead's review queue: the open items of a project with their W1 and Pk, after drawing any
pending daily review samples (:mod:`annotation.services.review.review` re-exports it).

The Review page asks for the whole queue on every run (a click on a row, a filter, a decision),
and a project can have tens of thousands of open items, so two things are kept per process:

* **Which days are drawn.** The daily sample of every finished day is drawn once; whether a day
  is left to draw is known from one aggregate (the start of today, the count and largest id of
  the submitted production annotations before it, and the number of drawn days). While that
  aggregate is the one seen after the last draw, nothing is read row by row and no write
  transaction is opened.
* **Each open sample's figures** (W1 of the two furthest curves, Pk of the two furthest
  segmentations), keyed by the database and, per submitted annotation in submit order, its id,
  version, last change and parameters: a new submit, a reopen or an edit changes the key. Only samples without a figure for their
  current key read their annotations' content. The queue's own read takes light columns only.
* **The queue itself** (oldest first; sorted and filtered per call), keyed by two aggregates of
  what it is read from (:func:`_queue_fingerprint`): a row click, Next or a filter reads two
  aggregates instead of every open item; a decision, a submit or a new flag reads it again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Iterable, Sequence

from sqlalchemy import Text, and_, cast, func, select
from sqlalchemy.orm import Session

from annotation.review.adjudication import SampleFigures, sample_figures
from annotation.flag_reasons import flag_label
from annotation.project_day import day_start, local_day
from annotation.content import AnnotationContent
from annotation.review.review_sampling import daily_review_sample
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.errors import InvalidInput
from annotation.services.lookup import project_settings
from annotation.services.rows import content_from_columns, json_lists
from annotation.services.review.settling import open_review
from annotation.services.number_limits import checks_numbers
from annotation.services.process_cache import MISSING, ProcessCache
from annotation.settings import ProjectSettings
from db.engine import Database
from db.models import Annotation, ReviewDay, ReviewItem, Sample, User, utcnow

DAILY_REVIEW = "daily_review"
#: Queue orders: oldest first (the default), newest first, largest W1 first, largest Pk first.
SORTS = ("oldest", "newest", "w1", "pk")
#: how many samples' figures a process keeps (a few MB at most)
FIGURE_CACHE_SIZE = 200_000
#: annotation ids per content read (well under SQLite's and PostgreSQL's parameter limits)
READ_CHUNK = 2_000


def reason_label(code: str) -> str:
    """Human label of a review reason (flag codes and the daily review sample)."""
    return "Daily review sample" if code == DAILY_REVIEW else flag_label(code)


# --- the daily review sample -------------------------------------------------------------------

def _production_before(project_id: int, start_today: datetime):  # type: ignore[no-untyped-def]
    return (select(Annotation.id, Annotation.submitted_at, Annotation.sample_id)
            .join(Sample, Sample.id == Annotation.sample_id)
            .where(Sample.project_id == project_id, Annotation.status == "submitted",
                   Sample.is_warmup.is_(False), Annotation.submitted_at < start_today))


def _draw_review_days(s: Session, project_id: int, settings: ProjectSettings, today: date) -> int:
    """Draw the review sample of every finished day not drawn yet; returns items touched. It is
    drawn among the day's submissions whose sample was never in review (a flagged sample, one
    in review or one a lead already decided is reviewed anyway: sampling it spent the share)."""
    drawn = set(s.scalars(select(ReviewDay.day).where(ReviewDay.project_id == project_id)))
    reviewed = set(s.scalars(select(ReviewItem.sample_id).join(Sample, Sample.id == ReviewItem.sample_id)
                             .where(Sample.project_id == project_id)))
    rows = s.execute(_production_before(project_id, day_start(today, settings))).all()
    by_day: dict[date, list[tuple[int, int]]] = {}
    for aid, when, sid in rows:
        day = local_day(when, settings)
        if day.isoformat() not in drawn:
            by_day.setdefault(day, []).append((aid, sid))
    touched = 0
    for day, pairs in sorted(by_day.items()):
        chosen = set(daily_review_sample([a for a, sid in pairs if sid not in reviewed], day,
                                         settings.review_rate, seed=project_id))
        for aid, sid in pairs:
            if aid in chosen:
                smp = s.get(Sample, sid)
                if smp is not None and smp.status == "active":
                    open_review(s, smp, [DAILY_REVIEW],
                                [{"code": DAILY_REVIEW, "detail": f"sampled from {day.isoformat()}",
                                  "value": None, "threshold": None, "annotation_ids": [aid]}])
                    touched += 1
        s.add(ReviewDay(project_id=project_id, day=day.isoformat(), n_submitted=len(pairs),
                        n_sampled=len(chosen), drawn_at=utcnow()))
    return touched


def _days_fingerprint(s: Session, project_id: int, settings: ProjectSettings) -> tuple:
    """What decides whether a day is left to draw: today's start, the count and largest id of
    the submitted production annotations before it, and the days drawn so far."""
    start_today = day_start(local_day(utcnow(), settings), settings)
    sub = _production_before(project_id, start_today).subquery()
    n, last = s.execute(select(func.count(), func.max(sub.c.id))).one()
    n_days = s.scalar(select(func.count()).select_from(ReviewDay).where(ReviewDay.project_id == project_id))
    return start_today, n, last, n_days


#: by database and project, the day fingerprint this process last drew at (the value is unused)
_DAYS_SEEN: ProcessCache[bool] = ProcessCache(256)


@checks_numbers
def draw_pending_days(db: Database, actor: Actor, project_id: int) -> int:
    """Lead: draw the review sample of every finished day not drawn yet (a write transaction
    only when the day fingerprint changed since this process last drew); returns items opened."""
    where = (str(db.engine.url), project_id)
    with db.read() as s:
        authorize(s, actor, Policy.REVIEW)
        settings = project_settings(s, project_id)
        seen = _days_fingerprint(s, project_id, settings)
    if _DAYS_SEEN.get(where, version=seen) is not MISSING:
        return 0
    with db.write() as s:
        settings = project_settings(s, project_id)
        touched = _draw_review_days(s, project_id, settings, local_day(utcnow(), settings))
        s.flush()
        after = _days_fingerprint(s, project_id, settings)
    _DAYS_SEEN.put(where, True, version=after)
    return touched


# --- the lead's queue ---------------------------------------------------------------------------

@dataclass(frozen=True)
class ReviewRow:
    item_id: int
    sample_id: int
    external_id: str
    benchmark: int
    reasons: tuple[str, ...]
    annotators: tuple[str, ...]
    opened_at: datetime
    #: W1 of the two furthest curves and Pk of the two furthest segmentations (None: fewer
    #: than two annotations have one)
    w1: float | None = None
    pk: float | None = None


#: each sample's figures, by database and sample, for the key of its annotations
_FIGURES: ProcessCache[SampleFigures] = ProcessCache(FIGURE_CACHE_SIZE)


def _figures(db: Database, s: Session, n_tokens: dict[int, int],
             keys: dict[int, tuple]) -> dict[int, SampleFigures]:
    """Each sample's figures: from the process's cache where its annotation key is the cached
    one, else computed from the content of its annotations (read in chunks)."""
    url = str(db.engine.url)
    found = {sid: fig for (_, sid), fig in _FIGURES.get_many({(url, sid): key for sid, key in keys.items()}).items()}
    missing = [sid for sid in keys if sid not in found]
    if not missing:
        return found
    order = {key[0]: i for sid in missing for i, key in enumerate(keys[sid])}
    contents: dict[int, list[tuple[int, AnnotationContent]]] = {sid: [] for sid in missing}
    for chunk in _chunks(list(order), READ_CHUNK):
        for sid, aid, bounds, axes, xi, omega, alpha in s.execute(
                select(Annotation.sample_id, Annotation.id, Annotation.boundaries, Annotation.segment_axes,
                       Annotation.xi, Annotation.omega, Annotation.alpha).where(Annotation.id.in_(chunk))):
            contents[sid].append((order[aid], content_from_columns(
                boundaries=bounds, segment_axes=axes, xi=xi, omega=omega, alpha=alpha)))
    computed = sample_figures([(n_tokens[sid], [c for _, c in sorted(contents[sid], key=lambda p: p[0])])
                               for sid in missing])
    found.update(zip(missing, computed))
    _FIGURES.put_many(((url, sid), keys[sid], fig) for sid, fig in zip(missing, computed))
    return found


def _chunks(values: list[int], size: int) -> Iterable[list[int]]:
    for start in range(0, len(values), size):
        yield values[start:start + size]


@checks_numbers
def review_queue(db: Database, actor: Actor, project_id: int, *, reason: str | None = None,
                 benchmark: int | None = None, annotator: str | None = None,
                 sort: str = "oldest") -> list[ReviewRow]:
    """Lead: open review items after drawing any pending daily review samples, oldest first, or
    in ``sort`` order (:data:`SORTS`: newest first, largest W1 or Pk first — items without the
    figure last, oldest first among equals), then narrowed by :func:`filter_rows`."""
    if sort not in SORTS:
        raise InvalidInput(f"Unknown order {sort!r}; choose one of {', '.join(SORTS)}.")
    draw_pending_days(db, actor, project_id)
    with db.read() as s:
        rows = list(_QUEUES.get_or_make((str(db.engine.url), project_id), lambda: _read_queue(db, s, project_id),
                                        version=_queue_fingerprint(s, project_id)))
    if sort == "newest":
        rows.reverse()
    elif sort in ("w1", "pk"):  # stable: oldest first among equals and among those without
        rows.sort(key=lambda r: (getattr(r, sort) is None, -(getattr(r, sort) or 0.0)))
    return filter_rows(rows, reason=reason, benchmark=benchmark, annotator=annotator)


#: the last queues of this process (oldest first), by what they were read from
QUEUE_CACHE_SIZE = 8
_QUEUES: ProcessCache[tuple[ReviewRow, ...]] = ProcessCache(QUEUE_CACHE_SIZE)


def _queue_fingerprint(s: Session, project_id: int) -> tuple:
    """What the queue is read from, in two aggregates: the project's open items (count, id sum,
    total length of their reasons: a decision closes one, a new flag grows one) and its submitted
    annotations (count, id sum, version sum, last change)."""
    items = s.execute(
        select(func.count(), func.sum(ReviewItem.id), func.sum(func.length(cast(ReviewItem.reasons, Text))))
        .select_from(ReviewItem).join(Sample, Sample.id == ReviewItem.sample_id)
        .where(Sample.project_id == project_id, ReviewItem.status == "open")).one()
    annotations = s.execute(
        select(func.count(), func.sum(Annotation.id), func.sum(Annotation.version), func.max(Annotation.updated_at))
        .select_from(Annotation).join(Sample, Sample.id == Annotation.sample_id)
        .where(Sample.project_id == project_id, Annotation.status == "submitted")).one()
    return (*items, *annotations)


def _read_queue(db: Database, s: Session, project_id: int) -> tuple[ReviewRow, ...]:
    """The open items, oldest first, with their annotators and figures."""
    rows_of = s.connection().execute  # Core rows: the ORM's per-row loading costs more than the read
    items = rows_of(
        select(ReviewItem.id, cast(ReviewItem.reasons, Text).label("reasons"), ReviewItem.opened_at,
               Sample.id.label("sample_id"), Sample.external_id,
               Sample.benchmark, Sample.n_tokens)
        .join(Sample, Sample.id == ReviewItem.sample_id)
        .where(Sample.project_id == project_id, ReviewItem.status == "open")
        .order_by(ReviewItem.opened_at, ReviewItem.id)).all()
    names: dict[int, list[str]] = {}
    keys: dict[int, list[tuple]] = {}
    for sid, aid, username, *stamp in rows_of(
            select(Annotation.sample_id, Annotation.id, User.username, Annotation.version,
                   cast(Annotation.updated_at, Text), Annotation.xi, Annotation.omega, Annotation.alpha)
            .join(User, User.id == Annotation.annotator_id)
            .join(ReviewItem, and_(ReviewItem.sample_id == Annotation.sample_id,
                                   ReviewItem.status == "open"))
            .join(Sample, Sample.id == Annotation.sample_id)
            .where(Annotation.status == "submitted", Sample.project_id == project_id)
            .order_by(Annotation.submitted_at, Annotation.id)):
        names.setdefault(sid, []).append(username)
        keys.setdefault(sid, []).append((aid, *stamp))
    figures = _figures(db, s, {row.sample_id: row.n_tokens for row in items},
                       {row.sample_id: tuple(keys.get(row.sample_id, ())) for row in items})
    decoded = json_lists(row.reasons for row in items)  # the reasons as stored: a few distinct lists
    return tuple(ReviewRow(item_id, sid, external_id, bench, decoded[reasons], tuple(sorted(names.get(sid, ()))),
                           opened_at, figures[sid].w1, figures[sid].pk)
                 for item_id, reasons, opened_at, sid, external_id, bench, _ in items)


def filter_rows(rows: Sequence[ReviewRow], *, reason: str | None = None, benchmark: int | None = None,
                annotator: str | None = None) -> list[ReviewRow]:
    """The rows with ``reason`` among their reasons, of ``benchmark``, annotated by ``annotator``
    (None: any), in their order."""
    return [r for r in rows if (not reason or reason in r.reasons) and (not benchmark or r.benchmark == benchmark)
            and (not annotator or annotator in r.annotators)]
