"""What the agreement measures consume: samples, each with its ratings in submission order.

A :class:`RatedSample` is one text with the submitted annotations of k ≥ 1 annotators (k ≥ 2
for any agreement); a :class:`Rating` is one annotator's segmentation, axis labels and curve
parameters. The service layer builds these from stored annotations, so the measures never see
the database. The order of ``ratings`` is the *slot* order (first, second, … annotator to submit)
that the ICC uses as its raters; the service passes them in submission order.

A rating may be partial (the annotator flagged the sample instead of finishing it):
``segment_axes`` entries are then ``None`` and/or ξ, ω, α are ``None``. Each measure uses the
ratings that carry what it consumes (see :func:`rating_supplies`).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass, replace
from datetime import datetime
from enum import Enum
from functools import cached_property, lru_cache
from typing import Iterator, Sequence

import numpy as np

from annotation.axes import AXIS_NAMES, is_axis_name
from annotation.pairs.change import CHANGE_LABELS
from annotation.parameters import PARAMETERS
from annotation.wording import counted

#: The three curve parameters, in the order the report lists them.

#: Integer code of each axis (its position in :data:`annotation.axes.AXES`).
AXIS_CODES: dict[str, int] = {name: i for i, name in enumerate(AXIS_NAMES)}


_INT_TYPE = frozenset({int})
_AXES_OR_NONE = frozenset((*AXIS_NAMES, None))


class AgreementInputError(ValueError):
    """A sample or rating that cannot be measured (message names the sample)."""


class Consumes(str, Enum):
    """The kind of annotation a measure accepts (INCEpTION-style declaration)."""

    CURVE_PARAMETERS = "curve parameters"
    TOKEN_AXIS_LABELS = "token axis labels"
    SEGMENTATION = "segmentation"
    #: a context pair's change label (decreased / neutral / increased)
    CHANGE_LABEL = "change label"


@dataclass(frozen=True)
class Rating:
    """One annotator's submitted annotation of a sample.

    ``boundaries`` are the token indices where segments start (the first is 0);
    ``segment_axes`` holds one axis name per segment (``None`` for a segment left unlabelled
    by a flagged annotation); ``xi``, ``omega``, ``alpha`` are in base-1.1 log minutes, or
    ``None`` when the annotator flagged the sample without drawing a curve. ``change`` is a
    context pair's change label as the annotator gave it (their override or the derived one;
    None for single texts or without both curves).
    """

    annotator: str
    submitted_at: datetime
    boundaries: tuple[int, ...]
    segment_axes: tuple[str | None, ...]
    xi: float | None = None
    omega: float | None = None
    alpha: float | None = None
    change: str | None = None

    def __post_init__(self) -> None:
        # Plain ints, known axis names and float parameters (what the service passes for 200k
        # ratings per 100k-sample report) are checked with set operations; anything else takes
        # the item-by-item path with its message.
        boundaries = self.boundaries if type(self.boundaries) is tuple else tuple(self.boundaries)
        if not set(map(type, boundaries)) <= _INT_TYPE:
            for b in boundaries:
                if isinstance(b, bool) or not isinstance(b, (int, np.integer)):
                    raise AgreementInputError(f"rating by {self.annotator!r}: boundary {b!r} is not a token index")
            boundaries = tuple(int(b) for b in boundaries)
        object.__setattr__(self, "boundaries", boundaries)
        axes = self.segment_axes if type(self.segment_axes) is tuple else tuple(self.segment_axes)
        object.__setattr__(self, "segment_axes", axes)
        if not isinstance(self.submitted_at, datetime):
            raise AgreementInputError(f"rating by {self.annotator!r}: submitted_at is not a datetime")
        if len(axes) != len(boundaries):
            raise AgreementInputError(
                f"rating by {self.annotator!r}: {counted(len(boundaries), 'segment')} but "
                f"{counted(len(axes), 'axis label')}"
            )
        try:
            known = _AXES_OR_NONE.issuperset(axes)
        except TypeError:  # an unhashable "axis"
            known = False
        if not known:
            for axis in axes:
                if axis is not None and not is_axis_name(axis):
                    raise AgreementInputError(
                        f"rating by {self.annotator!r}: unknown axis {axis!r}; "
                        f"expected one of {', '.join(AXIS_NAMES)}"
                    )
        if self.change is not None and self.change not in CHANGE_LABELS:
            raise AgreementInputError(f"rating by {self.annotator!r}: unknown change label {self.change!r}")
        for name in PARAMETERS:
            value = getattr(self, name)
            if value is not None:
                if type(value) is not float:
                    value = float(value)
                    object.__setattr__(self, name, value)
                if not math.isfinite(value):
                    raise AgreementInputError(f"rating by {self.annotator!r}: {name} is not finite")

    # cached_property writes to the instance __dict__, which a frozen dataclass allows; the
    # measures ask these questions hundreds of thousands of times per report.
    @cached_property
    def has_curve(self) -> bool:
        """True when ξ, ω and α are all given."""
        return self.xi is not None and self.omega is not None and self.alpha is not None

    @cached_property
    def has_axis_labels(self) -> bool:
        """True when every segment has an axis (steps 1 and 2 of the protocol were finished)."""
        return all(a is not None for a in self.segment_axes)

    def parameter(self, name: str) -> float | None:
        """The value of curve parameter ``name`` (one of :data:`PARAMETERS`)."""
        if name not in PARAMETERS:
            raise KeyError(name)
        return getattr(self, name)


@dataclass(frozen=True)
class RatedSample:
    """One text and its ratings, ``ratings[0]`` being slot 1 (the first to submit).

    ``n_tokens`` is the number of tokens of :func:`annotation.segmentation.tokenize` on the text;
    every rating's boundaries must partition that many tokens.
    """

    sample_id: str
    benchmark: int
    n_tokens: int
    ratings: tuple[Rating, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "ratings", tuple(self.ratings))
        if self.n_tokens < 1:
            raise AgreementInputError(f"sample {self.sample_id}: the text has no tokens")
        if not self.ratings:
            raise AgreementInputError(f"sample {self.sample_id}: no ratings")
        for r in self.ratings:
            b = r.boundaries
            ok = bool(b) and b[0] == 0 and b[-1] < self.n_tokens
            ok = ok and all(b[i] < b[i + 1] for i in range(len(b) - 1))
            if not ok:
                raise AgreementInputError(
                    f"sample {self.sample_id}: the boundaries {list(b)} of {r.annotator!r} do not "
                    f"partition {self.n_tokens} tokens (first 0, strictly increasing, below {self.n_tokens})"
                )

    @property
    def annotators(self) -> tuple[str, ...]:
        """Annotator names in slot order."""
        return tuple(r.annotator for r in self.ratings)

    @property
    def completed_at(self) -> datetime:
        """When the last rating was submitted (the sample became fully annotated)."""
        return max(r.submitted_at for r in self.ratings)

    @property
    def week(self) -> str:
        """ISO week of :attr:`completed_at`, e.g. ``"2026-W47"`` (the trend's time unit)."""
        return iso_week(self.completed_at)

    def restricted_to(self, annotators: tuple[str, str]) -> "RatedSample":
        """The same sample with only the ratings of ``annotators`` (slot order kept)."""
        wanted = set(annotators)
        return replace(self, ratings=tuple(r for r in self.ratings if r.annotator in wanted))


def iso_week(moment: datetime) -> str:
    """``"YYYY-Www"``: the ISO 8601 year and week of ``moment``.

    Examples:
        >>> iso_week(datetime(2026, 1, 5))      # 1 January 2026 is a Thursday: week 1 began 29 Dec
        '2026-W02'
        >>> iso_week(datetime(2027, 1, 1))      # a Friday: still the last week of 2026
        '2026-W53'
    """
    year, week, _ = moment.isocalendar()
    return f"{year}-W{week:02d}"


def rating_supplies(rating: Rating, consumes: Consumes) -> bool:
    """Whether ``rating`` carries what a measure consuming ``consumes`` needs.

    Curve parameters need ξ, ω, α. Axis labels need an axis on every segment. A segmentation
    counts only once its segments are labelled too: a rating flagged at step 1 keeps the
    default one-segment segmentation, which is not a segmentation the annotator made.

    Examples:
        >>> t = datetime(2026, 1, 5)
        >>> labelled = Rating("ann", t, (0, 2), ("main", "static"))     # no curve drawn
        >>> [(kind.value, rating_supplies(labelled, kind)) for kind in Consumes]
        [('curve parameters', False), ('token axis labels', True), ('segmentation', True), ('change label', False)]
        >>> rating_supplies(Rating("bob", t, (0,), (None,)), Consumes.SEGMENTATION)  # flagged at step 1
        False
    """
    if consumes is Consumes.CURVE_PARAMETERS:
        return rating.has_curve
    if consumes is Consumes.CHANGE_LABEL:
        return rating.change is not None
    return rating.has_axis_labels


def usable_ratings(sample: RatedSample, consumes: Consumes) -> tuple[Rating, ...]:
    """The ratings of ``sample`` that a measure consuming ``consumes`` can use, in slot order.

    The rule of :func:`rating_supplies`, inlined: this runs about 100k times per report.

    Examples:
        >>> t = datetime(2026, 1, 5)
        >>> ann = Rating("ann", t, (0, 2), ("main", "static"), 40.0, 10.0, 0.0)
        >>> bob = Rating("bob", t, (0, 2), ("main", "static"))              # no curve
        >>> sample = RatedSample("s1", 1, 4, (ann, bob))
        >>> [r.annotator for r in usable_ratings(sample, Consumes.CURVE_PARAMETERS)]
        ['ann']
    """
    if consumes is Consumes.CURVE_PARAMETERS:
        return tuple(r for r in sample.ratings if r.has_curve)
    if consumes is Consumes.CHANGE_LABEL:
        return tuple(r for r in sample.ratings if r.change is not None)
    return tuple(r for r in sample.ratings if r.has_axis_labels)


def rating_pairs(sample: RatedSample, consumes: Consumes) -> Iterator[tuple[Rating, Rating]]:
    """Every pair of usable ratings of ``sample``, earlier slot first (k(k−1)/2 pairs).

    Examples:
        >>> t = datetime(2026, 1, 5)
        >>> sample = RatedSample("s1", 1, 3, [Rating(name, t, (0,), ("main",)) for name in "abc"])
        >>> [(x.annotator, y.annotator) for x, y in rating_pairs(sample, Consumes.SEGMENTATION)]
        [('a', 'b'), ('a', 'c'), ('b', 'c')]
    """
    return itertools.combinations(usable_ratings(sample, consumes), 2)


def raters_per_sample(samples: Sequence[RatedSample]) -> int:
    """The design's k: the most common number of ratings per sample (ties → the smaller), ≥ 2.

    Examples:
        >>> t = datetime(2026, 1, 5)
        >>> a, b, c = (Rating(name, t, (0,), ("main",)) for name in "abc")
        >>> samples = [RatedSample("s1", 1, 3, (a, b)), RatedSample("s2", 1, 3, (a, b, c)),
        ...            RatedSample("s3", 1, 3, (a, b, c))]
        >>> raters_per_sample(samples), raters_per_sample(samples[:2]), raters_per_sample([])
        (3, 2, 2)
    """
    counts = Counter(len(s.ratings) for s in samples)
    if not counts:
        return 2
    best = max(counts.values())
    return max(2, min(k for k, c in counts.items() if c == best))


def segment_masses(boundaries: tuple[int, ...], n_tokens: int) -> tuple[int, ...]:
    """Segment lengths in tokens (segeval's *masses*) from start indices.

    Examples:
        >>> segment_masses((0, 2, 5), 10)
        (2, 3, 5)
    """
    ends = boundaries[1:] + (n_tokens,)
    return tuple(e - s for s, e in zip(boundaries, ends))


def token_axis_codes(rating: Rating, n_tokens: int) -> np.ndarray:
    """The axis code (:data:`AXIS_CODES`) of every token: each token takes its segment's axis.

    Read-only array (shared through a cache). The rating must have axis labels.

    Examples:
        >>> rating = Rating("ann", datetime(2026, 1, 5), (0, 2), ("main", "static"))
        >>> token_axis_codes(rating, 4).tolist()    # main is axis 0, static axis 1
        [0, 0, 1, 1]
    """
    return _token_axis_codes(rating.boundaries, rating.segment_axes, n_tokens)


@lru_cache(maxsize=65536)
def _token_axis_codes(
    boundaries: tuple[int, ...], segment_axes: tuple[str, ...], n_tokens: int
) -> np.ndarray:
    codes = np.array([AXIS_CODES[a] for a in segment_axes], dtype=np.int64)
    out = np.repeat(codes, segment_masses(boundaries, n_tokens))
    out.flags.writeable = False
    return out


def clear_token_cache() -> None:
    """Forget memoised token axis codes.

    Examples:
        >>> codes = token_axis_codes(Rating("ann", datetime(2026, 1, 5), (0,), ("main",)), 3)
        >>> clear_token_cache()
        >>> _token_axis_codes.cache_info().currsize
        0
    """
    _token_axis_codes.cache_clear()


@dataclass(frozen=True, eq=False)
class TokenLabelPairs:
    """Token-level axis codes of every pair of labelled ratings, pooled over samples.

    Pair p compares ``first`` (the earlier slot) with ``second`` over the tokens of sample
    ``sample_of_pair[p]``; ``pair_of_token`` says which pair each pooled token belongs to.
    This is the shared view of the label measures (Jaccard, kappa), built with numpy so the
    per-sample and per-axis counts are ``bincount`` calls rather than Python loops.
    """

    sample_of_pair: np.ndarray
    pair_of_token: np.ndarray
    first: np.ndarray
    second: np.ndarray

    @property
    def n_pairs(self) -> int:
        return int(self.sample_of_pair.size)


def token_label_pairs(samples: Sequence[RatedSample]) -> TokenLabelPairs:
    """Pool the token axis codes of every labelled rating pair of ``samples``.

    Built for all pairs at once (one ``np.repeat`` of every segment's axis code by its length
    per side) rather than an array per rating: at 100k samples the per-rating arrays were most
    of the time of the export card's Jaccard.

    Examples:
        >>> t = datetime(2026, 1, 5)
        >>> ann, bob = Rating("ann", t, (0,), ("main",)), Rating("bob", t, (0, 2), ("main", "static"))
        >>> pairs = token_label_pairs([RatedSample("s1", 1, 4, (ann, bob))])
        >>> pairs.n_pairs, pairs.first.tolist(), pairs.second.tolist()
        (1, [0, 0, 0, 0], [0, 0, 1, 1])
    """
    sample_of_pair: list[int] = []
    n_tokens: list[int] = []
    firsts: list[Rating] = []
    seconds: list[Rating] = []
    for i, sample in enumerate(samples):
        for a, b in rating_pairs(sample, Consumes.TOKEN_AXIS_LABELS):
            sample_of_pair.append(i)
            n_tokens.append(sample.n_tokens)
            firsts.append(a)
            seconds.append(b)
    return token_label_pairs_of(sample_of_pair, n_tokens, firsts, seconds)


def token_label_pairs_of(sample_of_pair: Sequence[int], n_tokens: Sequence[int], firsts: Sequence[Rating],
                         seconds: Sequence[Rating]) -> TokenLabelPairs:
    """:func:`token_label_pairs` from the pairs already listed: pair p is ``firsts[p]`` against
    ``seconds[p]`` on sample ``sample_of_pair[p]`` of ``n_tokens[p]`` tokens.

    Examples:
        >>> t = datetime(2026, 1, 5)
        >>> ann, bob = Rating("ann", t, (0,), ("main",)), Rating("bob", t, (0, 2), ("main", "static"))
        >>> token_label_pairs_of([0], [4], [ann], [bob]).second.tolist()
        [0, 0, 1, 1]
    """
    if not firsts:
        empty = np.zeros(0, dtype=np.int64)
        return TokenLabelPairs(empty, empty, empty, empty)
    lengths = np.asarray(n_tokens, dtype=np.int64)
    offsets = np.cumsum(lengths) - lengths
    total = int(lengths.sum())
    return TokenLabelPairs(
        sample_of_pair=np.asarray(sample_of_pair, dtype=np.int64),
        pair_of_token=np.repeat(np.arange(len(firsts), dtype=np.int64), lengths),
        first=_pooled_token_axis_codes(firsts, offsets, total),
        second=_pooled_token_axis_codes(seconds, offsets, total),
    )


def _pooled_token_axis_codes(ratings: Sequence[Rating], offsets: np.ndarray, total: int) -> np.ndarray:
    """:func:`token_axis_codes` of ``ratings[p]`` at ``offsets[p]`` …, concatenated (``total``
    tokens): every segment's start moved by its text's offset, its length the distance to the
    next start (the next text's first segment starts where this text ends)."""
    n_segments = np.fromiter((len(r.boundaries) for r in ratings), dtype=np.int64, count=len(ratings))
    starts = np.fromiter(itertools.chain.from_iterable(r.boundaries for r in ratings), dtype=np.int64,
                         count=int(n_segments.sum()))
    starts += np.repeat(offsets, n_segments)
    codes = np.fromiter(map(AXIS_CODES.__getitem__,
                            itertools.chain.from_iterable(r.segment_axes for r in ratings)),
                        dtype=np.int64, count=starts.size)
    return np.repeat(codes, np.diff(starts, append=total))
