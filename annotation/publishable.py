"""One rule for what a figure needs before the tool shows, exports or gates on it (SPEC section 14).

Every figure declares what it needs (:class:`Needs`): the fewest units it rests on (``min_n``:
samples, tokens, annotations …), whether its data must vary (``min_spread``: the data's spread
must be above it — an ICC of ratings that never vary, or a σ of 0, means nothing) and whether the
field reports a 95 % interval with it. :func:`figure` applies the rule to a computed value and
returns a :class:`Figure`: shown with its n (and interval), or withheld — value None, shown as "—"
with the rule that withheld it, never as a number a reader might take for a finding.

The minimums (:data:`NEEDS`) and where they come from:

* **ICC** and **Krippendorff's α**: 30 units. Koo & Li (2016, *A guideline of selecting and
  reporting intraclass correlation coefficients*) ask for at least 30 heterogeneous samples;
  below that the 95 % interval of an ICC spans most of [0, 1]. Krippendorff's α is read with
  the same minimum of units. Both need the ratings to vary (no variance: no ratio to take).
* **Jaccard, Pk, W1** (means over samples) and Cohen's **κ** per token, or of a context pair's
  change label: 10 samples — fewer give a percentile-bootstrap interval that does not hold its
  coverage (Efron & Tibshirani 1993, ch. 13).
* **Model metrics on a test split** (MSE, MAE, R², Spearman ρ, NLL): 30 test samples, so that a
  model can be ranked against the trivial reference by its interval.
* **σ of a curve parameter** (the 2σ deviation flags): 30 submitted annotations and a spread above
  0.01 — two fits of one curve moved along the axis differ by ~1e-5, so a σ the flag would write
  as 0.00 is fitting noise, not a spread — below, the project's fixed thresholds flag instead,
  and the flag says which rule fired (:mod:`annotation.review.deviation`).
* **Cooke's classical model** (calibration, information, weights, the decision maker's scores;
  an annotator's as an expert): 10 seed items. Cooke & Goossens (2008) build the TU Delft studies
  on ten or more seed variables; with fewer, a chi-square p-value from 2N·I(s, p) rests on a
  handful of realisations, cannot reject even a badly calibrated expert, and one seed more or less
  moves the weights by orders of magnitude (:mod:`annotation.quality.expert_scores`).

Examples:
    >>> icc = figure(NEEDS["icc"], 0.588, n=52, interval=(0.41, 0.73), spread=9.5)
    >>> icc.text()
    '0.588 [0.410, 0.730] (n = 52)'
    >>> figure(NEEDS["icc"], 0.94, n=8, interval=(0.6, 0.99)).text()
    '— needs ≥ 30 samples with every curve (n = 8)'
    >>> figure(NEEDS["icc"], 0.5, n=40, spread=0.0).withheld
    'needs the ratings to vary (spread 0 ≤ 0)'
    >>> figure(NEEDS["w1"], None, n=0).text()
    '— needs ≥ 10 samples with two curves (n = 0)'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: What a withheld figure shows in place of a number.
MISSING = "—"


@dataclass(frozen=True)
class Needs:
    """What a figure called ``name`` needs to be shown: at least ``min_n`` ``unit`` (a plural
    noun: "samples with every curve"), its data's spread (``spread_of``, e.g. "the ratings")
    above ``min_spread`` when a spread is given, and a 95 % interval beside it when
    ``interval`` (the field reports one). ``source`` says where the minimum comes from."""

    name: str
    min_n: int
    unit: str
    min_spread: float = 0.0
    spread_of: str = "the data"
    interval: bool = True
    source: str = ""

    @property
    def rule(self) -> str:
        """The rule in words: "needs ≥ 30 samples with every curve".

        >>> NEEDS["pk"].rule
        'needs ≥ 10 samples with two segmentations'
        """
        return f"needs ≥ {self.min_n} {self.unit}"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "min_n": self.min_n, "unit": self.unit, "min_spread": self.min_spread,
                "interval": self.interval, "source": self.source}


@dataclass(frozen=True)
class Figure:
    """A figure after the rule: ``value`` (None when withheld or undefined), the ``n`` it rests
    on, its ``interval`` (None when the field reports none or it could not be computed) and
    ``withheld``: "" when shown, else why not, in words ("needs ≥ 30 samples … (n = 8)" comes
    from :meth:`text`)."""

    needs: Needs
    value: float | None
    n: int
    interval: tuple[float, float] | None = None
    withheld: str = ""

    @property
    def shown(self) -> bool:
        return self.value is not None

    def text(self, digits: int = 3, unit: str = "") -> str:
        """The figure as a reader sees it: value, interval and n, or "—", the rule and n.

        >>> Figure(NEEDS["w1"], 5.4512, 40, (5.1, 5.9)).text(2, " log-time units")
        '5.45 log-time units [5.10, 5.90] (n = 40)'
        >>> Figure(NEEDS["w1"], 5.4512, 40, None).text(2)
        '5.45 (no interval) (n = 40)'
        """
        if self.value is None:
            return f"{MISSING} {self.withheld} (n = {self.n:,})"
        return f"{self.value_text(f'.{digits}f', unit)} (n = {self.n:,})"

    def value_text(self, fmt: str, unit: str = "") -> str:
        """A shown figure's value and interval in the format ``fmt`` (without its n: a table whose
        column says what n is); the same as :meth:`text` for a withheld one.

        >>> Figure(NEEDS["seeds"], 0.4123, 12, (0.0021, 0.9)).value_text(".3g")
        '0.412 [0.0021, 0.9]'
        >>> Figure(NEEDS["annotator_model"], 1.234, 40).value_text("+.1f")    # no interval reported
        '+1.2'
        """
        if self.value is None:
            return self.text()
        text = f"{self.value:{fmt}}{unit}"
        if self.interval is not None:
            low, high = self.interval
            text += f" [{low:{fmt}}, {high:{fmt}}]"
        elif self.needs.interval:
            text += " (no interval)"
        return text

    def to_json(self) -> dict[str, Any]:
        """Plain JSON: ``value``, ``n``, ``interval`` ([low, high] or None), ``withheld`` and the
        rule's ``needs`` (what a reader of ``agreement.json`` checks the figure against)."""
        return {"value": self.value, "n": self.n, "interval": None if self.interval is None else list(self.interval),
                "withheld": self.withheld, "needs": self.needs.to_json()}


def _finite(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def figure(needs: Needs, value: float | None, *, n: int, interval: tuple[float, float] | None = None,
           spread: float | None = None, undefined: str = "") -> Figure:
    """``value`` computed over ``n`` units, read against ``needs`` (module docstring).

    Withheld, in this order: too few units ("needs ≥ 30 samples with every curve"); a ``spread``
    given and not above ``needs.min_spread``; no finite value (``undefined`` says why, else the
    rule). A shown figure keeps ``interval`` when both ends are finite and the field reports one.

    Examples:
        >>> figure(NEEDS["jaccard"], 0.75, n=10, interval=(0.6, 0.9)).text()
        '0.750 [0.600, 0.900] (n = 10)'
        >>> figure(NEEDS["jaccard"], 0.75, n=9).withheld
        'needs ≥ 10 samples with axis labels'
        >>> figure(NEEDS["jaccard"], float("nan"), n=12, undefined="no token is labelled").withheld
        'no token is labelled'
        >>> figure(NEEDS["jaccard"], 0.8, n=12, interval=(float("nan"), 0.9)).interval is None
        True
        >>> figure(NEEDS["sigma"], 4.2, n=30, spread=4.2).shown, figure(NEEDS["sigma"], 0.0, n=30, spread=0.0).shown
        (True, False)
    """
    n = int(n)
    if n < needs.min_n:
        return Figure(needs, None, n, None, needs.rule)
    if spread is not None:
        s = _finite(spread)
        if s is None or s <= needs.min_spread:
            shown_spread = "undefined" if s is None else f"{s:g}"
            return Figure(needs, None, n, None,
                          f"needs {needs.spread_of} to vary (spread {shown_spread} ≤ {needs.min_spread:g})")
    number = _finite(value)
    if number is None:
        return Figure(needs, None, n, None, undefined or needs.rule)
    kept = None
    if needs.interval and interval is not None:
        low, high = _finite(interval[0]), _finite(interval[1])
        if low is not None and high is not None:
            kept = (low, high)
    return Figure(needs, number, n, kept, "")


def units_needed(needs: Needs, share: float) -> int:
    """How many units in all a split holding ``share`` of them needs to reach ``needs.min_n``
    (what a page says when a test split is too small to rank on).

    >>> units_needed(NEEDS["test_metric"], 0.1)
    300
    >>> units_needed(NEEDS["test_metric"], 0.15)
    200
    """
    if not 0 < share <= 1:
        raise ValueError(f"a split's share is in (0, 1], got {share}")
    return math.ceil(needs.min_n / share - 1e-9)


_KOO_LI = "Koo & Li 2016: at least 30 heterogeneous samples for an ICC"
_BOOTSTRAP = "a percentile bootstrap interval needs ≥ 10 samples (Efron & Tibshirani 1993)"

#: What each figure the tool publishes needs (module docstring).
_COOKE = "Cooke & Goossens 2008: the TU Delft studies use ≥ 10 seed variables"
NEEDS: Mapping[str, Needs] = {
    "icc": Needs("ICC(1,1)", 30, "samples with every curve", spread_of="the ratings", source=_KOO_LI),
    "krippendorff": Needs("Krippendorff's α", 30, "units", spread_of="the ratings", source=_KOO_LI),
    "jaccard": Needs("Jaccard", 10, "samples with axis labels", source=_BOOTSTRAP),
    "pk": Needs("Pk", 10, "samples with two segmentations", source=_BOOTSTRAP),
    "w1": Needs("W1", 10, "samples with two curves", source=_BOOTSTRAP),
    "kappa": Needs("Cohen's κ", 10, "samples with axis labels", source=_BOOTSTRAP),
    "change_kappa": Needs("Cohen's κ (change label)", 10, "samples with two change labels", source=_BOOTSTRAP),
    "test_metric": Needs("test metrics", 30, "test samples", spread_of="the targets",
                         source="ranking by interval needs ≥ 30 test samples"),
    "seeds": Needs("calibration", 10, "seeds", source=_COOKE),
    "classical_model": Needs("calibration and weights (classical model)", 10, "seed items", interval=False,
                             source=_COOKE),
    "annotator_model": Needs("annotator model", 10, "annotated items", interval=False,
                             source="an annotator's noise from fewer than 10 items is mostly the prior"),
    "sigma": Needs("σ", 30, "submitted annotations", min_spread=0.01, spread_of="the parameter", interval=False,
                   source="an SD from 30 values is within ±13 % (its relative standard error)"),
}


__all__ = ["MISSING", "NEEDS", "Figure", "Needs", "figure", "units_needed"]
