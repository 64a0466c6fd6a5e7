"""Synthetic exports for tests and benchmarks: learnable texts with known targets.

Each text reports an event that lasts some *unit* of time ("is closed for a few days") and
optionally carries clauses of the other axes ("every Friday", "if the weather holds"...). The
targets are built so a model can learn them from the text:

* location ξ: the log-time position of a typical duration for the unit (minutes → 10 min,
  hours → 3 h, days → 3 days, ..., decades → 20 years), plus small noise;
* scale ω: wider for recurrent and generic clauses, narrower for negation;
* skewness α: positive with an intention clause, negative with a static one.

:func:`doubly_annotated_pool` adds two simulated annotators and their resolved gold, for the
model-in-the-loop benchmarks (``bench/model_audit.py``, ``bench/active_order.py``).

The folder has the exporter's layout (see :mod:`annotation.training.data`); the benchmark not
asked for gets empty split files. Deterministic for a given seed.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from annotation.axes import EXPORT_KEYS
from annotation.timeaxis import DEFAULT_BASE, minutes_to_x

from .data import MANIFEST_FILE, SPLIT_FILES, SPLITS, TARGET_KEYS

#: duration units mentioned in the texts and a typical duration of each, in minutes
UNITS: tuple[tuple[str, float], ...] = (
    ("minutes", 10.0),
    ("hours", 180.0),
    ("days", 3 * 1440.0),
    ("weeks", 2 * 10080.0),
    ("months", 3 * 30 * 1440.0),
    ("years", 2 * 365.25 * 1440.0),
    ("decades", 20 * 365.25 * 1440.0),
)

_SUBJECTS = (
    "The bakery on Elm Street", "The city council", "Our football club", "The museum",
    "My neighbour", "The river ferry", "The new library", "The night market",
    "The hospital wing", "The school choir", "The old bridge", "The train company",
)
_MAIN = (
    "is closed for a few {unit}", "is hosting a festival that lasts several {unit}",
    "is repaving the main road over the next {unit}", "is running a trial for some {unit}",
    "has a temporary exhibition open for {unit}", "is offering free entry for a couple of {unit}",
)
#: one clause pool per non-main axis, keyed by export key
_CLAUSES: dict[str, tuple[str, ...]] = {
    "static_axis": ("while the owner is abroad", "since the roof is under repair"),
    "generic_axis": ("as such places usually do", "because crowds always come in summer"),
    "hypothetical_axis": ("if the weather holds", "unless the funding falls through"),
    "negation_axis": ("but the shop next door is not affected", "and no tickets are sold"),
    "intention_axis": ("and plans to reopen with a party", "and wants to attract new visitors"),
    "opinion_axis": ("which locals think is a great idea", "and critics call it overdue"),
    "recurrent_axis": ("every Friday", "each spring"),
}


def _sample(rng: np.random.Generator, index: int, benchmark: int, base: float,
            noise: float, shape_noise: float = 1.0) -> dict:
    unit, minutes = UNITS[int(rng.integers(len(UNITS)))]
    main = f"{_SUBJECTS[int(rng.integers(len(_SUBJECTS)))]} " \
           f"{_MAIN[int(rng.integers(len(_MAIN)))].format(unit=unit)}"
    axes = {key: "" for key in EXPORT_KEYS}
    axes["main_outcome_axis"] = main
    clauses = []
    for key in EXPORT_KEYS[1:]:
        if rng.random() < 0.3:
            pool = _CLAUSES[key]
            axes[key] = pool[int(rng.integers(len(pool)))]
            clauses.append(axes[key])
    text = " ".join([main, *clauses]) + "."
    xi = float(minutes_to_x(minutes, base)) + float(rng.normal(0.0, noise))
    step = math.log(1.1) / math.log(base)   # widths are set in base-1.1 steps
    omega = (8.0 + 6.0 * bool(axes["recurrent_axis"]) + 4.0 * bool(axes["generic_axis"])
             - 3.0 * bool(axes["negation_axis"])
             + shape_noise * abs(float(rng.normal(0.0, 1.0)))) * step
    alpha = (1.5 * bool(axes["intention_axis"]) - 1.5 * bool(axes["static_axis"])
             + shape_noise * float(rng.normal(0.0, 0.5)))
    return {
        "_id": f"B{benchmark}-{index:05d}",
        "parent_text": text,
        "axes": axes,
        "target_values": dict(zip(TARGET_KEYS, (round(xi, 4), round(omega, 4), round(alpha, 4)))),
    }


def synthetic_records(n: int, seed: int = 0, *, benchmark: int = 1,
                      base: float = DEFAULT_BASE, noise: float = 2.0,
                      shape_noise: float = 1.0) -> list[dict]:
    """``n`` export records (``_id``, ``parent_text``, ``axes``, ``target_values``) whose words
    determine their targets, as :func:`write_synthetic_export` writes them.

    ``noise`` is the standard deviation of ξ around the unit's typical duration (log steps of
    ``base``); ``shape_noise`` scales the random parts of ω (a half-normal of SD 1 step) and α
    (a normal of SD 0.5) — 0 makes all three a function of the words alone (with ``noise=0``).

    Examples:
        >>> a, b = synthetic_records(2, seed=1, noise=0.0, shape_noise=0.0)
        >>> a["_id"], sorted(a["target_values"]) == sorted(TARGET_KEYS)
        ('B1-00000', True)
        >>> synthetic_records(2, seed=1) == synthetic_records(2, seed=1)
        True
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    rng = np.random.default_rng(seed)
    return [_sample(rng, i, benchmark, base, noise, shape_noise) for i in range(n)]


#: default standard deviations of a simulated annotator's error on ξ, ω, α (log steps, log
#: steps, shape units): about what separates two careful annotators' curves of one text
ANNOTATOR_SD: tuple[float, float, float] = (3.0, 1.5, 0.4)
#: the levels of the proportional curve a drawing annotator places points at: the peak, half
#: validity either side, and "faded" (20 %) either side — SPEC section 3's five points
DRAWN_LEVELS: tuple[tuple[float, int], ...] = ((1.0, 0), (0.5, -1), (0.5, 1), (0.2, -1), (0.2, 1))
#: a drawing annotator's hand: SD of a point's time (log steps) and of its height
DRAWN_SD: tuple[float, float] = (2.0, 0.04)


def _crossing(curve: tuple[float, float, float], peak: float, level: float, side: int) -> float:
    """Where the proportional curve is at ``level`` on ``side`` (−1 before, +1 after) of the
    peak; NaN when that is off the chart."""
    from scipy import optimize

    from annotation.curves.density import skew_normal_pdf
    from annotation.timeaxis import X_MAX, X_MIN

    top = skew_normal_pdf(peak, *curve)
    end = X_MIN if side < 0 else X_MAX
    if level >= 1.0:
        return peak
    if skew_normal_pdf(end, *curve) >= level * top:
        return math.nan
    return float(optimize.brentq(lambda x: skew_normal_pdf(x, *curve) - level * top,
                                 *sorted((peak, end))))


def drawn_annotation(curve: tuple[float, float, float], rng: np.random.Generator,
                     sd: tuple[float, float] = DRAWN_SD) -> tuple[float, float, float] | None:
    """A simulated annotator's curve: points placed at :data:`DRAWN_LEVELS` of ``curve``'s
    proportional curve with hand jitter ``sd`` (time, height), then fitted as the workbench
    does (:func:`annotation.curves.fit_curve`); None when the points cannot be fitted.

    Examples:
        >>> drawn = drawn_annotation((60.0, 10.0, 0.0), np.random.default_rng(0), sd=(0.0, 0.0))
        >>> [round(v, 2) for v in drawn]
        [60.0, 10.0, 0.0]
    """
    from annotation.curves import CurveFitError, fit_curve
    from annotation.curves.density import skew_normal_mode
    from annotation.timeaxis import X_MAX, X_MIN

    peak = min(max(skew_normal_mode(*curve), X_MIN), X_MAX)
    points = []
    for level, side in DRAWN_LEVELS:
        x = _crossing(curve, peak, level, side)
        if math.isnan(x):
            continue
        jitter_x, jitter_y = rng.normal(0.0, 1.0, 2) * sd
        y = 1.0 if level >= 1.0 else min(max(level + jitter_y, 0.01), 0.95)
        points.append((min(max(x + jitter_x, X_MIN), X_MAX), y))
    try:
        fit = fit_curve(points)
    except CurveFitError:
        return None
    return (fit.xi, fit.omega, fit.alpha)


@dataclass(frozen=True)
class DoublyAnnotatedPool:
    """A generated pool annotated twice: ``texts`` (parent texts), ``axes`` (each text's eight
    axis texts in :data:`~annotation.axes.EXPORT_KEYS` order), ``truth`` (n, 3) the curve
    each text's words and its draw give it, ``annotations`` (2, n, 3) the two simulated
    annotators' curves (truth plus independent Gaussian error, clipped to the fit's bounds) and
    ``gold`` (n, 3) their resolution — the mean of the two, as the automatic resolution does."""

    texts: tuple[str, ...]
    axes: tuple[tuple[str, ...], ...]
    truth: np.ndarray
    annotations: np.ndarray
    gold: np.ndarray


def doubly_annotated_pool(n: int, seed: int = 0, *, annotators: str = "parameters",
                          annotator_sd: tuple[float, float, float] = ANNOTATOR_SD,
                          drawn_sd: tuple[float, float] = DRAWN_SD,
                          noise: float = 2.0, shape_noise: float = 1.0) -> DoublyAnnotatedPool:
    """``n`` :func:`synthetic_records` (base 1.1) annotated by two simulated annotators.

    ``annotators="parameters"``: each adds independent Gaussian errors of SD ``annotator_sd``
    to ξ, ω, α. ``annotators="points"``: each places five points on the text's curve with hand
    jitter ``drawn_sd`` and the workbench's fit turns them into parameters
    (:func:`drawn_annotation`; parameter errors are then correlated, and α is loosely pinned
    on a nearly symmetric curve, as with people); a text whose points cannot be fitted gets
    the parameter errors instead.

    Examples:
        >>> pool = doubly_annotated_pool(4, seed=2)
        >>> pool.annotations.shape, bool(np.allclose(pool.gold, pool.annotations.mean(axis=0)))
        ((2, 4, 3), True)
        >>> doubly_annotated_pool(2, seed=2, annotators="points").gold.shape
        (2, 3)
    """
    from annotation.curves.limits import ALPHA_BOUNDS, OMEGA_BOUNDS, XI_BOUNDS

    if annotators not in ("parameters", "points"):
        raise ValueError(f"annotators must be 'parameters' or 'points', got {annotators!r}")
    records = synthetic_records(n, seed, noise=noise, shape_noise=shape_noise)
    truth = np.array([[r["target_values"][key] for key in TARGET_KEYS] for r in records],
                     dtype=float).reshape(n, 3)
    rng = np.random.default_rng([seed, 2])
    error = rng.normal(0.0, 1.0, (2, n, 3)) * np.asarray(annotator_sd, dtype=float)
    bounds = np.array([XI_BOUNDS, OMEGA_BOUNDS, ALPHA_BOUNDS], dtype=float)
    annotations = np.clip(truth + error, bounds[:, 0], bounds[:, 1])
    if annotators == "points":
        for who in range(2):
            for i in range(n):
                drawn = drawn_annotation(tuple(truth[i]), rng, drawn_sd)
                if drawn is not None:
                    annotations[who, i] = drawn
    return DoublyAnnotatedPool(texts=tuple(r["parent_text"] for r in records),
                               axes=tuple(tuple(r["axes"][key] for key in EXPORT_KEYS)
                                          for r in records), truth=truth,
                               annotations=annotations, gold=annotations.mean(axis=0))


def write_synthetic_export(folder: str | Path, n: int, seed: int = 0, *, benchmark: int = 1,
                           export_id: str | int | None = None, base: float = DEFAULT_BASE,
                           noise: float = 2.0,
                           fractions: tuple[float, float, float] = (0.7, 0.2, 0.1)) -> Path:
    """Write a synthetic export of ``n`` samples into ``folder`` (created) and return it.

    ``noise`` is the standard deviation of ξ around the unit's typical duration (in log steps of
    ``base``); ``fractions`` the train/validation/test shares (each split gets at least one
    sample when ``n`` ≥ 3). The export id defaults to ``"synthetic-<seed>-<n>"``.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    folder = Path(folder)
    rng = np.random.default_rng(seed)
    records = [_sample(rng, i, benchmark, base, noise) for i in range(n)]   # as synthetic_records
    order = rng.permutation(n)
    n_valid = max(int(round(n * fractions[1])), 1 if n >= 3 else 0)
    n_test = max(int(round(n * fractions[2])), 1 if n >= 3 else 0)
    n_train = n - n_valid - n_test
    cuts = {"train": order[:n_train], "validation": order[n_train:n_train + n_valid],
            "test": order[n_train + n_valid:]}
    for number in (1, 2):
        sub = folder / f"benchmark_{number}"
        sub.mkdir(parents=True, exist_ok=True)
        for split in SPLITS:
            rows = [records[i] for i in sorted(cuts[split])] if number == benchmark else []
            (sub / SPLIT_FILES[split]).write_text(
                "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    manifest = {
        "export_id": export_id if export_id is not None else f"synthetic-{seed}-{n}",
        "base": base,
        "seed": seed,
        "synthetic": True,
        "counts": {f"benchmark_{benchmark}": {s: int(len(cuts[s])) for s in SPLITS}},
    }
    (folder / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return folder
