"""The trivial references every baseline is read beside, whether a model beats them, and whether
a test split can rank models at all (SPEC section 14).

**References.** Two predictions that use no text at all, scored exactly as the models are:

* ``reference_mean`` — the training split's mean curve (mean ξ, ω, α) for every test sample;
* ``reference_axis_mean`` — per axis: for each axis, the mean curve of the training samples
  that use it; a test sample gets the mean of those curves over the axes it uses (the training
  mean when it uses none, or only axes no training sample uses). It knows which temporal axes a
  text carries — what the annotators' labels say — and nothing else.

A model that does not beat them has learnt nothing the labels' averages do not already hold.

**Beating a reference** is decided on an interval, never on the point: the difference of the
mean squared errors (z-scored targets, averaged over ξ, ω, α, as the MSE column) between the
model and the reference on the *same* test samples, with a seeded percentile bootstrap over the
samples (:func:`compare_mse`). The model beats the reference when the whole 95 % interval of the
difference lies below 0, is worse when it lies above, and is not told apart otherwise; with fewer
than 10 test samples there is no interval and no verdict.

**Ranking** needs :data:`annotation.publishable.NEEDS` ``["test_metric"]``: at least 30 test
samples. Below, models are not ranked and :func:`ranking_withheld` says why and how many gold
samples the export would need.

Examples:
    >>> train = np.array([[40.0, 10.0, 0.0], [60.0, 12.0, 1.0], [80.0, 14.0, 2.0]])
    >>> axes = [("a", "", "b"), ("a", "", ""), ("", "c", "")]
    >>> refs = reference_predictions(train, axes, [("a", "", ""), ("", "", "")])
    >>> refs["reference_mean"].tolist()
    [[60.0, 12.0, 1.0], [60.0, 12.0, 1.0]]
    >>> refs["reference_axis_mean"][0].tolist()       # the mean of the two samples using axis 0
    [50.0, 11.0, 0.5]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from annotation.agreement.intervals import DEFAULT_SEED, default_resamples, resample_counts
from annotation.publishable import NEEDS, units_needed

#: the reference rows, in table order
REFERENCE_MODELS: tuple[str, ...] = ("reference_mean", "reference_axis_mean")
#: how a page and the command line name them
REFERENCE_LABELS: Mapping[str, str] = {"reference_mean": "Reference: training mean curve",
                                       "reference_axis_mean": "Reference: per-axis mean"}
#: fewest test samples a comparison's interval is given for
MIN_COMPARE_SAMPLES = 10
#: the verdicts of :func:`compare_mse`
BEATS, WORSE, TIED, UNDECIDED = "beats", "worse", "tied", "undecided"


def reference_predictions(train: np.ndarray, train_axes: Sequence[Sequence[str]],
                          test_axes: Sequence[Sequence[str]]) -> dict[str, np.ndarray]:
    """The two references' predictions (module docstring) for the test samples, ``(n, 3)`` each
    in the units of ``train`` (the training split's targets; the axes are each sample's axis
    texts, "" for an axis it does not use).

    Examples:
        >>> train = np.array([[10.0, 1.0, 0.0], [30.0, 3.0, 2.0]])
        >>> reference_predictions(train, [("x", ""), ("", "y")], [("x", "y")])["reference_axis_mean"].tolist()
        [[20.0, 2.0, 1.0]]
    """
    t = np.asarray(train, dtype=np.float64)
    if t.ndim != 2 or t.shape[0] == 0 or len(train_axes) != t.shape[0]:
        raise ValueError(f"training targets (n>0, k) with one axis tuple each, got {t.shape} and {len(train_axes)}")
    mean = t.mean(axis=0)
    used = np.array([[bool(text) for text in axes] for axes in train_axes], dtype=bool)
    axis_means: dict[int, np.ndarray] = {}
    for j in range(used.shape[1]):
        if used[:, j].any():
            axis_means[j] = t[used[:, j]].mean(axis=0)
    per_axis = []
    for axes in test_axes:
        means = [axis_means[j] for j, text in enumerate(axes) if text and j in axis_means]
        per_axis.append(np.mean(means, axis=0) if means else mean)
    n = len(test_axes)
    return {"reference_mean": np.tile(mean, (n, 1)),
            "reference_axis_mean": np.array(per_axis, dtype=np.float64).reshape(n, t.shape[1])}


@dataclass(frozen=True)
class Comparison:
    """A model's MSE against a reference's on the same test samples: ``difference`` = MSE(model)
    − MSE(reference) (z-scores, mean over the parameters), its bootstrap interval and the
    verdict (:data:`BEATS`, :data:`WORSE`, :data:`TIED` or :data:`UNDECIDED`)."""

    reference: str
    difference: float
    low: float
    high: float
    verdict: str
    n: int

    def words(self) -> str:
        """The verdict in a table cell's words.

        >>> Comparison("reference_mean", -0.2, -0.3, -0.1, BEATS, 40).words()
        'beats the training mean curve (ΔMSE −0.200 [−0.300, −0.100])'
        >>> Comparison("reference_mean", 0.1, math.nan, math.nan, UNDECIDED, 3).words()
        'not compared: needs ≥ 10 test samples (3)'
        """
        name = REFERENCE_LABELS.get(self.reference, self.reference).removeprefix("Reference: ")
        if self.verdict == UNDECIDED:
            return f"not compared: needs ≥ {MIN_COMPARE_SAMPLES} test samples ({self.n})"
        delta = f"ΔMSE {_signed(self.difference)} [{_signed(self.low)}, {_signed(self.high)}]"
        head = {BEATS: "beats", WORSE: "worse than", TIED: "not told apart from"}[self.verdict]
        return f"{head} the {name} ({delta})"

    def to_dict(self) -> dict[str, Any]:
        return {"reference": self.reference, "difference": _finite(self.difference), "low": _finite(self.low),
                "high": _finite(self.high), "verdict": self.verdict, "n": self.n}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Comparison":
        def number(key: str) -> float:
            value = data.get(key)
            return math.nan if value is None else float(value)
        return cls(str(data.get("reference", "")), number("difference"), number("low"), number("high"),
                   str(data.get("verdict", UNDECIDED)), int(data.get("n") or 0))


def _signed(value: float) -> str:
    return f"{value:.3f}".replace("-", "−")


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def compare_mse(z_true: np.ndarray, z_model: np.ndarray, z_reference: np.ndarray, *, reference: str,
                resamples: int | None = None, seed: int = DEFAULT_SEED, confidence: float = 0.95) -> Comparison:
    """Whether the model's predictions beat the reference's on these test samples (module
    docstring). All three arrays ``(n, k)`` on z-scores.

    Examples:
        >>> rng = np.random.default_rng(1)
        >>> truth = rng.normal(size=(40, 3))
        >>> close, constant = truth + rng.normal(scale=0.3, size=(40, 3)), np.zeros((40, 3))
        >>> compare_mse(truth, close, constant, reference="reference_mean").verdict
        'beats'
        >>> compare_mse(truth, constant, close, reference="reference_mean").verdict
        'worse'
        >>> compare_mse(truth[:5], close[:5], constant[:5], reference="reference_mean").verdict
        'undecided'
    """
    t = np.asarray(z_true, dtype=np.float64)
    a = np.asarray(z_model, dtype=np.float64)
    b = np.asarray(z_reference, dtype=np.float64)
    if not t.shape == a.shape == b.shape or t.ndim != 2:
        raise ValueError(f"three (n, k) arrays of one shape, got {t.shape}, {a.shape}, {b.shape}")
    per_sample = ((t - a) ** 2 - (t - b) ** 2).mean(axis=1)
    n = per_sample.shape[0]
    difference = float(per_sample.mean()) if n else math.nan
    if n < MIN_COMPARE_SAMPLES:
        return Comparison(reference, difference, math.nan, math.nan, UNDECIDED, n)
    resamples = default_resamples(n) if resamples is None else int(resamples)
    counts = resample_counts(np.random.default_rng(seed), n, resamples)
    drawn = counts @ per_sample / n
    tail = (1 - confidence) / 2 * 100
    low, high = (float(v) for v in np.percentile(drawn, [tail, 100 - tail]))
    verdict = BEATS if high < 0 else WORSE if low > 0 else TIED
    return Comparison(reference, difference, low, high, verdict, n)


def ranking_withheld(n_test: int, test_share: float) -> str:
    """Why a test split of ``n_test`` samples cannot rank models ("" when it can), with how many
    gold samples an export with that test share would need.

    Examples:
        >>> ranking_withheld(3, 0.1)
        'not ranked: the test split has 3 samples; ranking models needs ≥ 30 test samples (an export of about 300 gold samples at a 10 % test share)'
        >>> ranking_withheld(30, 0.1)
        ''
    """
    needs = NEEDS["test_metric"]
    if n_test >= needs.min_n:
        return ""
    total = units_needed(needs, test_share) if 0 < test_share <= 1 else None
    about = (f" (an export of about {total:,} gold samples at a {test_share:.0%} test share)"
             .replace("%", " %") if total else "")
    return (f"not ranked: the test split has {n_test} samples; ranking models needs ≥ {needs.min_n} "
            f"{needs.unit}{about}")


def mse_upper(row: Any) -> float:
    """The upper end of a row's MSE interval (NaN when it has none): what models rank by.

    >>> class Row: score = {"figures": {"mse": {"value": 0.5, "low": 0.4, "high": 0.7}}}; mse = 0.5
    >>> mse_upper(Row())
    0.7
    """
    high = ((getattr(row, "score", None) or {}).get("figures") or {}).get("mse", {}).get("high")
    return math.nan if high is None else float(high)


def ranked(rows: Sequence[Any]) -> list[Any]:
    """Rows best first by the upper end of their MSE interval, not the point (a model that is
    better only on luck does not lead); rows without an interval after them, by MSE.

    >>> class Row:
    ...     def __init__(self, name, mse, high): self.model, self.mse, self.score = name, mse, {
    ...         "figures": {"mse": {"value": mse, "low": None, "high": high}}}
    >>> [r.model for r in ranked([Row("a", 0.30, 0.90), Row("b", 0.35, 0.50), Row("c", 0.1, None)])]
    ['b', 'a', 'c']
    """
    def key(row: Any) -> tuple[int, float, float]:
        high = mse_upper(row)
        mse = getattr(row, "mse", None)
        mse = math.nan if mse is None else float(mse)
        return (0, high, mse) if math.isfinite(high) else (1, mse if math.isfinite(mse) else math.inf, 0.0)
    return sorted(rows, key=key)


def comparison_lines(rows: Sequence[Any], label: Any) -> list[str]:
    """One line per model row: how it reads against each reference (``label(row)`` names it).

    >>> class Row: model, ablation, vs_reference = "linear", "none", {
    ...     "reference_mean": Comparison("reference_mean", -0.2, -0.3, -0.1, BEATS, 40).to_dict()}
    >>> comparison_lines([Row()], lambda r: r.model)
    ['  linear: beats the training mean curve (ΔMSE −0.200 [−0.300, −0.100])']
    """
    lines = []
    for row in rows:
        parts = [Comparison.from_dict(c).words() for c in (getattr(row, "vs_reference", None) or {}).values()]
        if parts:
            lines.append(f"  {label(row)}: " + "; ".join(parts))
    return lines


__all__ = [
    "BEATS", "MIN_COMPARE_SAMPLES", "REFERENCE_LABELS", "REFERENCE_MODELS", "TIED", "UNDECIDED", "WORSE",
    "Comparison", "compare_mse", "comparison_lines", "mse_upper", "ranked", "ranking_withheld",
    "reference_predictions",
]
