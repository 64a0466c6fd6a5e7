"""A headline figure read against its threshold, in the words the Agreement page shows."""

from __future__ import annotations

import math


def threshold_verdict(value: float | None, threshold: float, higher_is_better: bool) -> str:
    """"meets the 0.75 threshold" / "below the 0.75 threshold" for a figure against its
    threshold (strictly above it when higher is better, strictly below it otherwise), or
    "not enough data" when the figure could not be computed (None or NaN).

    Examples:
        >>> threshold_verdict(0.81, 0.75, higher_is_better=True)
        'meets the 0.75 threshold'
        >>> threshold_verdict(0.30, 0.25, higher_is_better=False)   # Pk: lower is better
        'below the 0.25 threshold'
        >>> threshold_verdict(float("nan"), 0.75, higher_is_better=True)
        'not enough data'
    """
    if value is None or math.isnan(value):
        return "not enough data"
    ok = value > threshold if higher_is_better else value < threshold
    return ("meets" if ok else "below") + f" the {threshold:.2f} threshold"
