"""Hyper-parameter grids of the baselines: the parameters each model takes, their defaults, and
validation of user grids.

A grid maps parameter names to lists of values; every combination is trained and the one with
the lowest validation MSE is kept. A user grid only needs the parameters it changes — the rest
come from :data:`DEFAULT_GRIDS`. The defaults are deliberately small so all five baselines train
in minutes on a laptop CPU (see ``bench/training.py``); widen them for a paper-grade search.

Model names: ``linear`` (ordinary least squares for alpha 0, ridge otherwise), ``svr`` (RBF
support-vector regression, one per target), ``xgboost`` (gradient-boosted trees), ``ffnn``
(feed-forward network), ``bilstm`` (bidirectional LSTM over the 9 embeddings) and ``mean`` (a
reference that predicts the training mean; not run by default).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from .errors import BadGridError, UnknownModelError

#: the baselines run by default, in table order
BASELINE_MODELS: tuple[str, ...] = ("linear", "svr", "xgboost", "ffnn", "bilstm")
#: every model name a configuration may use
MODEL_NAMES: tuple[str, ...] = (*BASELINE_MODELS, "mean")


@dataclass(frozen=True)
class ParamSpec:
    """One tunable parameter: its value type, a validity check and the rule in words."""

    kind: type
    check: Callable[[Any], bool]
    rule: str


def _positive(v: Any) -> bool:
    return v > 0


def _non_negative(v: Any) -> bool:
    return v >= 0


def _fraction(v: Any) -> bool:
    return 0 <= v < 1


_NN_PARAMS: Mapping[str, ParamSpec] = {
    "hidden_size": ParamSpec(int, _positive, "an integer > 0"),
    "dropout": ParamSpec(float, _fraction, "a number in [0, 1)"),
    "learning_rate": ParamSpec(float, _positive, "a number > 0"),
    "weight_decay": ParamSpec(float, _non_negative, "a number >= 0"),
}

PARAM_SPECS: Mapping[str, Mapping[str, ParamSpec]] = {
    "linear": {
        "alpha": ParamSpec(float, _non_negative, "a number >= 0 (0 = ordinary least squares)"),
    },
    "svr": {
        "C": ParamSpec(float, _positive, "a number > 0"),
        "epsilon": ParamSpec(float, _non_negative, "a number >= 0"),
    },
    "xgboost": {
        "max_depth": ParamSpec(int, _positive, "an integer > 0"),
        "n_estimators": ParamSpec(int, _positive, "an integer > 0"),
        "learning_rate": ParamSpec(float, _positive, "a number > 0"),
        "colsample_bytree": ParamSpec(float, lambda v: 0 < v <= 1, "a number in (0, 1]"),
    },
    "ffnn": {**_NN_PARAMS, "hidden_layers": ParamSpec(int, _positive, "an integer > 0")},
    "bilstm": {**_NN_PARAMS, "num_layers": ParamSpec(int, _positive, "an integer > 0")},
    "mean": {},
}

DEFAULT_GRIDS: Mapping[str, Mapping[str, tuple]] = {
    "linear": {"alpha": (0.0, 1.0, 10.0, 100.0)},
    "svr": {"C": (1.0, 10.0), "epsilon": (0.1,)},
    "xgboost": {"max_depth": (3, 5), "n_estimators": (300,), "learning_rate": (0.1,),
                "colsample_bytree": (0.5,)},
    "ffnn": {"hidden_size": (256,), "hidden_layers": (2,), "dropout": (0.1,),
             "learning_rate": (1e-3,), "weight_decay": (0.0,)},
    "bilstm": {"hidden_size": (128,), "num_layers": (1,), "dropout": (0.1,),
               "learning_rate": (1e-3,), "weight_decay": (0.0,)},
    "mean": {},
}

#: most combinations one grid may expand to (a guard against accidental huge searches)
MAX_GRID_POINTS = 256


def check_model_name(name: str) -> str:
    """``name`` if it is a known model, else :class:`UnknownModelError` listing the choices."""
    if name not in PARAM_SPECS:
        raise UnknownModelError(f"unknown model {name!r}; expected one of {', '.join(MODEL_NAMES)}")
    return name


def _coerce(model: str, name: str, spec: ParamSpec, value: Any) -> Any:
    bad = BadGridError(f"grid for {model!r}: {name!r} values must each be {spec.rule}, "
                       f"got {value!r}")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise bad
    if spec.kind is int:
        if isinstance(value, float) and not value.is_integer():
            raise bad
        value = int(value)
    else:
        if not math.isfinite(value):
            raise bad
        value = float(value)
    if not spec.check(value):
        raise bad
    return value


def check_grid(model: str, grid: Mapping[str, Any] | None = None) -> dict[str, tuple]:
    """The complete grid for ``model``: the user's values over :data:`DEFAULT_GRIDS`.

    Each value may be a single value or a non-empty list; values are converted to the
    parameter's type. Raises :class:`UnknownModelError` for an unknown model and
    :class:`BadGridError` for an unknown parameter, an empty list, a bad value or a grid of more
    than :data:`MAX_GRID_POINTS` combinations.
    """
    check_model_name(model)
    specs = PARAM_SPECS[model]
    if grid is not None and not isinstance(grid, Mapping):
        raise BadGridError(f"grid for {model!r} must be a mapping of parameter -> list of values")
    complete = {name: tuple(values) for name, values in DEFAULT_GRIDS[model].items()}
    for name, values in (grid or {}).items():
        if name not in specs:
            allowed = ", ".join(specs) or "none"
            raise BadGridError(f"grid for {model!r}: unknown parameter {name!r} "
                               f"(parameters: {allowed})")
        if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, int, float)):
            raise BadGridError(f"grid for {model!r}: {name!r} must be a list of values")
        seq = list(values) if isinstance(values, Sequence) else [values]
        if not seq:
            raise BadGridError(f"grid for {model!r}: {name!r} has no values")
        complete[name] = tuple(dict.fromkeys(_coerce(model, name, specs[name], v) for v in seq))
    size = math.prod(len(v) for v in complete.values())
    if size > MAX_GRID_POINTS:
        raise BadGridError(f"grid for {model!r} expands to {size} combinations; at most "
                           f"{MAX_GRID_POINTS} are allowed")
    return complete


def expand_grid(grid: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Every combination of a complete grid, in a fixed order (the first parameter varies
    slowest); an empty grid has one combination, ``{}``."""
    names = list(grid)
    return [dict(zip(names, combo)) for combo in itertools.product(*(grid[n] for n in names))]
