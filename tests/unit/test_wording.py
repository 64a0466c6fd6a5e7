"""Counted nouns in messages (annotation.wording): singular for one, plural otherwise."""

import pytest

from annotation.wording import counted, numbered


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
