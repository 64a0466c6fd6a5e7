"""Sample flags: why a sample goes to a lead (SPEC section 5) — the rules and their hits.

Two kinds of flag share one vocabulary, :mod:`annotation.flag_reasons` (codes, labels, which
need a note):

* **annotator flags** (SPEC section 3) — the reasons an annotator can give instead of finishing a
  sample, collected here as hits (:func:`annotator_flag_hits`);
* **automatic flags** — computed here once at least two annotations of a sample are in
  (:func:`automatic_flags`):

  - ``segmentation_mismatch``: two annotations have different boundaries;
  - ``pk_above_threshold``: Pk between two segmentations, computed both ways and averaged (neither
    annotator is the reference), is greater than ``settings.flag_pk_max`` (default 0.2);
  - ``xi_deviation`` / ``omega_deviation`` / ``alpha_deviation``: ``|p_A − p_B| > flag_sigma · SD``
    where SD is the sample standard deviation (ddof = 1) of that parameter over all submitted
    annotations of the project (default ``flag_sigma`` = 2) — once that SD rests on 30
    annotations and varies; below, the project's fixed threshold (``flag_xi_max``,
    ``flag_omega_max``, ``flag_alpha_max``), and the detail says which rule fired
    (:mod:`annotation.review.deviation`). Differences under :data:`PARAMETER_TOLERANCE` (fitting
    noise) never flag.

  - ``curve_distance``: the Wasserstein-1 distance between two annotators' normalised curves on
    the log-time axis (:func:`annotation.curves.distance.curve_distances`) is greater than
    ``settings.flag_w1_max`` (default 12 units, a curve ≈ ×3.1 later in time); the detail reads
    as a lead would say it ("curves ≈ ×3.4 apart (W1 12.9 > 12.0): bob's sits later").

  With k > 2 annotations every pair is compared and a rule fires when any pair breaches it; the
  hit reports the worst pair. Comparisons are strict (a value exactly at its threshold does not
  flag), as the SPEC writes them ("Pk > 0.2", "larger than 2σ").

Pk is the window-based error probability of Beeferman, Berger & Lafferty (1999), "Statistical
models for text segmentation", Machine Learning 34:177-210, computed by ``segeval.pk`` on segment
masses with its default window (half the mean reference segment length, at least 2).

Everything here is pure: data in, data out. The thresholds come from
:class:`annotation.settings.ProjectSettings`, so the service can recompute the flags of every
sample whenever the settings change.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from annotation.agreement import pk_both_ways
from annotation.curves.distance import curve_distances
from annotation.flag_reasons import (
    ANNOTATOR_FLAG_CODES,
    CURVE_DISTANCE,
    DEVIATION_CODES,
    PARAMETERS,
    PK_ABOVE_THRESHOLD,
    SEGMENTATION_MISMATCH,
    flag_label,
    is_automatic_flag,
)
from annotation.review.deviation import (
    PARAMETER_TOLERANCE,
    ParameterSpread,
    deviation_threshold,
)
from annotation.review.pair_figures import PairFigures, parameters_of, usable_segmentations
from annotation.parameters import PARAMETER_SYMBOLS
from annotation.content import AnnotationContent
from annotation.segmentation import Segmentation
from annotation.settings import ProjectSettings
from annotation.timeaxis import DEFAULT_BASE
from annotation.wording import numbered


T = TypeVar("T")
#: One annotation's fitted (ξ, ω, α), or None when it has no curve (flagged unfinished).
ParameterTriple = tuple[float, float, float]


# --- results ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FlagHit:
    """One reason a given sample is flagged.

    ``annotators`` are 0-based positions in the list of the sample's annotations given to the
    function (for a pair rule: the worst pair; for an annotator flag: who raised it). For the
    automatic rules ``value`` is the measured quantity and ``threshold`` the limit it exceeded
    (number of boundaries not shared, Pk, or ``|Δp|`` in the parameter's units); both are None
    for annotator flags. ``detail`` is a one-line text for the lead's display.
    """

    code: str
    detail: str = ""
    value: float | None = None
    threshold: float | None = None
    annotators: tuple[int, ...] = ()

    @property
    def label(self) -> str:
        return flag_label(self.code)

    @property
    def automatic(self) -> bool:
        return is_automatic_flag(self.code)


# --- the automatic rules ------------------------------------------------------------------------


def automatic_flags(
    boundaries_list: Sequence[Segmentation | Sequence[int] | None],
    params_list: Sequence[ParameterTriple | None],
    spread: ParameterSpread,
    *,
    pk_max: float,
    sigma: float,
    fixed_max: Mapping[str, float] | None = None,
    n_tokens: int | None = None,
    w1_max: float | None = None,
    names: Sequence[str] | None = None,
    known: Mapping[tuple[int, int], PairFigures] | None = None,
) -> tuple[FlagHit, ...]:
    """The automatic flags of one sample from its annotations (SPEC section 5).

    ``boundaries_list[i]`` is annotation i's segmentation — a :class:`Segmentation`, or its
    start indices when ``n_tokens`` is given — or None to leave it out of the segmentation rules.
    ``params_list[i]`` is its ``(ξ, ω, α)`` or None (no curve: left out of the parameter rules).
    Both lists are in the same annotation order. ``spread`` holds the project-wide SDs,
    ``pk_max`` the Pk threshold and ``sigma`` the number of SDs; ``fixed_max`` each parameter's
    fixed threshold while its SD is too thin to use (the settings' defaults when None:
    :attr:`annotation.settings.ProjectSettings.deviation_max`); ``w1_max`` the curve-distance
    threshold (None: the rule is off) and ``names`` the annotators' names for its detail
    ("annotation 1", … when None). ``known``: each pair's figures when the caller computed many
    samples' pairs at once (:func:`annotation.review.pair_figures.pair_figures`), else they are computed here.

    Every pair of annotations is compared; a rule fires when any pair breaches it (strictly
    above its threshold) and yields one :class:`FlagHit` describing the worst pair (the first
    such pair in index order on ties). Hits come in
    :data:`~annotation.flag_reasons.AUTOMATIC_FLAG_CODES` order. Fewer than two usable
    annotations for a rule means that rule cannot fire.
    """
    if len(boundaries_list) != len(params_list):
        raise ValueError(
            f"{len(boundaries_list)} segmentations but {len(params_list)} parameter sets: "
            "give one of each per annotation (None where missing)"
        )
    segs = [_as_segmentation(s, n_tokens) for s in boundaries_list]
    sizes = {s.n_tokens for s in segs if s is not None}
    if len(sizes) > 1:
        raise ValueError(f"the segmentations cover texts of different lengths: {sorted(sizes)} tokens")

    hits: list[FlagHit] = []
    seg_pairs = [(i, j) for i, j in itertools.combinations(range(len(segs)), 2)
                 if segs[i] is not None and segs[j] is not None]

    # Segmentation mismatch: value = boundaries not shared by the pair.
    worst = _worst(
        ((i, j), float(len(set(segs[i].boundaries) ^ set(segs[j].boundaries))))
        for i, j in seg_pairs
    )
    if worst is not None and worst[1] > 0:
        (i, j), n_diff = worst
        differing = sorted(set(segs[i].boundaries) ^ set(segs[j].boundaries))
        hits.append(FlagHit(
            SEGMENTATION_MISMATCH,
            f"annotations {i + 1} and {j + 1} differ in {int(n_diff)} boundar"
            f"{'y' if n_diff == 1 else 'ies'} (before {numbered('token', [b + 1 for b in differing])})",
            n_diff, 0.0, (i, j),
        ))

    # Pk above threshold.
    worst = _worst(((i, j), known[(i, j)].pk if known is not None else pk_both_ways(segs[i], segs[j]))
                   for i, j in seg_pairs)
    if worst is not None and worst[1] > pk_max:
        (i, j), pk = worst
        hits.append(FlagHit(
            PK_ABOVE_THRESHOLD,
            f"Pk {pk:.3f} > {pk_max:.3f} between annotations {i + 1} and {j + 1}",
            pk, float(pk_max), (i, j),
        ))

    # Parameter deviations.
    params = [None if p is None else tuple(float(v) for v in p) for p in params_list]
    for p in params:
        if p is not None and (len(p) != 3 or not all(math.isfinite(v) for v in p)):
            raise ValueError("each parameter set must be three finite numbers (ξ, ω, α)")
    par_pairs = [(i, j) for i, j in itertools.combinations(range(len(params)), 2)
                 if params[i] is not None and params[j] is not None]
    fixed_max = ProjectSettings().deviation_max if fixed_max is None else fixed_max
    for k, name in enumerate(PARAMETERS):
        threshold = deviation_threshold(spread, name, sigma, fixed_max[name])
        worst = _worst(((i, j), abs(params[i][k] - params[j][k])) for i, j in par_pairs)
        if worst is not None and worst[1] > threshold.limit + PARAMETER_TOLERANCE:
            (i, j), delta = worst
            hits.append(FlagHit(
                DEVIATION_CODES[name],
                f"|Δ{PARAMETER_SYMBOLS[name]}| = {delta:.2f} > {threshold.words} "
                f"between annotations {i + 1} and {j + 1}",
                delta, threshold.limit, (i, j),
            ))

    if w1_max is not None:
        hit = _curve_distance_hit(params, par_pairs, w1_max, names, known)
        if hit is not None:
            hits.append(hit)
    return tuple(hits)


def _curve_distance_hit(params: Sequence[ParameterTriple | None], pairs: Sequence[tuple[int, int]],
                        w1_max: float, names: Sequence[str] | None,
                        known: Mapping[tuple[int, int], PairFigures] | None = None) -> FlagHit | None:
    """The curve-distance hit of the worst pair (W1 of every pair at once, or ``known``), or
    None when no pair is more than ``w1_max`` apart. A pair with a curve off the axis has no W1."""
    if not pairs:
        return None
    if known is not None:
        w1 = np.array([known[p].w1 for p in pairs])
        shift = np.array([known[p].shift for p in pairs])
    else:
        a = np.array([params[i] for i, _ in pairs], dtype=float)
        b = np.array([params[j] for _, j in pairs], dtype=float)
        w1, _, shift = curve_distances(a, b)
    worst = _worst((pair, float(d)) for pair, d in zip(pairs, w1) if math.isfinite(d))
    if worst is None or not worst[1] > w1_max:
        return None
    (i, j), distance = worst
    return FlagHit(CURVE_DISTANCE, curve_distance_words(distance, float(shift[pairs.index((i, j))]),
                                                        _name(names, i), _name(names, j), w1_max),
                   distance, float(w1_max), (i, j))


def curve_distance_words(w1: float, shift: float, first: str, second: str,
                         w1_max: float | None = None) -> str:
    """Two curves' distance as a lead reads it: the time factor ``1.1 ** w1``, W1 (against the
    threshold when given) and which curve sits later (``shift``: the second's mean minus the
    first's); a difference mostly in width or skew says so.

    Examples:
        >>> curve_distance_words(12.84, 12.5, "ann", "bob", 12.0)
        "curves ≈ ×3.4 apart (W1 12.8 > 12.0): bob's sits later"
        >>> curve_distance_words(13.0, -1.0, "ann", "bob")
        'curves ≈ ×3.5 apart (W1 13.0): they differ in spread or skew, not in place'
    """
    limit = f" > {w1_max:.1f}" if w1_max is not None else ""
    if abs(shift) < w1 / 4:
        where = "they differ in spread or skew, not in place"
    else:
        where = f"{second if shift > 0 else first}'s sits later"
    return f"curves ≈ ×{DEFAULT_BASE ** w1:.1f} apart (W1 {w1:.1f}{limit}): {where}"


def _name(names: Sequence[str] | None, i: int) -> str:
    return names[i] if names is not None and i < len(names) else f"annotation {i + 1}"


def annotator_flag_hits(annotations: Sequence[AnnotationContent]) -> tuple[FlagHit, ...]:
    """The annotators' own flags on a sample, one hit per reason (in
    :data:`~annotation.flag_reasons.ANNOTATOR_FLAG_CODES` order, unknown codes after them),
    naming who raised it; ``detail`` carries their notes."""
    raisers: dict[str, list[int]] = {}
    for i, a in enumerate(annotations):
        for code in a.flags:
            raisers.setdefault(code, [])
            if i not in raisers[code]:
                raisers[code].append(i)
    order = [c for c in ANNOTATOR_FLAG_CODES if c in raisers]
    order += [c for c in raisers if c not in ANNOTATOR_FLAG_CODES]
    hits = []
    for code in order:
        who = tuple(raisers[code])
        notes = [annotations[i].note.strip() for i in who if annotations[i].note.strip()]
        hits.append(FlagHit(code, " | ".join(notes), annotators=who))
    return tuple(hits)


def flags_for_sample(
    annotations: Sequence[AnnotationContent],
    n_tokens: int,
    spread: ParameterSpread,
    settings: ProjectSettings | None = None,
    names: Sequence[str] | None = None,
    known: Mapping[tuple[int, int], PairFigures] | None = None,
) -> tuple[FlagHit, ...]:
    """Every flag of one sample: the annotators' reasons first, then the automatic rules.

    ``annotations`` are the sample's submitted annotations (any order; hits name them by
    position), ``n_tokens`` the length of its text in tokens, ``spread`` the project-wide SDs
    (:func:`parameter_spread`), ``settings`` the thresholds (``flag_pk_max``, ``flag_sigma``,
    the fixed ``flag_xi_max``/``flag_omega_max``/``flag_alpha_max``, ``flag_w1_max``; defaults
    when None), ``names`` the annotators' names in the same order (for
    the curve-distance detail), ``known`` the pairs' figures when already computed
    (:func:`annotation.review.pair_figures.pair_figures`). The automatic rules run only once two or more annotations are in. An
    annotation without parameters is left out of the deviation rules, and one with an unlabelled
    segment or boundaries that do not fit the text (an unfinished flagged draft) out of the
    segmentation rules.
    """
    settings = settings or ProjectSettings()
    hits = list(annotator_flag_hits(annotations))
    if len(annotations) >= 2:
        hits += automatic_flags(usable_segmentations(annotations, n_tokens),
                                [parameters_of(a) for a in annotations], spread,
                                pk_max=settings.flag_pk_max, sigma=settings.flag_sigma,
                                fixed_max=settings.deviation_max, w1_max=settings.flag_w1_max,
                                names=names, known=known)
    return tuple(hits)


def one_per_reason(entries: Iterable[T], code_of: Callable[[T], str]) -> tuple[T, ...]:
    """``entries`` (flag hits, or their stored details) with each reason once, the first of it
    kept, in order. A sample's reason is one fact, however many ways it was found: an
    annotator's flag raised at submit is also among the complete sample's flags.

    Examples:
        >>> hits = (FlagHit("not_present_tense", annotators=(1,)), FlagHit("segmentation_mismatch"),
        ...         FlagHit("not_present_tense", annotators=(1,)))
        >>> [h.code for h in one_per_reason(hits, lambda h: h.code)]
        ['not_present_tense', 'segmentation_mismatch']
    """
    seen: set[str] = set()
    kept = []
    for entry in entries:
        code = code_of(entry)
        if code not in seen:
            seen.add(code)
            kept.append(entry)
    return tuple(kept)


def _as_segmentation(item: Segmentation | Sequence[int] | None, n_tokens: int | None) -> Segmentation | None:
    if item is None or isinstance(item, Segmentation):
        return item
    if n_tokens is None:
        raise ValueError("give n_tokens when the segmentations are plain boundary lists")
    return Segmentation.from_boundaries(item, n_tokens)


def _worst(scored: Iterable[tuple[tuple[int, int], float]]) -> tuple[tuple[int, int], float] | None:
    """The pair with the largest score (the first one on ties), or None when there are none."""
    best = None
    for pair, score in scored:
        if best is None or score > best[1]:
            best = (pair, score)
    return best
