"""Counted nouns in messages (annotation.wording): singular for one, plural otherwise."""

import pytest

from annotation.wording import counted, numbered, signed, time_spent


@pytest.mark.parametrize("n,expected", [(0, "0 segments"), (1, "1 segment"), (2, "2 segments")])
def test_counted(n, expected):
    assert counted(n, "segment") == expected


def test_counted_with_an_irregular_plural():
    assert counted(1, "axis", "axes") == "1 axis"
    assert counted(3, "axis", "axes") == "3 axes"


@pytest.mark.parametrize("numbers,expected", [
    ([2], "segment 2"),
    ([1, 3], "segments 1 and 3"),
    ([1, 2, 4], "segments 1, 2 and 4"),
])
def test_numbered(numbers, expected):
    assert numbered("segment", numbers) == expected


@pytest.mark.parametrize("seconds,expected", [
    (0, "0 s"), (12.4, "12 s"), (59.4, "59 s"), (59.6, "1.0 min"), (61, "1.0 min"), (754, "12.6 min"),
    (3599, "1.0 h"), (9000, "2.5 h")])
def test_time_spent_reads_in_seconds_under_a_minute(seconds, expected):
    assert time_spent(seconds) == expected


def test_signed_writes_a_minus_sign_and_no_negative_zero():
    # the Review page's "α -0.00" (an annotator's α of 0.4 − 0.4) and "ξ -3.50" with a hyphen
    assert signed(-0.31) == "−0.31" and signed(-1e-17) == "0.00" and signed(-0.004) == "0.00"
    assert signed(0.456, 1) == "0.5" and signed(56.6) == "56.60" and signed(-2.5, 1) == "−2.5"
