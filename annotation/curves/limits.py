"""The protocol's limits on the points, the fit's bounds and caps, and :class:`CurveFitError`.

Units: x in base-1.1 log minutes (:mod:`annotation.timeaxis`), y relative validity in [0, 1].
"""

# --- protocol constants ---------------------------------------------------------------------

MIN_POINTS = 3
MAX_POINTS = 5
#: Two points closer than this on the x axis count as "at the same time".
MIN_X_GAP = 0.5
#: Hand-placement jitter allowed when checking that the points are single-peaked: a dip of at
#: most this much between two higher points is not treated as a second peak.
PEAK_TOLERANCE = 0.05

# --- fit bounds (base-1.1 log minutes) ---------------------------------------------------------

XI_BOUNDS = (-100.0, 300.0)
OMEGA_BOUNDS = (0.5, 200.0)
ALPHA_BOUNDS = (-20.0, 20.0)
SCALE_BOUNDS = (1e-9, 1e5)
#: The first start (from a coarse grid search) almost always reaches the best fit; the other
#: starts are tried only when it fails or leaves an RMSE above this (relative validity units).
RETRY_ABOVE_RMSE = 0.05
#: Caps on function evaluations: the first start (converges in 1-10 on annotator-like points)
#: and each retry. They bound the time a pathological set of points can take.
MAX_NFEV = 60
RETRY_MAX_NFEV = 40
#: TRF's gradient tolerance (scipy's default is 1e-8). Near α = 0 the skew-normal's
#: information about α vanishes (Azzalini 1985), and with an exact fit TRF would otherwise crawl
#: along that flat valley to the evaluation cap, with the RMSE already below 1e-6.
GTOL = 1e-6
#: At most this many TRF runs per fit (the refined start and two hand-made ones), plus one from
#: the grid in the bounded form when the first run ends on the 100 % ceiling.
MAX_STARTS = 3

#: The fitted curve's ceiling: relative validity cannot exceed 100 %.
MAX_HEIGHT = 1.0
#: The curve "passes through" the points when every point is at most this far from it (relative
#: validity units). Hand placement is good to about 0.02 (the chart's resolution is 0.01 and a
#: pixel), so residuals from ordinary jitter stay well below; a point 0.10 off the curve is a
#: visible gap of a quarter of a typical half-validity drop, which the annotator must be told
#: about. One rule per point, so the message can name the points that are off.
PASS_TOLERANCE = 0.10


class CurveFitError(ValueError):
    """The points (or parameters) cannot define a single-peaked validity curve.

    The message is shown to the annotator as is: plain English, naming the problem and how to
    fix it. Point numbers in messages count from 1 in the order the points were given.
    """
