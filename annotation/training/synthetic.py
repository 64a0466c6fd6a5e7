"""Synthetic exports for tests and benchmarks: learnable texts with known targets.

Each text reports an event that lasts some *unit* of time ("is closed for a few days") and
optionally carries clauses of the other axes ("every Friday", "if the weather holds"...). The
targets are built so a model can learn them from the text:

* location ξ: the log-time position of a typical duration for the unit (minutes → 10 min,
  hours → 3 h, days → 3 days, ..., decades → 20 years), plus small noise;
* scale ω: wider for recurrent and generic clauses, narrower for negation;
* skewness α: positive with an intention clause, negative with a static one.

The folder has the exporter's layout (see :mod:`annotation.training.data`); the benchmark not
asked for gets empty split files. Deterministic for a given seed.
"""

from __future__ import annotations

import json
import math
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
            noise: float) -> dict:
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
             - 3.0 * bool(axes["negation_axis"]) + abs(float(rng.normal(0.0, 1.0)))) * step
    alpha = (1.5 * bool(axes["intention_axis"]) - 1.5 * bool(axes["static_axis"])
             + float(rng.normal(0.0, 0.5)))
    return {
        "_id": f"B{benchmark}-{index:05d}",
        "parent_text": text,
        "axes": axes,
        "target_values": dict(zip(TARGET_KEYS, (round(xi, 4), round(omega, 4), round(alpha, 4)))),
    }


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
    records = [_sample(rng, i, benchmark, base, noise) for i in range(n)]
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
