"""The change label of a pair, derived from its two curves.

The follow-up *decreases*, *keeps* or *increases* how long the target stays valid. With curves
instead of classes the question becomes: how far does the half-gone time move? Let ``h₀`` be the
half-gone time of the target alone and ``h₁`` that of the target given the follow-up (base-1.1
log minutes, :func:`annotation.curves.half_gone.half_gone_x`). The follow-up makes the target
valid ``1.1 ** (h₁ − h₀)`` times as long. Against the project's threshold factor ``f`` (> 1; e.g.
×1.5): a factor of at least ``f`` is *increased*, at most ``1/f`` *decreased*, anything between
*neutral*. A curve still more than half valid at the chart's end has no finite half-gone time: two
such curves are *neutral*; one such curve against a finite one moved past every threshold.

The labels and their indices are the TVCP release's (its dataset reader's ``label_map``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# the labels by their index in the release (decreased 0, neutral 1, increased 2): the shared vocabulary's
from annotation.content import CHANGE_LABELS
from annotation.curves.half_gone import half_gone_x
from annotation.pairs.duration_classes import DurationClass, class_of_curve
from annotation.timeaxis import DEFAULT_BASE

#: The threshold factor a new pairs project starts with, and the range a project may choose.
DEFAULT_CHANGE_FACTOR = 1.5
MIN_CHANGE_FACTOR = 1.05
MAX_CHANGE_FACTOR = 100.0

Curve = tuple[float, float, float]


def change_index(label: str) -> int:
    """The release's index of a change label; ValueError names the allowed labels.

    Examples:
        >>> [change_index(label) for label in CHANGE_LABELS]
        [0, 1, 2]
    """
    if label not in CHANGE_LABELS:
        raise ValueError(f"the change must be one of: {', '.join(CHANGE_LABELS)}")
    return CHANGE_LABELS.index(label)


def check_change_factor(factor: float) -> float:
    """``factor`` as a float when a project may use it as its threshold; ValueError otherwise.

    Examples:
        >>> check_change_factor(2)
        2.0
        >>> check_change_factor(1.0)
        Traceback (most recent call last):
        ValueError: the change threshold must be a time factor from ×1.05 to ×100
    """
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not math.isfinite(factor) \
            or not MIN_CHANGE_FACTOR <= factor <= MAX_CHANGE_FACTOR:
        raise ValueError(f"the change threshold must be a time factor from ×{MIN_CHANGE_FACTOR:g} "
                         f"to ×{MAX_CHANGE_FACTOR:g}")
    return float(factor)


@dataclass(frozen=True)
class ChangeReading:
    """What the two curves of a pair say: the derived ``label``, the time ``factor`` (None when
    neither curve is half gone on the chart, ``inf``/0 when only one is), the words shown to the
    annotator, and each curve's TVCP duration class."""

    label: str
    factor: float | None
    words: str
    alone_class: DurationClass
    given_class: DurationClass


def factor_text(factor: float) -> str:
    """A time factor as people say it: ``×3``, ``×1.2``, ``×40``.

    Examples:
        >>> [factor_text(f) for f in (3.04, 1.24, 1.0, 39.6, 12500.0)]
        ['×3', '×1.2', '×1', '×40', '×12,500']
    """
    if factor < 10:
        return "×" + f"{factor:.1f}".rstrip("0").rstrip(".")
    rounded = float(f"{factor:.2g}") if factor < 100 else round(factor, -int(math.log10(factor)) + 2)
    return f"×{int(rounded):,}"


def derived_change(alone_x: float, given_x: float, factor: float) -> tuple[str, float | None]:
    """The change label and the time factor for half-gone positions ``alone_x`` and ``given_x``
    (base-1.1 log minutes; ``inf``: still more than half valid at the chart's end).

    Examples:
        >>> derived_change(60.0, 60.0 + math.log(3) / math.log(1.1), 1.5)[0]
        'increased'
        >>> derived_change(60.0, 60.0 - math.log(1.5) / math.log(1.1), 1.5)[0]   # exactly 1/f
        'decreased'
        >>> derived_change(60.0, 62.0, 1.5)     # ×1.21: within the threshold
        ('neutral', 1.21)
        >>> derived_change(math.inf, math.inf, 1.5), derived_change(60.0, math.inf, 1.5)
        (('neutral', None), ('increased', inf))
    """
    check_change_factor(factor)
    if math.isnan(alone_x) or math.isnan(given_x):
        raise ValueError("a half-gone time is not a number")
    if math.isinf(alone_x) and math.isinf(given_x):
        return "neutral", None
    if math.isinf(given_x):
        return "increased", math.inf
    if math.isinf(alone_x):
        return "decreased", 0.0
    shift = given_x - alone_x
    threshold = math.log(factor) / math.log(DEFAULT_BASE)
    # a factor that is exactly the threshold counts as reaching it (rounding must not decide)
    tolerance = 1e-9
    if shift >= threshold - tolerance:
        label = "increased"
    elif shift <= -threshold + tolerance:
        label = "decreased"
    else:
        label = "neutral"
    return label, round(DEFAULT_BASE ** shift, 12)


def change_words(label: str, factor: float | None, threshold: float) -> str:
    """The derived change in the annotator's words.

    Examples:
        >>> change_words("increased", 3.04, 1.5)
        'The follow-up makes it valid ≈ ×3 longer: increased.'
        >>> change_words("decreased", 0.25, 1.5)
        'The follow-up makes it valid ≈ ×4 shorter: decreased.'
        >>> change_words("neutral", 1.21, 1.5)
        'The follow-up keeps it valid about as long (≈ ×1.2 longer, within ×1.5): neutral.'
        >>> change_words("neutral", 0.97, 1.5)      # ×1.03 shorter reads ×1: no way to speak of
        'The follow-up keeps it valid about as long (about the same, within ×1.5): neutral.'
    """
    if factor is None:
        return ("Both curves are still more than half valid at the chart's end: "
                f"{label}.")
    if math.isinf(factor):
        return f"The follow-up makes it more than half valid to the chart's end: {label}."
    if factor == 0.0:
        return f"The follow-up ends what stayed valid to the chart's end: {label}."
    way = "longer" if factor >= 1 else "shorter"
    size = factor_text(factor if factor >= 1 else 1 / factor)
    if label == "neutral":
        # a factor that rounds to ×1 is neither longer nor shorter ("≈ ×1 shorter" read as a change)
        shift = "about the same" if size == "×1" else f"≈ {size} {way}"
        return f"The follow-up keeps it valid about as long ({shift}, within {factor_text(threshold)}): neutral."
    return f"The follow-up makes it valid ≈ {size} {way}: {label}."


def read_change(alone: Curve, given: Curve, factor: float) -> ChangeReading:
    """Both curves of a pair read against the threshold ``factor``.

    Examples:
        >>> r = read_change((45.0, 10.0, 0.0), (45.0 + 11.53, 10.0, 0.0), 1.5)
        >>> r.label, r.words
        ('increased', 'The follow-up makes it valid ≈ ×3 longer: increased.')
        >>> r.alone_class.name, r.given_class.name
        ('2–6 hours', 'more than 6 hours')
    """
    xs = half_gone_x(np.array([alone, given], dtype=float))
    label, time_factor = derived_change(float(xs[0]), float(xs[1]), factor)
    return ChangeReading(label, time_factor, change_words(label, time_factor, factor),
                         class_of_curve(*alone), class_of_curve(*given))


__all__ = ["CHANGE_LABELS", "ChangeReading", "DEFAULT_CHANGE_FACTOR", "MAX_CHANGE_FACTOR",
           "MIN_CHANGE_FACTOR", "change_index", "change_words", "check_change_factor",
           "derived_change", "factor_text", "read_change"]
