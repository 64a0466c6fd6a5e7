"""Showing user text safely and consistently: escaped markdown, axis chips, curve samples."""

from __future__ import annotations

import re

import numpy as np

from annotation.axes import axis_by_name
from annotation.curves import (
    ALPHA_BOUNDS,
    OMEGA_BOUNDS,
    XI_BOUNDS,
    CurveFitError,
    proportional_curve,
)
from annotation.timeaxis import X_MAX, X_MIN

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|>~<$:])")
UNLABELLED_COLOR = "#B0B0B0"
CURVE_SAMPLES = 201
#: Label and input range of each curve parameter in the pages' number inputs — the fit's bounds.
PARAM_RANGES = {"xi": ("ξ location", *XI_BOUNDS), "omega": ("ω scale", *OMEGA_BOUNDS),
                "alpha": ("α skew", *ALPHA_BOUNDS)}
#: Where a hand-made curve starts when there is nothing to start from (about a day, symmetric).
DEFAULT_PARAMS = {"xi": 60.0, "omega": 10.0, "alpha": 0.0}


def plain(text: str) -> str:
    """Escape ``text`` so that ``st.markdown`` shows it literally (user text is never markup)."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def axis_color(name: str | None) -> str:
    return axis_by_name(name).color if name else UNLABELLED_COLOR


def axis_label(name: str | None) -> str:
    return axis_by_name(name).label if name else "—"


def curve_polyline(xi: float | None, omega: float | None, alpha: float | None) -> list[tuple[float, float]] | None:
    """The proportional validity curve as chart points, or None without (valid) parameters."""
    if xi is None or omega is None or alpha is None:
        return None
    try:
        xs, ys = proportional_curve(xi, omega, alpha, np.linspace(X_MIN, X_MAX, CURVE_SAMPLES))
    except CurveFitError:
        return None
    return [(round(float(x), 3), round(float(y), 4)) for x, y in zip(xs, ys)]
