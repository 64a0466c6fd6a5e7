"""The one tokenizer and segmentations over its tokens (SPEC section 3, step 1)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotation.segmentation import (
    Segmentation,
    SegmentationError,
    Token,
    remap_segment_axes,
    segment_texts,
    spaces_after,
    token_texts,
    tokenize,
)

# --- tokenize --------------------------------------------------------------------------------


@pytest.mark.parametrize("text,expected", [
    ("The bakery is closed.", ["The", "bakery", "is", "closed", "."]),
    ("The 8:15 train is late.", ["The", "8:15", "train", "is", "late", "."]),
    ("Don't go, it's wet!", ["Don't", "go", ",", "it's", "wet", "!"]),
    ("It’s open", ["It’s", "open"]),  # typographic apostrophe
    ("a co-op sells 3.5 kg for 1,000 and/or more",
     ["a", "co-op", "sells", "3.5", "kg", "for", "1,000", "and/or", "more"]),
    ("Wait... what?!", ["Wait", "...", "what", "?!"]),
    ("(maybe) \"quoted\"", ["(", "maybe", ")", "\"", "quoted", "\""]),
    ("end.Start", ["end.Start"]),  # a dot between word characters joins, like 3.5
    ("trailing dash- and 'quote'", ["trailing", "dash", "-", "and", "'", "quote", "'"]),
    ("Café naïve Zürich", ["Café", "naïve", "Zürich"]),
    ("", []),
    ("   \n\t ", []),
])
def test_tokenize_known_cases(text, expected):
    assert token_texts(text) == expected
    assert [t.text for t in tokenize(text)] == expected


def test_tokenize_offsets_point_into_the_text():
    text = "  The 8:15 train, don't stop!"
    toks = tokenize(text)
    assert toks[0] == Token("The", 2, 5)
    assert toks[1] == Token("8:15", 6, 10)
    assert toks[3] == Token(",", 16, 17)
    assert toks[4] == Token("don't", 18, 23)
    assert toks[-1] == Token("!", 28, 29)
    for t in toks:
        assert text[t.start:t.end] == t.text
    # strictly left to right, non-overlapping
    for a, b in zip(toks, toks[1:]):
        assert a.end <= b.start


def test_spaces_after_rebuilds_the_spacing():
    text = "Stop, don't go!"
    assert spaces_after(text) == [False, True, True, False, False]
    rebuilt = "".join(t.text + (" " if sp else "") for t, sp in zip(tokenize(text), spaces_after(text)))
    assert rebuilt == text


@given(st.text(max_size=200))
def test_tokens_cover_every_non_space_character(text):
    toks = tokenize(text)
    covered = set()
    for t in toks:
        assert text[t.start:t.end] == t.text and t.text.strip() == t.text and t.text
        covered.update(range(t.start, t.end))
    assert all(text[i].isspace() for i in range(len(text)) if i not in covered)


# --- Segmentation validation -----------------------------------------------------------------


@pytest.mark.parametrize("boundaries,n,fragment", [
    ((0,), 0, "no tokens"),
    ((), 5, "start at token 0"),
    ((1, 3), 5, "start at token 0"),
    ((0, 5), 5, "past the last token"),
    ((0, 9), 5, "past the last token"),
    ((0, 3, 3), 5, "strictly increasing"),
    ((0, 3, 2), 5, "strictly increasing"),
    ((0, -1), 5, "strictly increasing"),
])
def test_invalid_segmentations_are_refused(boundaries, n, fragment):
    with pytest.raises(SegmentationError, match=fragment):
        Segmentation(tuple(boundaries), n)


@pytest.mark.parametrize("bad", [[0, 1.5], [0, "2"], [0, True], [0, None]])
def test_from_boundaries_refuses_non_indices(bad):
    with pytest.raises(SegmentationError, match="not a token index"):
        Segmentation.from_boundaries(bad, 5)


def test_from_boundaries_accepts_integral_floats_and_keeps_order():
    seg = Segmentation.from_boundaries([0, 2.0, 4], 6)
    assert seg.boundaries == (0, 2, 4) and all(type(b) is int for b in seg.boundaries)
    with pytest.raises(SegmentationError):
        Segmentation.from_boundaries([0, 4, 2], 6)  # not re-sorted


def test_direct_construction_refuses_float_boundaries():
    with pytest.raises(SegmentationError, match="not a token index"):
        Segmentation((0, 2.0), 5)  # type: ignore[arg-type]


def test_whole_and_basic_properties():
    seg = Segmentation.whole(7)
    assert seg.boundaries == (0,) and seg.n_segments == 1 and seg.masses == (7,)
    seg = Segmentation((0, 2, 5), 7)
    assert seg.n_segments == 3
    assert seg.masses == (2, 3, 2)
    assert seg.spans == ((0, 2), (2, 5), (5, 7))
    assert seg.segment_ids() == (0, 0, 1, 1, 1, 2, 2)
    assert [seg.segment_of(i) for i in range(7)] == [0, 0, 1, 1, 1, 2, 2]


# --- masses ↔ boundaries -------------------------------------------------------------------


@pytest.mark.parametrize("masses", [(1,), (2, 3, 6), (1, 1, 1, 1), (10,)])
def test_masses_round_trip(masses):
    seg = Segmentation.from_masses(masses)
    assert seg.masses == tuple(masses)
    assert seg.n_tokens == sum(masses)
    assert Segmentation.from_boundaries(seg.boundaries, seg.n_tokens) == seg


def test_from_masses_example():
    assert Segmentation.from_masses((2, 3, 6)) == Segmentation((0, 2, 5), 11)


@pytest.mark.parametrize("masses", [(), (0,), (2, 0, 3), (3, -1)])
def test_from_masses_refuses_empty_segments(masses):
    with pytest.raises(SegmentationError):
        Segmentation.from_masses(masses)


@given(st.integers(min_value=1, max_value=60).flatmap(
    lambda n: st.tuples(st.just(n), st.sets(st.integers(min_value=1, max_value=max(1, n - 1)),
                                            max_size=n))))
def test_any_boundary_set_is_a_partition(n_and_cuts):
    n, cuts = n_and_cuts
    cuts = {c for c in cuts if 1 <= c <= n - 1}
    seg = Segmentation(tuple(sorted(cuts | {0})), n)
    assert sum(seg.masses) == n
    assert all(m >= 1 for m in seg.masses)
    assert seg.n_segments == len(cuts) + 1
    assert Segmentation.from_masses(seg.masses) == seg
    # every token is in exactly one segment, in order
    ids = seg.segment_ids()
    assert len(ids) == n and list(ids) == sorted(ids)
    assert [seg.segment_of(i) for i in range(n)] == list(ids)


# --- toggle ----------------------------------------------------------------------------------


def test_toggle_adds_and_removes_a_boundary():
    seg = Segmentation.whole(6)
    two = seg.toggle(3)
    assert two.boundaries == (0, 3)
    three = two.toggle(1)
    assert three.boundaries == (0, 1, 3)  # kept sorted
    assert three.toggle(3).boundaries == (0, 1)
    assert three.toggle(1).toggle(3) == seg
    assert seg.toggle(5).boundaries == (0, 5)  # the last gap


@pytest.mark.parametrize("gap", [0, 6, 7, -1])
def test_toggle_outside_the_gaps_is_refused(gap):
    with pytest.raises(SegmentationError, match="no gap"):
        Segmentation.whole(6).toggle(gap)


# --- segment_texts ---------------------------------------------------------------------------


def test_segment_texts_keep_the_original_characters():
    text = "The shop is closed, but it opens next week."
    n = len(tokenize(text))
    # tokens: The shop is closed , but it opens next week .
    seg = Segmentation((0, 4, 5, 8), n)
    assert segment_texts(text, seg) == ["The shop is closed", ",", "but it opens", "next week."]
    assert segment_texts(text, Segmentation.whole(n)) == [text]


def test_segment_texts_refuses_a_mismatched_segmentation():
    with pytest.raises(SegmentationError, match="covers 3 tokens"):
        segment_texts("one two three four", Segmentation.whole(3))


# --- remap_segment_axes ---------------------------------------------------------------------


def test_remap_split_keeps_the_label_on_both_halves():
    old = Segmentation((0, 4), 8)
    new = old.toggle(6)  # split the second segment
    assert remap_segment_axes(old, ["main", "static"], new) == ["main", "static", "static"]


def test_remap_merge_keeps_the_left_label():
    old = Segmentation((0, 3, 5), 8)
    new = old.toggle(3)  # merge the first two
    assert new.boundaries == (0, 5)
    assert remap_segment_axes(old, ["main", "opinion", None], new) == ["main", None]


def test_remap_with_inconsistent_input_starts_fresh():
    old = Segmentation((0, 3), 8)
    assert remap_segment_axes(old, ["main"], Segmentation.whole(8)) == [None]  # wrong axis count
    assert remap_segment_axes(old, ["main", "static"], Segmentation((0, 2, 4), 9)) == [None] * 3


def test_tokenize_is_cached_but_returns_immutable_tokens():
    a = tokenize("A stable text.")
    b = tokenize("A stable text.")
    assert a == b and isinstance(a, tuple)
    with pytest.raises(AttributeError):
        a[0].text = "changed"  # type: ignore[misc]
