"""What a predict or audit job keeps of its cross-validation (``Job.result``), for tests that store
a job's predictions directly: its model beating the trivial reference or not
(:func:`annotation.training.calibration.withheld_because` reads it)."""

from __future__ import annotations

from annotation.agreement.intervals import wilson_interval

#: the MSE difference's interval against the reference for each verdict
_INTERVALS = {"beats": (-0.5, -0.1), "tied": (-0.2, 0.1), "worse": (0.1, 0.3)}


def kept(verdict: str = "beats", n: int = 40, *, folds: int = 5, coverage: float = 0.88) -> dict:
    """A job's result: ``n`` samples cross-validated in ``folds`` folds, the model ``verdict``
    against the training mean curve, 90 % intervals covering ``coverage`` of held-out samples."""
    low, high = _INTERVALS[verdict]
    return {"n": n, "cross_validated": n, "folds": folds,
            "calibration": {"comparison": {"reference": "reference_mean", "difference": (low + high) / 2,
                                           "low": low, "high": high, "verdict": verdict, "n": n},
                            "level": 0.9, "quantile": 1.6, "coverage": coverage,
                            "coverage_interval": list(wilson_interval(round(coverage * n), n)), "n": n,
                            "spearman": 0.35}}
