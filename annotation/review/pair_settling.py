"""Settling a context pair: the second curve, the change label and the pair's own flags.

A pair's gold is a single text's gold (the target alone: segmentation and axes when the project
segments its targets, one unlabelled segment otherwise, and the curve) plus

* **the curve given the follow-up** — merged from the annotators' second curves by the same rule
  as the first (the mean of ξ, ω, α; or the refitted pool, :mod:`annotation.review.pooling`): the
  code of the first curve runs on each annotation with its curves exchanged
  (:meth:`~annotation.workbench.protocol.AnnotationContent.swapped_curves`);
* **the change label** — each annotator's *effective* label is their override
  (``content.change``) or else the label derived from their two curves
  (:func:`annotation.pairs.change.read_change` against the project's time factor). The settled
  label is the one most annotators gave; on a tie, the label the settled curves give.

The pair's flags (codes in :mod:`annotation.flag_reasons`), beside the single-text ones:

* ``change_disagreement`` — the annotators' effective labels are not all the same;
* ``change_overridden`` — an annotator chose a label other than the one their curves give (an
  override is recorded on the annotation and shown to the lead; choosing the derived label
  itself is no override);
* ``intent_differs`` — an authored pair whose settled change is not the change its author meant
  (the author's validation: such pairs go to a lead);
* ``given_…`` — the curve rules (deviation beyond σ, W1 beyond the threshold) on the second
  curves. The deviation rule measures against the project's spread of the first curves: the
  running sums keep one curve per annotation, and the target's curve given a follow-up lives on
  the same time axis and scale. While that spread is too thin to use (fewer than 30 annotations,
  or no variation) the project's fixed thresholds decide, as for the first curves
  (:mod:`annotation.review.deviation`).

Everything here is pure: contents in, figures and hits out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from annotation.pairs.change import CHANGE_LABELS, read_change
from annotation.flag_reasons import (
    CHANGE_DISAGREEMENT,
    CHANGE_OVERRIDDEN,
    GIVEN_CODES,
    INTENT_DIFFERS,
)
from annotation.review.deviation import ParameterSpread
from annotation.review.flags import FlagHit, automatic_flags
from annotation.review.pair_figures import parameters_of
from annotation.review.resolution import AnnotatorVersion, Resolution, resolve_pair
from annotation.segmentation import Segmentation
from annotation.settings import ProjectSettings
from annotation.content import AnnotationContent

Curve = tuple[float, float, float]


@dataclass(frozen=True)
class ChangeChoice:
    """One annotator's change label: the ``derived`` one (from their two curves), the
    ``label`` that counts (their override, else the derived) and whether they ``overrode``."""

    label: str
    derived: str

    @property
    def overridden(self) -> bool:
        return self.label != self.derived


def change_choice(content: AnnotationContent, factor: float) -> ChangeChoice | None:
    """The annotator's change label, or None when the annotation lacks one of its curves.

    Examples:
        >>> a = AnnotationContent(xi=45.0, omega=10.0, alpha=0.0, context_xi=60.0, context_omega=10.0, context_alpha=0.0)
        >>> change_choice(a, 1.5)
        ChangeChoice(label='increased', derived='increased')
        >>> c = change_choice(AnnotationContent(**{**a.__dict__, "change": "neutral"}), 1.5)
        >>> c.label, c.overridden
        ('neutral', True)
        >>> change_choice(AnnotationContent(xi=45.0, omega=10.0, alpha=0.0), 1.5) is None
        True
    """
    alone, given = parameters_of(content), parameters_of(content.swapped_curves())
    if alone is None or given is None:
        return None
    derived = read_change(alone, given, factor).label
    # a label of the annotator's own stands; none yet or "derived" is what the curves give
    return ChangeChoice(content.change if content.change in CHANGE_LABELS else derived, derived)


def pair_version(annotator: int | str, content: AnnotationContent, n_tokens: int,
                 segmented: bool) -> AnnotatorVersion:
    """An annotation as the resolution reads it: as it is when the project segments its targets,
    else one segment without an axis (what an unsegmented pair's gold holds) with its curve.
    Raises ValueError / SegmentationError as :meth:`AnnotatorVersion.from_content` does.

    Examples:
        >>> c = AnnotationContent(boundaries=(0, 2), segment_axes=("main", None), xi=40.0, omega=9.0, alpha=0.0)
        >>> v = pair_version(1, c, 4, segmented=False)
        >>> v.segmentation.boundaries, v.segment_axes, v.xi
        ((0,), (None,), 40.0)
    """
    if segmented:
        return AnnotatorVersion.from_content(annotator, content, n_tokens)
    return AnnotatorVersion(annotator, Segmentation((0,), n_tokens), (None,),
                            content.xi, content.omega, content.alpha)


def given_versions(annotations: Sequence[tuple[int | str, AnnotationContent]],
                   n_tokens: int) -> list[AnnotatorVersion]:
    """The annotators' curves given the follow-up as versions of one unlabelled segment (what
    :func:`resolve_pair` and the pooling merge), those with a second curve only.

    Examples:
        >>> a = AnnotationContent(context_xi=50.0, context_omega=10.0, context_alpha=0.0)
        >>> [(v.annotator, v.xi) for v in given_versions([(1, a), (2, AnnotationContent())], 3)]
        [(1, 50.0)]
    """
    return [pair_version(who, content.swapped_curves(), n_tokens, segmented=False)
            for who, content in annotations if content.has_context_parameters]


def settled_change(labels: Sequence[str], alone: Curve | None, given: Curve | None, factor: float) -> str:
    """The label most annotators gave; on a tie, the one the settled curves give (the first of
    the tied labels in :data:`CHANGE_LABELS` order when there are no settled curves). "" when
    nobody gave one.

    Examples:
        >>> settled_change(["increased", "increased", "neutral"], None, None, 1.5)
        'increased'
        >>> settled_change(["increased", "neutral"], (45.0, 10.0, 0.0), (46.0, 10.0, 0.0), 1.5)
        'neutral'
        >>> settled_change([], None, None, 1.5)
        ''
    """
    counts = Counter(labels)
    if not counts:
        return ""
    top = max(counts.values())
    tied = [label for label in CHANGE_LABELS if counts.get(label) == top]
    if len(tied) == 1:
        return tied[0]
    if alone is not None and given is not None:
        from_curves = read_change(alone, given, factor).label
        if from_curves in tied:
            return from_curves
    return tied[0]


@dataclass(frozen=True)
class PairGold:
    """What a pair's gold holds beside the target's resolution: the curve given the follow-up
    (None when no annotation has one), the change label ("" when none can be read) and, when that
    label is a lead's override, the label the gold curves give (``curves_change``; "" otherwise:
    :mod:`annotation.review.gold_rules`)."""

    context: Curve | None
    change: str
    curves_change: str = ""


def pair_gold(annotations: Sequence[tuple[int | str, AnnotationContent]], n_tokens: int,
              alone: Resolution | None, factor: float) -> PairGold:
    """The automatic pair gold: the mean of the second curves and the settled change label
    (``alone``: the target's settled resolution, which breaks a tie of labels).

    Examples:
        >>> kw = dict(omega=10.0, alpha=0.0, context_omega=10.0, context_alpha=0.0)
        >>> a = AnnotationContent(xi=45.0, context_xi=60.0, **kw)
        >>> b = AnnotationContent(xi=45.0, context_xi=64.0, **kw)
        >>> pair_gold([(1, a), (2, b)], 3, None, 1.5)
        PairGold(context=(62.0, 10.0, 0.0), change='increased', curves_change='')
    """
    versions = given_versions(annotations, n_tokens)
    merged = resolve_pair(versions) if versions else None
    context = (merged.xi, merged.omega, merged.alpha) if merged is not None and merged.has_parameters else None
    labels = [c.label for c in (change_choice(x, factor) for _, x in annotations) if c is not None]
    alone_curve = (alone.xi, alone.omega, alone.alpha) if alone is not None and alone.has_parameters else None
    return PairGold(context, settled_change(labels, alone_curve, context, factor))  # type: ignore[arg-type]


def decided_pair_gold(annotations: Sequence[tuple[int | str, AnnotationContent]], n_tokens: int,
                      alone: Resolution, factor: float, *, context: Curve | None = None,
                      change: str = "", taken: AnnotationContent | None = None) -> PairGold:
    """The pair part of a lead's decision on ``alone`` (the target's resolution it stores): the
    second curve is ``context`` when the lead gave one, the taken annotation's (``taken``), or the
    mean of the annotators'; the change label is the lead's ``change`` when given, the taken
    annotation's own label, or the label the annotators settled on (a tie broken by the
    decided curves).

    Examples:
        >>> from annotation.review.resolution import take_version
        >>> kw = dict(xi=45.0, omega=10.0, alpha=0.0, context_omega=10.0, context_alpha=0.0)
        >>> a, b = AnnotationContent(context_xi=62.0, **kw), AnnotationContent(context_xi=46.0, **kw)
        >>> res = take_version(pair_version(2, b, 3, segmented=False))
        >>> decided_pair_gold([(1, a), (2, b)], 3, res, 1.5, taken=b)
        PairGold(context=(46.0, 10.0, 0.0), change='neutral', curves_change='')
        >>> decided_pair_gold([(1, a), (2, b)], 3, res, 1.5, context=(70.0, 9.0, 1.0), change="decreased")
        PairGold(context=(70.0, 9.0, 1.0), change='decreased', curves_change='')
    """
    if taken is not None:
        own = change_choice(taken, factor)
        return PairGold(parameters_of(taken.swapped_curves()) if context is None else context,
                        change or (own.label if own is not None else ""))
    auto = pair_gold(annotations, n_tokens, alone, factor)
    if context is None and not change:
        return auto
    context = auto.context if context is None else context
    labels = [c.label for c in (change_choice(x, factor) for _, x in annotations) if c is not None]
    alone_curve = (alone.xi, alone.omega, alone.alpha) if alone.has_parameters else None
    return PairGold(context, change or settled_change(labels, alone_curve, context, factor))  # type: ignore[arg-type]


def pair_flag_hits(annotations: Sequence[AnnotationContent], spread: ParameterSpread,
                   settings: ProjectSettings, names: Sequence[str] | None = None, *,
                   intended_change: str = "", settled: str = "") -> tuple[FlagHit, ...]:
    """The pair's own flags (module docstring) of a complete sample: ``annotations`` in submit
    order, ``names`` their annotators, ``intended_change`` the author's intent ("" for a pair
    nobody authored) and ``settled`` the change the gold would hold.

    Examples:
        >>> kw = dict(xi=45.0, omega=10.0, alpha=0.0, context_omega=10.0, context_alpha=0.0)
        >>> up = AnnotationContent(context_xi=52.0, **kw)
        >>> keep = AnnotationContent(context_xi=48.0, change="increased", **kw)
        >>> hits = pair_flag_hits([up, keep], ParameterSpread(None, None, None), ProjectSettings(protocol="pairs"),
        ...                       ["ann", "bob"], intended_change="decreased", settled="increased")
        >>> [h.code for h in hits]
        ['change_overridden', 'intent_differs']
        >>> hits[0].detail
        'bob chose increased where the curves give neutral'
    """
    names = list(names or [f"annotation {i + 1}" for i in range(len(annotations))])
    choices = [change_choice(a, settings.change_factor) for a in annotations]
    hits: list[FlagHit] = []
    given = [(i, c) for i, c in enumerate(choices) if c is not None]
    if len({c.label for _, c in given}) > 1:
        hits.append(FlagHit(CHANGE_DISAGREEMENT, "; ".join(f"{names[i]}: {c.label}" for i, c in given),
                            annotators=tuple(i for i, _ in given)))
    overrides = [(i, c) for i, c in given if c.overridden]
    if overrides:
        hits.append(FlagHit(CHANGE_OVERRIDDEN, "; ".join(
            f"{names[i]} chose {c.label} where the curves give {c.derived}" for i, c in overrides),
            annotators=tuple(i for i, _ in overrides)))
    if intended_change and settled and settled != intended_change:
        hits.append(FlagHit(INTENT_DIFFERS, f"the author meant {intended_change}; the annotators' "
                                            f"change is {settled}"))
    second = automatic_flags([None] * len(annotations),
                             [parameters_of(a.swapped_curves()) for a in annotations], spread,
                             pk_max=settings.flag_pk_max, sigma=settings.flag_sigma,
                             fixed_max=settings.deviation_max, w1_max=settings.flag_w1_max, names=names)
    hits += [FlagHit(GIVEN_CODES[h.code], "given the follow-up: " + h.detail, h.value, h.threshold, h.annotators)
             for h in second if h.code in GIVEN_CODES]
    return tuple(hits)


__all__ = ["ChangeChoice", "PairGold", "change_choice", "decided_pair_gold", "given_versions", "pair_flag_hits", "pair_gold",
           "pair_version", "settled_change"]
