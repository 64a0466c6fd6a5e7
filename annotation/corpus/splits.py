"""Train / validation / test splits, stratified over the set of axes each sample uses.

A Chronocept sample uses several axes at once (Main almost always, Intention in about one in
five, some axes in a few per cent), so the split is a *multi-label* stratification: every split
should hold about its share of the samples using each axis, rare axes included. Plain random
splitting leaves rare axes badly unbalanced, and stratifying on the whole label *combination*
fails when most combinations occur only a few times. We use **iterative stratification**:

    K. Sechidis, G. Tsoumakas and I. Vlahavas (2011), "On the stratification of multi-label data",
    Machine Learning and Knowledge Discovery in Databases (ECML PKDD 2011), LNCS 6913, 145–158,
    Algorithm 1.

The algorithm repeatedly takes the label with the fewest still-unassigned samples and hands each
of those samples to the split that most wants that label (largest remaining desired count for
the label), breaking ties by the split that most wants samples overall and then at random.
Samples without any label are handed out last, by overall desire.

Two changes from the paper, both for a dataset release:

* **exact split sizes** — the sizes are fixed up front (:func:`split_sizes`, largest remainder,
  so they sum to n and favour train for tiny n) and a split that is full is no longer a
  candidate. The paper's version only approximates the sizes;
* **reproducibility** — samples are sorted by id before anything else, then visited in an order
  shuffled by ``random.Random(seed)``; every random tie-break draws from the same generator. The
  same seed and the same (id, labels) pairs give the same split whatever the input order.

Pure Python, linear in the number of samples times the labels per sample (100k samples in well
under a second).
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Mapping, Sequence

#: Split names in release order (the HuggingFace split names).
SPLITS: tuple[str, str, str] = ("train", "validation", "test")
#: Share of the samples in each split, in :data:`SPLITS` order (SPEC section 7).
DEFAULT_RATIOS: tuple[float, float, float] = (0.7, 0.2, 0.1)

_RATIO_TOLERANCE = 1e-6


def check_ratios(ratios: Sequence[float]) -> tuple[float, float, float]:
    """Validate split ratios: three finite positive numbers (train, validation, test) that sum
    to 1 (within 1e-6). Returns them as a tuple of floats; raises ValueError otherwise."""
    try:
        values = tuple(float(r) for r in ratios)
    except (TypeError, ValueError):
        raise ValueError(f"ratios must be three numbers (train, validation, test), got {ratios!r}") from None
    if len(values) != len(SPLITS):
        raise ValueError(
            f"ratios must be three numbers (train, validation, test), got {len(values)}"
        )
    if not all(math.isfinite(r) and r > 0 for r in values):
        raise ValueError(f"every split ratio must be a positive number, got {values!r}")
    if abs(math.fsum(values) - 1.0) > _RATIO_TOLERANCE:
        raise ValueError(f"split ratios must sum to 1, got {values!r} (sum {math.fsum(values):g})")
    return values  # type: ignore[return-value]


def split_sizes(n: int, ratios: Sequence[float] = DEFAULT_RATIOS) -> tuple[int, int, int]:
    """Sizes of the splits for ``n`` samples: ``floor(n·r)`` each, then the left-over samples
    one by one to the splits with the largest fractional parts (largest-remainder / Hamilton
    method), ties going to the earlier split. The sizes sum to ``n``; for n = 1, 2, 3 and the
    default ratios they are (1, 0, 0), (2, 0, 0), (2, 1, 0)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"the number of samples must be a whole number >= 0, got {n!r}")
    values = check_ratios(ratios)
    exact = [n * r for r in values]
    sizes = [math.floor(e) for e in exact]
    left = n - sum(sizes)
    # Rounded so that floating-point noise (2 × 0.7 = 1.3999…) does not decide a tie.
    remainders = [round(e - s, 9) for e, s in zip(exact, sizes)]
    by_remainder = sorted(range(len(values)), key=lambda j: (-remainders[j], j))
    for j in by_remainder[:left]:
        sizes[j] += 1
    return tuple(sizes)  # type: ignore[return-value]


def stratified_split(
    ids: Sequence[str],
    label_sets: Sequence[Collection[str]],
    *,
    seed: int,
    ratios: Sequence[float] = DEFAULT_RATIOS,
) -> dict[str, str]:
    """Assign each sample to ``"train"``, ``"validation"`` or ``"test"`` by iterative
    stratification (Sechidis, Tsoumakas & Vlahavas 2011, Algorithm 1; see the module docstring).

    ``ids[i]`` is a sample id (unique) and ``label_sets[i]`` the labels it carries — here the
    names of the axes the sample uses; an empty set is allowed. Split sizes are exactly
    :func:`split_sizes`. Returns ``{id: split name}``, sorted by id. Deterministic for a given
    ``seed`` and set of (id, labels) pairs, whatever their order. Raises ValueError for
    mismatched lengths, repeated ids or invalid ratios.
    """
    values = check_ratios(ratios)
    if len(ids) != len(label_sets):
        raise ValueError(f"{len(ids)} ids but {len(label_sets)} label sets")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"the seed must be a whole number, got {seed!r}")
    seen: set[str] = set()
    for sample_id in ids:
        if sample_id in seen:
            raise ValueError(f"sample id {sample_id!r} appears more than once")
        seen.add(sample_id)
    for labels in label_sets:
        if isinstance(labels, str):
            raise ValueError(f"label sets must be collections of labels, not the string {labels!r}")

    pairs = sorted(zip(ids, map(frozenset, label_sets)))  # ids are unique: labels never compared
    n = len(pairs)
    rng = random.Random(seed)
    visit_order = list(range(n))  # samples are visited in a seeded random order
    rng.shuffle(visit_order)
    n_splits = len(SPLITS)

    # The paper's c_j: how many samples split j still wants. Here it is also a hard capacity.
    capacity = list(split_sizes(n, values))
    examples_of: dict[str, list[int]] = {}
    for index in visit_order:
        for label in pairs[index][1]:
            examples_of.setdefault(label, []).append(index)
    labels_sorted = sorted(examples_of)
    # The paper's c_j^l: how many samples with label l split j still wants.
    want_label = {label: [len(examples_of[label]) * r for r in values] for label in labels_sorted}
    remaining = {label: len(examples_of[label]) for label in labels_sorted}
    assigned: list[int] = [-1] * n
    no_label_wanted = [0.0] * n_splits

    def choose(wanted: list[float]) -> int:
        """Among the splits not yet full: the one wanting the label most, then the one wanting
        the most samples, then one at random."""
        best: tuple[float, int] | None = None
        candidates: list[int] = []
        for j in range(n_splits):
            if capacity[j] <= 0:
                continue
            key = (wanted[j], capacity[j])
            if best is None or key > best:
                best, candidates = key, [j]
            elif key == best:
                candidates.append(j)
        return candidates[0] if len(candidates) == 1 else candidates[rng.randrange(len(candidates))]

    def assign(index: int, split: int) -> None:
        assigned[index] = split
        capacity[split] -= 1
        for label in pairs[index][1]:
            want_label[label][split] -= 1
            remaining[label] -= 1

    while True:
        open_labels = [label for label in labels_sorted if remaining[label] > 0]
        if not open_labels:
            break
        fewest = min(remaining[label] for label in open_labels)
        tied = [label for label in open_labels if remaining[label] == fewest]
        label = tied[0] if len(tied) == 1 else tied[rng.randrange(len(tied))]
        # Re-aim the label's wants at the room the splits have left, so that the rounding of
        # the rare labels handled first (a 4-sample label gives train 3, validation 1, test 0)
        # is made up over the later labels instead of landing on the last one as a block.
        room = sum(capacity)
        if room:
            want_label[label] = [remaining[label] * c / room for c in capacity]
        wanted = want_label[label]
        for index in examples_of[label]:
            if assigned[index] < 0:
                assign(index, choose(wanted))

    for index in visit_order:
        if assigned[index] < 0:  # samples without labels: by overall desire alone
            assign(index, choose(no_label_wanted))

    return {sample_id: SPLITS[split] for (sample_id, _), split in zip(pairs, assigned)}


def grouped_split(
    ids: Sequence[str],
    groups: Sequence[str],
    *,
    seed: int,
    ratios: Sequence[float] = DEFAULT_RATIOS,
) -> dict[str, str]:
    """Assign each sample to a split so that all samples of one group share a split: a context
    pair's follow-ups of one target (``groups[i]`` is sample ``ids[i]``'s target key), so no
    target is seen in training and again in the test.

    Whole groups are handed out, in an order shuffled by ``random.Random(seed)`` (groups sorted
    first, so the input order does not matter), each to the split furthest below its
    :func:`split_sizes` share of the samples (ties: the earlier split). Sizes are therefore close
    to the ratios but not exact when groups differ in size. Returns ``{id: split}`` sorted by id.
    Raises ValueError for mismatched lengths, repeated ids or invalid ratios.

    Examples:
        >>> ids = [f"p{i}" for i in range(12)]
        >>> targets = [f"t{i // 3}" for i in range(12)]     # four targets, three follow-ups each
        >>> split = grouped_split(ids, targets, seed=0)
        >>> all(len({split[i] for i, t in zip(ids, targets) if t == g}) == 1 for g in set(targets))
        True
        >>> sorted(split.values()).count("train")
        9
        >>> grouped_split(ids, targets, seed=0) == grouped_split(ids[::-1], targets[::-1], seed=0)
        True
    """
    values = check_ratios(ratios)
    if len(ids) != len(groups):
        raise ValueError(f"{len(ids)} ids but {len(groups)} groups")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"the seed must be a whole number, got {seed!r}")
    members: dict[str, list[str]] = {}
    seen: set[str] = set()
    for sample_id, group in zip(ids, groups):
        if sample_id in seen:
            raise ValueError(f"sample id {sample_id!r} appears more than once")
        seen.add(sample_id)
        members.setdefault(str(group), []).append(sample_id)
    order = sorted(members)
    random.Random(seed).shuffle(order)
    wanted = list(split_sizes(len(ids), values))
    assignment: dict[str, str] = {}
    for group in order:
        # the split with the most room left (a group larger than any room still goes whole)
        j = max(range(len(SPLITS)), key=lambda k: (wanted[k], -k))
        wanted[j] -= len(members[group])
        for sample_id in members[group]:
            assignment[sample_id] = SPLITS[j]
    return dict(sorted(assignment.items()))


def split_membership(assignment: Mapping[str, str]) -> dict[str, list[str]]:
    """``{split: [ids, sorted]}`` for every split in :data:`SPLITS` order (empty lists
    included) from an ``{id: split}`` assignment. Raises ValueError for an unknown split name."""
    membership: dict[str, list[str]] = {split: [] for split in SPLITS}
    for sample_id, split in assignment.items():
        if split not in membership:
            raise ValueError(f"unknown split {split!r} for sample {sample_id!r}; expected one of {', '.join(SPLITS)}")
        membership[split].append(sample_id)
    for members in membership.values():
        members.sort()
    return membership


def assignment_from_membership(membership: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """The inverse of :func:`split_membership`: ``{id: split}`` from ``{split: [ids]}``.
    Raises ValueError for an unknown split name or an id listed in two splits."""
    assignment: dict[str, str] = {}
    for split, members in membership.items():
        if split not in SPLITS:
            raise ValueError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
        for sample_id in members:
            if sample_id in assignment:
                raise ValueError(f"sample {sample_id!r} is in both {assignment[sample_id]!r} and {split!r}")
            assignment[sample_id] = split
    return assignment
