"""The Agreement page's reading of a headline figure against its threshold (wording unchanged)."""

from __future__ import annotations

import math

import pytest

from annotation.agreement import threshold_verdict


@pytest.mark.parametrize("value, threshold, higher, expected", [
    (0.8, 0.75, True, "meets the 0.75 threshold"),
    (0.75, 0.75, True, "below the 0.75 threshold"),      # strictly above is needed
    (0.1, 0.2, False, "meets the 0.20 threshold"),       # Pk: lower is better
    (0.2, 0.2, False, "below the 0.20 threshold"),
    (None, 0.5, True, "not enough data"),
    (math.nan, 0.5, False, "not enough data"),
])
def test_verdict_wording(value, threshold, higher, expected):
    assert threshold_verdict(value, threshold, higher) == expected
