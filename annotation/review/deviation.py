"""The parameter deviation rule's threshold: the project's σ, or a fixed one while σ is thin.

``xi_deviation`` / ``omega_deviation`` / ``alpha_deviation`` (SPEC section 5) fire when two
annotations of a sample differ in a curve parameter by more than a threshold
(:func:`deviation_threshold`), chosen by the rule of what a figure needs (SPEC section 14,
:data:`annotation.publishable.NEEDS` ``["sigma"]``):

* the **σ rule** — ``flag_sigma · SD``, SD the sample standard deviation (ddof = 1) of that
  parameter over every submitted annotation of the project — once the SD rests on at least
  ``NEEDS["sigma"].min_n`` (30) values and the values vary (an SD of at most
  ``NEEDS["sigma"].min_spread``, 0.01, is fitting noise: fits of one curve moved along the axis
  differ by ~1e-5, and 2σ of that flags two copies of a curve);
* the **fixed rule** — the project's ``flag_xi_max`` / ``flag_omega_max`` / ``flag_alpha_max``
  (:class:`annotation.settings.ProjectSettings`) — below that. An SD from 8 values is off by
  ±27 % (relative standard error 1/√(2(n − 1))), and a project where the few annotations agree
  has σ ≈ 0: 2σ then flags two near-identical curves.

The threshold carries its words, so a flag says which rule fired: "2·σ = 3.19 (σ = 1.60 over 45
annotations)" or "10.00 (fixed threshold: σ needs ≥ 30 submitted annotations, 8 so far)".

The spread itself (:class:`ParameterSpread`) comes from the annotations' values
(:func:`parameter_spread`) or from the project's running sums (:func:`spread_from_sums`).
Pure: data in, data out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from annotation.parameters import PARAMETERS
from annotation.publishable import NEEDS, figure
from annotation.wording import counted
from annotation.content import AnnotationContent

#: Differences below this (log minutes, or α units) are fitting noise, never a disagreement:
#: two annotators' fits of the same curve can differ by ~1e-8 on another CPU, and the spread of
#: a project where everyone agrees is 0 (or rounding noise) — without it, 8e-8 > 2·0 flags.
PARAMETER_TOLERANCE = 1e-6


@dataclass(frozen=True)
class ParameterSpread:
    """Sample standard deviation (ddof = 1) of ξ, ω and α over the project's submitted
    annotations, and how many values each was computed from. An SD is None when fewer than two
    values exist or the running sums went bad (the fixed rule then decides)."""

    xi: float | None
    omega: float | None
    alpha: float | None
    counts: tuple[int, int, int] = (0, 0, 0)

    def sd(self, parameter: str) -> float | None:
        """SD of ``parameter`` (``"xi"``, ``"omega"`` or ``"alpha"``)."""
        if parameter not in PARAMETERS:
            raise ValueError(f"unknown parameter {parameter!r}; expected one of {', '.join(PARAMETERS)}")
        return getattr(self, parameter)

    def count(self, parameter: str) -> int:
        """Number of values the SD of ``parameter`` was computed from."""
        if parameter not in PARAMETERS:
            raise ValueError(f"unknown parameter {parameter!r}; expected one of {', '.join(PARAMETERS)}")
        return self.counts[PARAMETERS.index(parameter)]


def parameter_spread(values_by_param: Mapping[str, Iterable[float | None]]) -> ParameterSpread:
    """SD of each curve parameter over all submitted annotations of a project.

    ``values_by_param`` maps ``"xi"``, ``"omega"``, ``"alpha"`` to that parameter's values
    (None entries — annotations without a curve — are ignored; a missing key counts as no values).
    Returns the sample standard deviation ``sqrt(Σ(p − p̄)² / (n − 1))`` per parameter, None where
    fewer than two values exist. Raises ValueError on a non-finite value.

    Examples:
        >>> s = parameter_spread({"xi": [50, 60, 70, 80], "omega": [1.0, None, 3.0]})
        >>> round(s.xi, 4), round(s.omega, 4), s.alpha, s.counts
        (12.9099, 1.4142, None, (4, 2, 0))
    """
    unknown = set(values_by_param) - set(PARAMETERS)
    if unknown:
        raise ValueError(f"unknown parameter(s) {', '.join(sorted(unknown))}; expected {', '.join(PARAMETERS)}")
    sds: list[float | None] = []
    counts: list[int] = []
    for name in PARAMETERS:
        values = np.array([float(v) for v in values_by_param.get(name, ()) if v is not None], dtype=float)
        if not np.all(np.isfinite(values)):
            raise ValueError(f"the values of {name} must be finite numbers")
        counts.append(int(values.size))
        sds.append(float(np.std(values, ddof=1)) if values.size >= 2 else None)
    return ParameterSpread(sds[0], sds[1], sds[2], (counts[0], counts[1], counts[2]))


def spread_from_sums(n: int, sums: Mapping[str, float], squares: Mapping[str, float]) -> ParameterSpread:
    """:class:`ParameterSpread` from running sums: ``n`` values, ``sums[p] = Σp``,
    ``squares[p] = Σp²`` per parameter, ``SD = sqrt((Σp² − (Σp)²/n) / (n − 1))``.

    Robust to sums that went bad: where a sum, or the variance from it, is not a finite number
    (one value of 1e308 makes Σp² infinite, and inf − inf is NaN) the SD is None — the σ rule
    is not run against σ = 0 or NaN — and :func:`sums_are_finite` tells the caller to rebuild
    the sums. A variance a little below zero from rounding is 0.

    Examples:
        >>> s = spread_from_sums(2, {"xi": 3.0, "omega": 2.0, "alpha": 0.0},
        ...                      {"xi": 5.0, "omega": 2.0, "alpha": float("inf")})
        >>> round(s.xi, 4), s.omega, s.alpha, s.counts
        (0.7071, 0.0, None, (2, 2, 2))
    """
    sds: list[float | None] = []
    for p in PARAMETERS:
        total, sq = float(sums.get(p, 0.0)), float(squares.get(p, 0.0))
        if n < 2 or not (math.isfinite(total) and math.isfinite(sq)):
            sds.append(None)
            continue
        variance = (sq - total * total / n) / (n - 1)
        sds.append(math.sqrt(max(0.0, variance)) if math.isfinite(variance) else None)
    return ParameterSpread(sds[0], sds[1], sds[2], (n, n, n))


def sums_are_finite(*values: float) -> bool:
    """Whether every running sum is a finite number (else it must be rebuilt).

    >>> sums_are_finite(1.0, 2.5), sums_are_finite(1.0, float("nan"))
    (True, False)
    """
    return all(v is not None and math.isfinite(float(v)) for v in values)


def spread_of_annotations(annotations: Iterable[AnnotationContent]) -> ParameterSpread:
    """:func:`parameter_spread` over annotation contents, using those that have parameters.

    >>> spread_of_annotations([AnnotationContent(xi=x, omega=10.0, alpha=0.0) for x in (40.0, 50.0)]).counts
    (2, 2, 2)
    """
    values: dict[str, list[float]] = {p: [] for p in PARAMETERS}
    for a in annotations:
        if a.has_parameters:
            for p in PARAMETERS:
                values[p].append(getattr(a, p))
    return parameter_spread(values)


@dataclass(frozen=True)
class DeviationThreshold:
    """The limit a parameter's difference must exceed to flag, and its ``words`` as the flag's
    detail shows them; ``by_sigma``: the σ rule decided (else the fixed threshold did)."""

    limit: float
    words: str
    by_sigma: bool


def deviation_threshold(spread: ParameterSpread, parameter: str, sigma: float, fixed: float) -> DeviationThreshold:
    """The threshold of ``parameter``'s deviation flag (module docstring): ``sigma`` SDs of the
    project's ``spread`` when the SD is a figure the tool may use, else ``fixed``.

    Examples:
        >>> deviation_threshold(ParameterSpread(None, None, 1.596, (8, 8, 8)), "alpha", 2.0, 10.0).words
        '10.00 (fixed threshold: σ needs ≥ 30 submitted annotations, 8 so far)'
        >>> t = deviation_threshold(ParameterSpread(None, None, 1.596, (45, 45, 45)), "alpha", 2.0, 10.0)
        >>> t.by_sigma, t.words
        (True, '2·σ = 3.19 (σ = 1.60 over 45 annotations)')
        >>> deviation_threshold(ParameterSpread(None, 0.0, None, (45, 45, 45)), "omega", 2.0, 15.0).words
        '15.00 (fixed threshold: σ = 0.00 over 45 annotations, the values do not vary)'
    """
    sd, n = spread.sd(parameter), spread.count(parameter)
    needs = NEEDS["sigma"]
    judged = figure(needs, sd, n=n, spread=math.nan if sd is None else sd)
    if judged.shown and sd is not None:
        limit = sigma * sd
        return DeviationThreshold(limit, f"{sigma:g}·σ = {limit:.2f} (σ = {sd:.2f} over {counted(n, 'annotation')})",
                                  True)
    if n < needs.min_n:
        why = f"σ {needs.rule}, {n:,} so far"
    elif sd is None:
        why = f"σ is undefined over {counted(n, 'annotation')}"
    else:
        why = f"σ = {sd:.2f} over {counted(n, 'annotation')}, the values do not vary"
    return DeviationThreshold(float(fixed), f"{fixed:.2f} (fixed threshold: {why})", False)


__all__ = ["PARAMETER_TOLERANCE", "DeviationThreshold", "ParameterSpread", "deviation_threshold", "parameter_spread",
           "spread_from_sums", "spread_of_annotations", "sums_are_finite"]
