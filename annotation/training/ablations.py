"""The two input ablations of the baselines (SPEC section 8).

* ``"none"``: the full (9, d) feature block — parent text, then the eight axes in fixed order.
* ``"no_axes"``: the parent-text embedding only, a (1, d) block (the Bi-LSTM reads a sequence of
  one vector). Applied to every split.
* ``"shuffled_axes"``: in the *training* split only, each sample's eight axis rows are permuted
  by a permutation drawn for that sample (once, from the run's seed); the parent text stays in
  row 0 and validation/test keep the fixed order. It measures how much the models rely on the
  axis order.
"""

from __future__ import annotations

import numpy as np

from .errors import BadConfigError

ABLATIONS: tuple[str, ...] = ("none", "no_axes", "shuffled_axes")


def check_ablation(name: str) -> str:
    """``name`` if it is one of :data:`ABLATIONS`, else :class:`BadConfigError`."""
    if name not in ABLATIONS:
        raise BadConfigError(f"unknown ablation {name!r}; expected one of {', '.join(ABLATIONS)}")
    return name


def apply_ablation(features: np.ndarray, ablation: str, *, split: str,
                   rng: np.random.Generator | None = None) -> np.ndarray:
    """The model input for ``split`` under ``ablation``, from feature blocks (n, 9, d).

    Returns a new array (the input is never modified): (n, 9, d) for "none" and
    "shuffled_axes", (n, 1, d) for "no_axes". "shuffled_axes" needs ``rng`` for the training
    split and is the identity on other splits.
    """
    check_ablation(ablation)
    blocks = np.asarray(features)
    if blocks.ndim != 3:
        raise ValueError(f"feature blocks must have shape (n, rows, d), got {blocks.shape}")
    if ablation == "no_axes":
        return blocks[:, :1, :].copy()
    if ablation == "none" or split != "train":
        return blocks.copy()
    if rng is None:
        raise ValueError("the shuffled_axes ablation needs a random generator for the "
                         "training split")
    n_axes = blocks.shape[1] - 1
    order = np.argsort(rng.random((blocks.shape[0], n_axes)), axis=1) + 1
    rows = np.concatenate([np.zeros((blocks.shape[0], 1), dtype=order.dtype), order], axis=1)
    return np.take_along_axis(blocks, rows[:, :, None], axis=1)
