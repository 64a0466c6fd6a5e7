"""Ongoing gold checks: the rules, pure — data in, data out.

An admitted annotator's production queue now and then hands out a sample whose gold a lead
made (a *gold check*), looking exactly like production work. Three rules decide what happens:

* **When** (:func:`is_check_handout`): the annotator's hand-outs are numbered 1, 2, … and cut
  into blocks of ``L = ⌈1 / share⌉``; exactly one hand-out of each block, at a position drawn
  from a seed of (project, annotator, block), is a check. Reproducible, exactly one check per
  ``L`` hand-outs (the effective share is ``1 / L``: 0.1 → every 10th on average, 0.3 → 1 in
  4), and the annotator cannot count their way to the next one.
* **Pass** (:func:`check_passes`): over one check, the figures against gold — W1 between the
  two curves (log-time units, :func:`annotation.curves.curve_distance`), Jaccard of the
  (token, axis) labels (:func:`annotation.quality.qualification.gold_jaccard`: a gold segment may carry
  several axes; with one axis per segment it equals
  :func:`annotation.agreement.label_set_jaccard`) and Pk both ways
  (:func:`annotation.agreement.pk_both_ways`) — pass when **W1 ≤ flag_w1_max**, **Jaccard >
  qualify_jaccard_min** and **Pk < qualify_pk_max** (the rules warm-up qualification applies). W1 or Jaccard undefined (a check
  submitted flagged without a curve) fails; Pk undefined (a text too short for a Pk window)
  is not judged.
* **Pause** (:func:`pause_due`): once the annotator has at least ``gold_check_window`` judged
  checks since their last lift, the share passed among the latest ``window`` of them below
  ``gold_check_min_pass`` pauses them from production.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Sequence

from annotation.agreement import pk_both_ways
from annotation.agreement.verdict import JACCARD_RULE, PK_RULE, W1_RULE, judge
from annotation.curves import CurveFitError
from annotation.curves.distance import curve_distance
from annotation.quality.qualification import gold_jaccard
from annotation.review.resolution import Resolution
from annotation.segmentation import Segmentation, SegmentationError
from annotation.settings import ProjectSettings


@dataclass(frozen=True)
class CheckThresholds:
    """The figures a check must reach (``ProjectSettings``: ``flag_w1_max``,
    ``qualify_jaccard_min``, ``qualify_pk_max``) and the pause rule's window and share."""

    w1_max: float = ProjectSettings.flag_w1_max
    jaccard_min: float = ProjectSettings.qualify_jaccard_min
    pk_max: float = ProjectSettings.qualify_pk_max
    window: int = ProjectSettings.gold_check_window
    min_pass: float = ProjectSettings.gold_check_min_pass

    @classmethod
    def of(cls, settings: ProjectSettings) -> "CheckThresholds":
        return cls(settings.flag_w1_max, settings.qualify_jaccard_min, settings.qualify_pk_max,
                   settings.gold_check_window, settings.gold_check_min_pass)


@dataclass(frozen=True)
class CheckScores:
    """One check's figures against gold; None where undefined."""

    w1: float | None
    jaccard: float | None
    pk: float | None


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def score_check(gold: Resolution, boundaries: Sequence[int], segment_axes: Sequence[str | None],
                params: tuple[float | None, float | None, float | None]) -> CheckScores:
    """The figures of one annotation (``boundaries``, one axis or None per segment, ``params``
    ξ, ω, α or Nones) against ``gold``.

    Examples:
        >>> from annotation.review.resolution import EDITED
        >>> gold = Resolution((0, 3), (("main",), ("static",)), 50.0, 10.0, 0.0, (), 6, method=EDITED)
        >>> s = score_check(gold, (0, 3), ("main", "static"), (62.25, 10.0, 0.0))
        >>> round(s.w1, 4), s.jaccard, s.pk              # the curve 12.25 units later
        (12.25, 1.0, 0.0)
        >>> score_check(gold, (0,), ("main",), (None, None, None)).w1 is None
        True
    """
    try:
        jaccard = gold_jaccard(boundaries, segment_axes, gold)
        pk = pk_both_ways(Segmentation.from_boundaries(boundaries, gold.n_tokens), gold.segmentation)
    except SegmentationError:
        jaccard = pk = math.nan
    w1: float | None = None
    if None not in params and gold.has_parameters:
        try:
            w1 = curve_distance(tuple(float(p) for p in params),  # type: ignore[arg-type]
                                (float(gold.xi), float(gold.omega), float(gold.alpha))).w1  # type: ignore[arg-type]
        except CurveFitError:
            w1 = None
    return CheckScores(_finite(w1), _finite(jaccard), _finite(pk))


#: A check is judged by the rules qualification applies to the same thresholds (Jaccard above
#: its minimum, Pk below its maximum) and W1 at most the flag threshold (the flag fires above it),
#: through the one verdict function every threshold uses (:func:`annotation.agreement.judge`).
CHECK_JACCARD_RULE = JACCARD_RULE
CHECK_PK_RULE = PK_RULE


def check_passes(scores: CheckScores, thresholds: CheckThresholds) -> bool:
    """The pass rule of one check (module docstring).

    Examples:
        >>> t = CheckThresholds(w1_max=12.0, jaccard_min=0.75, pk_max=0.15)
        >>> check_passes(CheckScores(12.0, 0.8, 0.1), t)        # W1 at the flag threshold passes
        True
        >>> check_passes(CheckScores(3.0, 0.75, 0.1), t)        # Jaccard must be above 0.75
        False
        >>> check_passes(CheckScores(3.0, 0.8, 0.15), t)        # Pk must be below 0.15
        False
        >>> check_passes(CheckScores(12.01, 1.0, 0.0), t)       # curve too far from gold
        False
        >>> check_passes(CheckScores(None, 1.0, 0.0), t)        # no curve submitted
        False
        >>> check_passes(CheckScores(3.0, 0.9, None), t)        # Pk undefined: not judged
        True
    """
    return (judge(scores.w1, thresholds.w1_max, rule=W1_RULE).passes is True
            and judge(scores.jaccard, thresholds.jaccard_min, rule=CHECK_JACCARD_RULE).passes is True
            and (scores.pk is None or judge(scores.pk, thresholds.pk_max, rule=CHECK_PK_RULE).passes is True))


def block_length(share: float) -> int:
    """Hand-outs per check, ``⌈1 / share⌉`` (0 when checks are off).

    Examples:
        >>> [block_length(s) for s in (0.0, 0.1, 0.25, 0.3, 0.5)]
        [0, 10, 4, 4, 2]
    """
    if not share > 0:
        return 0
    return max(1, math.ceil(round(1.0 / share, 9)))


def _draw(seed: str, block: int, length: int) -> int:
    digest = hashlib.sha256(f"{seed}:{block}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % length


def is_check_handout(n: int, share: float, seed: str) -> bool:
    """Whether the annotator's ``n``-th hand-out (1-based) is a gold check (module docstring).

    Examples:
        >>> picks = [n for n in range(1, 41) if is_check_handout(n, 0.1, "7:3")]
        >>> len(picks), [((n - 1) // 10) for n in picks]     # one in each block of ten
        (4, [0, 1, 2, 3])
        >>> any(is_check_handout(n, 0.0, "7:3") for n in range(1, 100))
        False
    """
    length = block_length(share)
    if length == 0 or n < 1:
        return False
    block, position = divmod(n - 1, length)
    return position == _draw(seed, block, length)


def handout_seed(project_id: int, user_id: int) -> str:
    """The seed of one annotator's schedule in one project.

    Examples:
        >>> handout_seed(3, 17)
        '3:17'
    """
    return f"{project_id}:{user_id}"


def window_share(results: Sequence[bool], window: int) -> float | None:
    """Share passed among the latest ``window`` of ``results`` (oldest first); None while there
    are fewer than ``window``.

    Examples:
        >>> window_share([True, False, True], 2), window_share([True], 2)
        (0.5, None)
    """
    if window < 1 or len(results) < window:
        return None
    latest = results[-window:]
    return sum(1 for r in latest if r) / window


def pause_due(results: Sequence[bool], window: int, min_pass: float) -> bool:
    """The pause rule: a full window whose pass share is below ``min_pass``.

    Examples:
        >>> pause_due([True] * 5 + [False] * 5, 10, 0.6), pause_due([True] * 6 + [False] * 4, 10, 0.6)
        (True, False)
        >>> pause_due([False] * 9, 10, 0.6)      # not enough checks yet
        False
    """
    share = window_share(results, window)
    return share is not None and share < min_pass


__all__ = [
    "CheckScores",
    "CheckThresholds",
    "block_length",
    "check_passes",
    "handout_seed",
    "is_check_handout",
    "pause_due",
    "score_check",
    "window_share",
]
