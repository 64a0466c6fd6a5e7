"""The warm-up set of a project and its gold (SPEC section 5), kept by the leads.

* **The warm-up set** of a project is its active samples marked warm-up (``Sample.is_warmup``)
  that have a lead-made gold annotation (``GoldAnnotation.source == "warmup"``). A sample marked
  but without gold yet is held back from everyone: neither warm-up nor production. Only samples
  nobody has started can be marked (:func:`mark_warmup`, :func:`pick_warmup`).
* Every change to the set or its gold re-checks everyone's figures against gold and applies the
  admission rule (:func:`annotation.services.quality.admission.recheck_all`); who does the warm-up, the
  routing and the rule are :mod:`annotation.services.quality.admission`.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Sequence

from sqlalchemy import delete, false, func, select, true
from sqlalchemy.orm import Session

from annotation.axes import is_axis_name
from annotation.review.lead_edit import LeadEdit
from annotation.review.resolution import EDITED, Resolution
from annotation.services import audit
from annotation.services.review import settling
from annotation.services.quality.admission import recheck_all
from annotation.services.authz import Actor
from annotation.services.policy import Policy, authorize
from annotation.services.text_limits import check_chars
from annotation.text_limits import SHORT_NOTE_MAX_CHARS
from annotation.services.errors import InvalidInput, NotFound
from annotation.services.lookup import project_row, project_settings
from annotation.services.rows import StoredGold, stored_gold
from annotation.services.number_limits import checks_numbers
from db.engine import Database
from db.models import Annotation, GoldAnnotation, Sample, User

#: ``GoldAnnotation.source`` of a warm-up sample's lead-made gold.
WARMUP_SOURCE = "warmup"


@dataclass(frozen=True)
class WarmupSample:
    """One sample marked warm-up, with its gold (None until the lead gives it one) and the
    username of the lead who stored it ("" without gold)."""

    sample_id: int
    external_id: str
    benchmark: int
    parent_text: str
    n_tokens: int
    gold: StoredGold | None
    n_submitted: int
    n_drafts: int
    gold_by: str = ""


@checks_numbers
def warmup_samples(db: Database, actor: Actor, project_id: int) -> list[WarmupSample]:
    """Lead: the active samples marked warm-up, oldest first, with gold and progress counts."""
    with db.read() as s:
        authorize(s, actor, Policy.WARMUP_SET)
        project_row(s, project_id)
        rows = s.execute(
            select(Sample, GoldAnnotation, User.username)
            .outerjoin(GoldAnnotation, GoldAnnotation.sample_id == Sample.id)
            .outerjoin(User, User.id == GoldAnnotation.decided_by)
            .where(Sample.project_id == project_id, Sample.is_warmup == true(), Sample.status == "active")
            .order_by(Sample.id)).all()
        counts: dict[tuple[int, str], int] = {}
        if rows:
            for sid, status, n in s.execute(
                    select(Annotation.sample_id, Annotation.status, func.count())
                    .where(Annotation.sample_id.in_([smp.id for smp, _, _ in rows]),
                           Annotation.is_gold_check == false())  # warm-up work only
                    .group_by(Annotation.sample_id, Annotation.status)):
                counts[(sid, status)] = n
    out = []
    for smp, g, who in rows:
        out.append(WarmupSample(smp.id, smp.external_id, smp.benchmark, smp.parent_text, smp.n_tokens,
                                None if g is None else stored_gold(g), counts.get((smp.id, "submitted"), 0),
                                counts.get((smp.id, "draft"), 0), who or ""))
    return out


def _samples_by_external_id(s: Session, project_id: int, external_ids: Sequence[str]) -> list[Sample]:
    wanted = list(dict.fromkeys(e.strip() for e in external_ids if e and e.strip()))
    if not wanted:
        raise InvalidInput("Name at least one sample id.")
    found = {smp.external_id: smp for smp in s.scalars(
        select(Sample).where(Sample.project_id == project_id, Sample.external_id.in_(wanted)))}
    missing = [e for e in wanted if e not in found]
    if missing:
        raise InvalidInput(f"No sample {', '.join(missing[:10])}{' …' if len(missing) > 10 else ''} "
                           "in this project; nothing was changed.")
    return [found[e] for e in wanted]


def _annotated_ids(s: Session, sample_ids: Sequence[int]) -> set[int]:
    if not sample_ids:
        return set()
    return set(s.scalars(select(Annotation.sample_id).where(Annotation.sample_id.in_(list(sample_ids)))
                         .distinct()))


def _mark(s: Session, actor: Actor, project_id: int, samples: Sequence[Sample], how: str) -> list[str]:
    started = _annotated_ids(s, [smp.id for smp in samples])
    refused = [smp.external_id for smp in samples
               if smp.status != "active" or smp.id in started or smp.n_assigned > 0]
    if refused:
        raise InvalidInput(
            f"{', '.join(refused[:10])}{' …' if len(refused) > 10 else ''}: only active samples that "
            "nobody has started can become warm-up samples; nothing was changed.")
    marked = []
    for smp in samples:
        if not smp.is_warmup:
            smp.is_warmup = True
            marked.append(smp.external_id)
    audit.record(s, actor.user_id, "warmup_mark", "project", project_id, how=how, samples=marked)
    return marked


@checks_numbers
def mark_warmup(db: Database, actor: Actor, project_id: int, external_ids: Sequence[str]) -> list[str]:
    """Lead: mark samples (by external id) as warm-up samples; returns the ids newly marked.

    All or nothing: an unknown id, a discarded sample, or one somebody has already started
    (assigned or annotated) refuses the whole request. They enter the warm-up set once they have
    gold (:func:`set_warmup_gold`).
    """
    with db.write() as s:
        authorize(s, actor, Policy.WARMUP_SET)
        project_row(s, project_id)
        return _mark(s, actor, project_id, _samples_by_external_id(s, project_id, external_ids), "ids")


@checks_numbers
def pick_warmup(db: Database, actor: Actor, project_id: int, n: int | None = None,
                seed: int | None = None) -> list[str]:
    """Lead: mark ``n`` random active samples that nobody has started as warm-up samples
    (default: enough to bring the marked set to ``settings.warmup_size``). Returns their ids.

    ``seed`` makes the choice reproducible.
    """
    with db.write() as s:
        authorize(s, actor, Policy.WARMUP_SET)
        settings = project_settings(s, project_id)
        if n is None:
            marked = s.scalar(select(func.count()).select_from(Sample).where(
                Sample.project_id == project_id, Sample.is_warmup == true(), Sample.status == "active")) or 0
            n = settings.warmup_size - marked
            if n <= 0:
                raise InvalidInput(f"The warm-up set already has {marked} samples "
                                   f"(the project's warm-up size is {settings.warmup_size}).")
        if n < 1:
            raise InvalidInput("Pick at least one sample.")
        pool = list(s.scalars(
            select(Sample.id).where(Sample.project_id == project_id, Sample.status == "active",
                                    Sample.is_warmup == false(), Sample.n_assigned == 0)
            .where(~select(Annotation.id).where(Annotation.sample_id == Sample.id).exists())
            .order_by(Sample.id)))
        if not pool:
            raise InvalidInput("No sample is left that nobody has started.")
        chosen = sorted(random.Random(seed).sample(pool, min(n, len(pool))))
        samples = list(s.scalars(select(Sample).where(Sample.id.in_(chosen)).order_by(Sample.id)))
        return _mark(s, actor, project_id, samples, "random")


@dataclass(frozen=True)
class UnmarkSummary:
    """``returned``: back in the production pool (nobody had started them);
    ``retired``: annotated in warm-up already, so withdrawn (discarded) instead."""

    returned: tuple[str, ...]
    retired: tuple[str, ...]


@checks_numbers
def unmark_warmup(db: Database, actor: Actor, project_id: int, external_ids: Sequence[str]) -> UnmarkSummary:
    """Lead: take samples out of the warm-up set.

    A sample nobody has started goes back to the production pool (its warm-up gold is deleted).
    One with warm-up annotations cannot join production (it has more annotators than k and
    annotators who saw it in warm-up): it is retired — discarded, gold and annotations kept for
    the record, and it no longer counts in anyone's figures. Figures and admissions are then
    re-checked.
    """
    with db.write() as s:
        authorize(s, actor, Policy.WARMUP_SET)
        project_row(s, project_id)
        samples = _samples_by_external_id(s, project_id, external_ids)
        not_warmup = [smp.external_id for smp in samples if not smp.is_warmup or smp.status != "active"]
        if not_warmup:
            raise InvalidInput(f"{', '.join(not_warmup[:10])}: not in the warm-up set; nothing was changed.")
        started = _annotated_ids(s, [smp.id for smp in samples])
        returned, retired = [], []
        for smp in samples:
            if smp.id in started or smp.n_assigned > 0:
                smp.status = "discarded"
                retired.append(smp.external_id)
            else:
                smp.is_warmup = False
                s.execute(delete(GoldAnnotation).where(GoldAnnotation.sample_id == smp.id))
                returned.append(smp.external_id)
        s.flush()
        audit.record(s, actor.user_id, "warmup_unmark", "project", project_id, returned=returned,
                     retired=retired)
        recheck_all(s, project_id)
        return UnmarkSummary(tuple(returned), tuple(retired))


def _normalised_axes(segment_axes: Sequence) -> tuple[tuple[str, ...], ...]:
    out = []
    for axes in segment_axes:
        if axes is None:
            out.append(())
        elif isinstance(axes, str):
            out.append((axes,))
        else:
            out.append(tuple(axes))
    return tuple(out)


@checks_numbers
def set_warmup_gold(db: Database, actor: Actor, sample_id: int, edit: LeadEdit | None = None, *,
                    boundaries: Sequence[int] | None = None, segment_axes: Sequence | None = None,
                    xi: float | None = None, omega: float | None = None, alpha: float | None = None,
                    note: str = "") -> StoredGold:
    """Lead: store the gold of a warm-up sample, from the lead's :class:`LeadEdit` or from plain
    values (``segment_axes``: one axis name, or a list of axis names, per segment).

    Every segment needs at least one axis and the curve must be valid (ω > 0). The figures of
    everyone who annotated the sample are re-checked against the new gold.
    """
    check_chars((note or "").strip(), SHORT_NOTE_MAX_CHARS, "note")
    with db.write() as s:
        authorize(s, actor, Policy.WARMUP_SET)
        smp = s.get(Sample, sample_id)
        if smp is None:
            raise NotFound("No such sample.")
        if not smp.is_warmup or smp.status != "active":
            raise InvalidInput(f"{smp.external_id} is not in the warm-up set; mark it as a warm-up sample first.")
        if edit is not None:
            resolution = edit.resolution((actor.username,))
        else:
            if boundaries is None or segment_axes is None:
                raise InvalidInput("Give the gold's boundaries and the axes of each segment.")
            try:
                resolution = Resolution(tuple(boundaries), _normalised_axes(segment_axes), xi, omega, alpha,
                                        (actor.username,), smp.n_tokens, method=EDITED)
            except (ValueError, TypeError) as exc:  # SegmentationError is a ValueError
                raise InvalidInput(f"Not stored: {exc}") from None
        if resolution.n_tokens != smp.n_tokens:
            raise InvalidInput("The gold does not fit this text (different number of tokens).")
        if any(not axes for axes in resolution.segment_axes):
            raise InvalidInput("Every segment of the gold needs at least one axis.")
        for a in (x for axes in resolution.segment_axes for x in axes):
            if not is_axis_name(a):
                raise InvalidInput(f"Unknown axis {a!r}.")
        if edit is not None and edit.curve_problem:
            raise InvalidInput(f"Gold not stored. {edit.curve_problem}")
        params = (resolution.xi, resolution.omega, resolution.alpha)
        if None in params or not all(math.isfinite(float(p)) for p in params):  # type: ignore[arg-type]
            raise InvalidInput("The gold needs a curve: ξ, ω and α as numbers.")
        if not float(resolution.omega) > 0:  # type: ignore[arg-type]
            raise InvalidInput("The curve's width ω must be greater than zero.")
        gold = settling.store_gold(s, smp, resolution, WARMUP_SOURCE, actor.user_id,
                                   note=(note or "").strip())
        audit.record(s, actor.user_id, "warmup_gold", "sample", smp.id, sample=smp.external_id,
                     boundaries=gold.boundaries, segment_axes=gold.segment_axes,
                     xi=gold.xi, omega=gold.omega, alpha=gold.alpha, note=gold.note)
        recheck_all(s, smp.project_id)
        return stored_gold(gold)



__all__ = [
    "WARMUP_SOURCE",
    "UnmarkSummary",
    "WarmupSample",
    "mark_warmup",
    "pick_warmup",
    "set_warmup_gold",
    "unmark_warmup",
    "warmup_samples",
]
