"""What a lead records with a review decision, where gold came from, and how far apart a sample's
annotations are — the adjudication vocabulary shared by the review service, the Review page and
the export's provenance.

* **confidence** (1–5) and **error type** (:data:`ERROR_TYPES`): recorded with every decision,
  checked by :func:`decision_record_problem`;
* **decisions** (:data:`DECISIONS`): every name a lead's decision goes by — the service's, the
  Review page's option and history, the annotator's Feedback, the gold source and the export's;
* **resolution source** (:func:`resolution_source`): the stored gold's ``source`` as the export
  names it — automatic (the mean, settled or accepted), edited, taken (one annotator's version) or
  pooled (the refitted linear pool);
* **sample figures** (:func:`sample_figures`): W1 (worst pair of curves), Pk (worst pair of
  segmentations) and Jaccard (lowest pair of token-axis labellings) between a sample's
  annotations, for many samples at once (the review queue's sort, the export), from the figures
  of every pair (:func:`pair_figures`, whose per-sample curve means the export's card reuses).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from annotation.agreement.segment_agreement import pk_both_ways_many
from annotation.curves.distance import curve_distances
from annotation.content import AnnotationContent

#: The lead's confidence in a decision: 1 (a guess) … 5 (certain).
CONFIDENCE_LEVELS: tuple[int, ...] = (1, 2, 3, 4, 5)
#: Why the annotators disagreed (or what the lead found), code → label.
ERROR_TYPES: Mapping[str, str] = {
    "ambiguous_text": "Ambiguous text",
    "guideline_gap": "Guideline gap",
    "annotator_error": "Annotator error",
    "other": "Other",
}


@dataclass(frozen=True)
class Decision:
    """One decision a lead can make on a review case: every name it goes by, in one place.

    ``name`` is what the service takes and the history stores; ``choice`` and ``choice_label``
    are the Review page's option for it; ``done_label`` is how the case's history says it,
    ``annotator_words`` how an annotator's Feedback page says it beside the lead's note (None: not
    shown there); ``gold_source`` is the stored gold's ``source`` (None: no gold is stored) and
    ``export_value`` the resolution source the export names; ``needs`` is what the decision needs
    besides confidence and error type (``"note"``, ``"edit"`` or ``"annotation"``).
    """

    name: str
    choice: str
    choice_label: str
    done_label: str
    annotator_words: str | None
    gold_source: str | None
    export_value: str | None
    needs: str | None = None


#: The lead's decisions, in the Review page's order. Adding a decision is adding an entry here and
#: its handler in :mod:`annotation.services.review.review` (a test checks the two agree).
DECISIONS: tuple[Decision, ...] = (
    Decision("accept_auto", "accept", "Accept", "Accepted the automatic resolution",
             "accepted the automatic resolution", "accepted", "automatic"),
    Decision("accept_pooled", "pooled", "Accept pooled", "Accepted the pooled resolution",
             "pooled the curves", "pooled", "pooled"),
    Decision("take_version", "take", "Take a version", "Took one annotator's version",
             "chose the gold", "annotator", "taken", needs="annotation"),
    Decision("edit", "edit", "Edit", "Stored an edited resolution",
             "set the gold by hand", "edited", "edited", needs="edit"),
    Decision("send_back", "send_back", "Send back", "Sent back to the annotators",
             "sent the sample back", None, None, needs="note"),
    Decision("discard", "discard", "Discard", "Discarded the sample", None, None, None, needs="note"),
)
#: Decision name → its entry.
DECISION_BY_NAME: Mapping[str, Decision] = {d.name: d for d in DECISIONS}
#: Gold settled without a lead (the mean of agreeing annotations).
AUTO_SOURCE = "auto"
#: Stored gold ``source`` → the resolution source the export names.
RESOLUTION_SOURCES: Mapping[str, str] = {
    AUTO_SOURCE: "automatic",
    **{d.gold_source: d.export_value for d in DECISIONS if d.gold_source and d.export_value},
}


def decision_named(name: object) -> Decision | None:
    """The decision called ``name``, or None when there is none.

    Examples:
        >>> decision_named("take_version").gold_source, decision_named("take_version").export_value
        ('annotator', 'taken')
        >>> decision_named("approve") is None
        True
    """
    return DECISION_BY_NAME.get(name) if isinstance(name, str) else None


def decision_record_problem(confidence: object, error_type: object) -> str | None:
    """What is wrong with a decision's confidence and error type (a message for the lead), or
    None when both are good.

    Examples:
        >>> decision_record_problem(4, "guideline_gap") is None
        True
        >>> decision_record_problem(7, "other")
        'Choose a confidence from 1 to 5.'
        >>> decision_record_problem(3, "typo")
        'Choose an error type: ambiguous text, guideline gap, annotator error or other.'
    """
    if isinstance(confidence, bool) or not isinstance(confidence, int) or confidence not in CONFIDENCE_LEVELS:
        return "Choose a confidence from 1 to 5."
    if not isinstance(error_type, str) or error_type not in ERROR_TYPES:
        labels = [label.lower() for label in ERROR_TYPES.values()]
        return f"Choose an error type: {', '.join(labels[:-1])} or {labels[-1]}."
    return None


def resolution_source(gold_source: str) -> str:
    """The export's name for a stored gold ``source`` (the source itself when unknown, e.g. a
    warm-up gold, which is never exported).

    Examples:
        >>> resolution_source("annotator"), resolution_source("accepted")
        ('taken', 'automatic')
    """
    return RESOLUTION_SOURCES.get(gold_source, gold_source)


@dataclass(frozen=True)
class SampleFigures:
    """How far apart a sample's annotations are: ``w1`` the largest W1 between two curves
    (log-time units), ``pk`` the largest Pk between two segmentations, ``jaccard`` the lowest
    token-axis Jaccard of two labellings; None where fewer than two annotations have one."""

    w1: float | None = None
    pk: float | None = None
    jaccard: float | None = None


def sample_figures(samples: Sequence[tuple[int, Sequence[AnnotationContent]]]) -> list[SampleFigures]:
    """:class:`SampleFigures` of each ``(n_tokens, annotations)``, every pair of every sample
    computed at once (:func:`pair_figures`). An annotation without a curve is left out of W1,
    one with an unfinished segmentation out of Pk and Jaccard.

    Examples:
        >>> a = AnnotationContent(boundaries=(0, 2), segment_axes=("main", "static"),
        ...                       xi=50.0, omega=10.0, alpha=0.0)
        >>> b = AnnotationContent(boundaries=(0,), segment_axes=("main",),
        ...                       xi=62.0, omega=10.0, alpha=0.0)
        >>> f, = sample_figures([(4, [a, b])])
        >>> round(f.w1, 2), f.pk, round(f.jaccard, 4)      # 2 of 4 tokens agree: 2 / (8 − 2)
        (12.0, 1.0, 0.3333)
        >>> sample_figures([(4, [a])])
        [SampleFigures(w1=None, pk=None, jaccard=None)]
    """
    return pair_figures(samples).per_sample()


@dataclass(frozen=True, eq=False)
class PairFigures:
    """The figures of every pair of annotations of ``n_samples`` samples: per pair of curves its
    sample (``curve_of``), ``w1`` and ``overlap``; per pair of finished labellings its sample
    (``segment_of``), ``pk`` and ``jaccard`` (NaN where undefined)."""

    n_samples: int
    curve_of: np.ndarray
    w1: np.ndarray
    overlap: np.ndarray
    segment_of: np.ndarray
    pk: np.ndarray
    jaccard: np.ndarray

    def per_sample(self) -> list[SampleFigures]:
        """:class:`SampleFigures` of each sample: worst W1 and Pk, lowest Jaccard."""
        curve_of, segment_of = self.curve_of.tolist(), self.segment_of.tolist()
        worst_w1 = _by_sample(curve_of, self.w1.tolist(), max)
        worst_pk = _by_sample(segment_of, self.pk.tolist(), max)
        lowest_j = _by_sample(segment_of, self.jaccard.tolist(), min)
        return [SampleFigures(worst_w1.get(i), worst_pk.get(i), lowest_j.get(i)) for i in range(self.n_samples)]

    def curve_means(self) -> tuple[np.ndarray, np.ndarray]:
        """Per sample, the mean W1 and mean overlap over its pairs of curves with a defined W1
        (NaN where none) — the agreement report's per-sample curve figures
        (:func:`annotation.agreement.tables.pairwise_curve_distances`), so a caller that has
        the pairs need not compute them again.

        Examples:
            >>> c = lambda xi: AnnotationContent(xi=xi, omega=10.0, alpha=0.0)
            >>> w1, overlap = pair_figures([(4, [c(50.0), c(54.0), c(60.0)]), (4, [c(50.0)])]).curve_means()
            >>> round(float(w1[0]), 4), bool(np.isnan(w1[1]))        # pairs 4, 10 and 6
            (6.6667, True)
        """
        ok = np.isfinite(self.w1)
        rows = self.curve_of[ok]
        count = np.bincount(rows, minlength=self.n_samples)
        with np.errstate(invalid="ignore", divide="ignore"):
            used = count > 0
            return (np.where(used, np.bincount(rows, weights=self.w1[ok], minlength=self.n_samples)
                             / np.maximum(count, 1), math.nan),
                    np.where(used, np.bincount(rows, weights=self.overlap[ok], minlength=self.n_samples)
                             / np.maximum(count, 1), math.nan))


def pair_figures(samples: Sequence[tuple[int, Sequence[AnnotationContent]]]) -> PairFigures:
    """:class:`PairFigures` of each ``(n_tokens, annotations)``: W1 and overlap by
    :func:`annotation.curves.distance.curve_distances`, Pk by
    :func:`annotation.agreement.segment_agreement.pk_both_ways_many`, for every pair of every
    sample at once (pairs in annotation order).

    Examples:
        >>> a = AnnotationContent(boundaries=(0, 2), segment_axes=("main", "static"),
        ...                       xi=50.0, omega=10.0, alpha=0.0)
        >>> b = AnnotationContent(boundaries=(0,), segment_axes=("main",),
        ...                       xi=62.0, omega=10.0, alpha=0.0)
        >>> f = pair_figures([(4, [a, b, a])])       # k = 3: three pairs of each kind
        >>> f.curve_of.tolist(), [round(float(w), 2) for w in f.w1], f.pk.tolist()
        ([0, 0, 0], [12.0, 0.0, 12.0], [1.0, 0.0, 1.0])
    """
    curve_a, curve_b, curve_of = [], [], []
    seg_n, seg_a, seg_b, label_j, seg_of = [], [], [], [], []
    for index, (n_tokens, versions) in enumerate(samples):
        curves = [(a.xi, a.omega, a.alpha) for a in versions if a.has_parameters]
        for p, q in itertools.combinations(curves, 2):
            curve_a.append(p), curve_b.append(q), curve_of.append(index)
        labelled = [a for a in versions if _finished(a, n_tokens)]
        for p, q in itertools.combinations(labelled, 2):
            seg_n.append(n_tokens), seg_a.append(tuple(p.boundaries)), seg_b.append(tuple(q.boundaries))
            label_j.append(_jaccard(p, q, n_tokens)), seg_of.append(index)
    w1, overlap, _ = curve_distances(np.array(curve_a), np.array(curve_b)) if curve_a else (np.array([]),) * 3
    pk = pk_both_ways_many(seg_n, seg_a, seg_b) if seg_n else np.array([])
    return PairFigures(len(samples), np.asarray(curve_of, dtype=np.int64), w1, overlap,
                       np.asarray(seg_of, dtype=np.int64), pk, np.asarray(label_j, dtype=float))


def _finished(a: AnnotationContent, n_tokens: int) -> bool:
    boundaries = tuple(a.boundaries)
    return (bool(boundaries) and boundaries[0] == 0 and len(a.segment_axes) == len(boundaries)
            and None not in a.segment_axes and all(x < y for x, y in zip(boundaries, boundaries[1:]))
            and boundaries[-1] < n_tokens)


def _jaccard(a: AnnotationContent, b: AnnotationContent, n_tokens: int) -> float:
    """Jaccard of the two (token, axis) sets, ``same / (2n − same)`` with ``same`` the tokens
    given the same axis, walked segment by segment (no per-token arrays: an export reads every
    sample)."""
    ends_a, ends_b = (*a.boundaries[1:], n_tokens), (*b.boundaries[1:], n_tokens)
    i = j = start = same = 0
    while start < n_tokens:
        end = min(ends_a[i], ends_b[j])
        if a.segment_axes[i] == b.segment_axes[j]:
            same += end - start
        start = end
        i += ends_a[i] == end
        j += ends_b[j] == end
    return same / (2 * n_tokens - same)


def _by_sample(sample_of: Sequence[int], values, pick) -> dict[int, float]:  # type: ignore[no-untyped-def]
    """``pick`` (max or min) of the finite values of each sample."""
    out: dict[int, float] = {}
    for index, value in zip(sample_of, values):
        value = float(value)
        if math.isfinite(value):
            out[index] = pick(out[index], value) if index in out else value
    return out


__all__ = ["AUTO_SOURCE", "CONFIDENCE_LEVELS", "DECISIONS", "DECISION_BY_NAME", "ERROR_TYPES", "RESOLUTION_SOURCES",
           "Decision", "PairFigures", "SampleFigures", "decision_named", "decision_record_problem", "pair_figures", "resolution_source", "sample_figures"]
