"""A set of predictions of an export's test split beside the trivial references
(:mod:`annotation.training.references`): the references scored as the predictions are
(:func:`~annotation.training.scoring.score_predictions`) and the predictions' MSE against each on
an interval — what ``chronocept score`` and the Training page's scorer report with every file."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from annotation.timeaxis import DEFAULT_BASE

from .references import Comparison, compare_mse, reference_predictions
from .scoring import ModelScore, score_predictions
from .targets import fit_target_scaler


def score_against_references(gold: np.ndarray, pred: np.ndarray, train: np.ndarray,
                             train_axes: Sequence[Sequence[str]], test_axes: Sequence[Sequence[str]], *,
                             base: float = DEFAULT_BASE, resamples: int | None = None
                             ) -> tuple[dict[str, ModelScore], dict[str, Comparison]]:
    """The references' scores on the test split ``gold`` (reference name → score) and how
    ``pred`` reads against each (all ``(n, 3)`` in log ``base``; ``train`` the training split's
    targets, which z-score them; the axes each sample's axis texts).

    Examples:
        >>> rng = np.random.default_rng(3)
        >>> train = np.column_stack([rng.uniform(30, 90, 40), rng.uniform(5, 15, 40), rng.normal(0, 1, 40)])
        >>> gold = train[:12] + 0.5
        >>> scores, against = score_against_references(gold, gold, train, [("a",)] * 40, [("a",)] * 12,
        ...                                            resamples=100)
        >>> sorted(scores), against["reference_mean"].verdict
        (['reference_axis_mean', 'reference_mean'], 'beats')
    """
    references = reference_predictions(train, train_axes, test_axes)
    scaler = fit_target_scaler(train)
    z_true, z_pred = scaler.transform(gold), scaler.transform(pred)
    scores = {name: score_predictions(gold, ref, train, base=base, resamples=resamples)
              for name, ref in references.items()}
    against = {name: compare_mse(z_true, z_pred, scaler.transform(ref), reference=name, resamples=resamples)
               for name, ref in references.items()}
    return scores, against


__all__ = ["score_against_references"]
