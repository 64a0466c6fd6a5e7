"""Jaccard index of the annotators' (token, axis) label sets (SPEC section 6).

Consumes token axis labels: every token carries the axis of the segment it is in, so an
annotation of an n-token text is the set {(t, axis_t)} of n pairs. For two annotators A and B

    J(A, B) = |A ∩ B| / |A ∪ B| = s / (2n − s),   s = number of tokens given the same axis,

1 for identical labelling, 0 when no token agrees. Per sample the value is averaged over all
pairs of labelled ratings (k(k−1)/2 of them), then averaged over samples. **Per axis** the sets
are the tokens each annotator gave that axis, J_x = |T_A(x) ∩ T_B(x)| / |T_A(x) ∪ T_B(x)|,
averaged over the samples (and pairs) where either annotator used x.

Reference: Jaccard, P. (1912). The distribution of the flora in the alpine zone. New
Phytologist 11(2), 37–50.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np

from annotation.agreement.intervals import SumStatistic, mean_statistic
from annotation.agreement.measure import TabulatedMixin, json_ready, nan_mean, optional
from annotation.agreement.ratings import Consumes, RatedSample, Rating, TokenLabelPairs, token_axis_codes
from annotation.agreement.tables import Rows, SampleSet, group_means
from annotation.axes import AXIS_NAMES

_N_AXES = len(AXIS_NAMES)


def label_set_jaccard(a: Rating, b: Rating, n_tokens: int) -> float:
    """J of two ratings' (token, axis) sets over a text of ``n_tokens`` tokens.

    Examples:
        >>> from datetime import datetime
        >>> ann = Rating("ann", datetime(2026, 1, 5), (0,), ("main",))
        >>> bob = Rating("bob", datetime(2026, 1, 5), (0, 2), ("main", "static"))
        >>> round(label_set_jaccard(ann, bob, 4), 4)    # 2 of 4 tokens agree: 2 / (8 − 2)
        0.3333
    """
    ca, cb = token_axis_codes(a, n_tokens), token_axis_codes(b, n_tokens)
    same = int(np.count_nonzero(ca == cb))
    return same / (2 * n_tokens - same)


@dataclass(frozen=True)
class AxisJaccard:
    """Jaccard of the token sets labelled ``axis``, over the ``n_samples`` samples where either
    annotator used it (NaN when none did)."""

    axis: str
    mean: float
    n_samples: int


@dataclass(frozen=True)
class JaccardResult:
    """Mean per-sample Jaccard over ``n_samples`` samples (``n_pairs`` rating pairs) and per axis
    (:data:`annotation.axes.AXES` order)."""

    measure: ClassVar[str] = "jaccard"
    mean: float
    n_samples: int
    n_pairs: int
    per_axis: tuple[AxisJaccard, ...]

    def axis(self, name: str) -> AxisJaccard:
        for a in self.per_axis:
            if a.axis == name:
                return a
        raise KeyError(name)

    @property
    def headline(self) -> float:
        return self.mean

    def to_json(self) -> dict[str, Any]:
        return json_ready(
            {
                "measure": self.measure,
                "mean": self.mean,
                "n_samples": self.n_samples,
                "n_pairs": self.n_pairs,
                "per_axis": {a.axis: {"mean": a.mean, "n_samples": a.n_samples} for a in self.per_axis},
            }
        )


def _pair_jaccard(pairs: TokenLabelPairs) -> np.ndarray:
    """J of every rating pair: s / (2n − s)."""
    n = np.bincount(pairs.pair_of_token, minlength=pairs.n_pairs)
    same = np.bincount(pairs.pair_of_token, weights=pairs.first == pairs.second, minlength=pairs.n_pairs)
    return same / (2 * n - same)


def _mean_by_sample(values: np.ndarray, valid: np.ndarray, sample_of_pair: np.ndarray, n_samples: int) -> np.ndarray:
    """Per sample, the mean of ``values`` over its pairs where ``valid``; NaN where none."""
    total = np.bincount(sample_of_pair, weights=np.where(valid, values, 0.0), minlength=n_samples)
    count = np.bincount(sample_of_pair, weights=valid.astype(float), minlength=n_samples)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), math.nan)


def _axis_jaccard(pairs: TokenLabelPairs, n_samples: int) -> np.ndarray:
    """(n_samples, 8) per-sample per-axis Jaccard, NaN where neither annotator used the axis."""
    size = pairs.n_pairs * _N_AXES
    in_first = np.bincount(pairs.pair_of_token * _N_AXES + pairs.first, minlength=size)
    in_second = np.bincount(pairs.pair_of_token * _N_AXES + pairs.second, minlength=size)
    same = pairs.first == pairs.second
    both = np.bincount(pairs.pair_of_token[same] * _N_AXES + pairs.first[same], minlength=size)
    union = (in_first + in_second - both).reshape(-1, _N_AXES)
    both = both.reshape(-1, _N_AXES)
    used = union > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(used, both / np.maximum(union, 1), 0.0)
    out = np.full((n_samples, _N_AXES), math.nan)
    for x in range(_N_AXES):
        out[:, x] = _mean_by_sample(value[:, x], used[:, x], pairs.sample_of_pair, n_samples)
    return out


@dataclass(frozen=True)
class JaccardMeasure(TabulatedMixin):
    """Jaccard of (token, axis) label sets, per sample and per axis (see module docstring)."""

    name: ClassVar[str] = "jaccard"
    consumes: ClassVar[Consumes] = Consumes.TOKEN_AXIS_LABELS

    def tabulate(self, samples: SampleSet) -> Rows:
        """Per sample: ``jaccard`` (mean over its pairs), ``axes`` (per-axis Jaccard), ``n_pairs``."""
        pairs = samples.label_pairs
        values = _pair_jaccard(pairs)
        n = len(samples)
        return {
            "jaccard": _mean_by_sample(values, np.ones(values.shape, bool), pairs.sample_of_pair, n),
            "axes": _axis_jaccard(pairs, n),
            "n_pairs": np.bincount(pairs.sample_of_pair, minlength=n),
        }

    def result(self, rows: Rows, samples: Sequence[RatedSample]) -> JaccardResult:
        per_sample, axes = rows["jaccard"], rows["axes"]
        per_axis = tuple(
            AxisJaccard(name, nan_mean(axes[:, x]), int(np.isfinite(axes[:, x]).sum()))
            for x, name in enumerate(AXIS_NAMES)
        )
        return JaccardResult(
            mean=nan_mean(per_sample),
            n_samples=int(np.isfinite(per_sample).sum()),
            n_pairs=int(rows["n_pairs"].sum()),
            per_axis=per_axis,
        )

    def figures(self, rows: Rows, labels: np.ndarray, n_groups: int) -> list[dict[str, float | None]]:
        """``jaccard``: mean per-sample Jaccard of each group."""
        return [{"jaccard": optional(v)} for v in group_means(rows["jaccard"], labels, n_groups)]

    def columns(self, rows: Rows) -> dict[str, np.ndarray]:
        """``jaccard`` of each sample (mean over its rating pairs)."""
        return {"jaccard": rows["jaccard"]}

    def statistics(self, rows: Rows) -> dict[str, SumStatistic]:
        return {"jaccard": mean_statistic(rows["jaccard"])}


__all__ = ["AxisJaccard", "JaccardMeasure", "JaccardResult", "label_set_jaccard"]
