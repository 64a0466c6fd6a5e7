"""The annotation's content: what an annotator builds on one sample, as stored.

An :class:`AnnotationContent` holds the segmentation, an axis per segment, curve points, fitted
or fine-tuned parameters, flags and a note, and for a context pair the second curve (given the
follow-up) and the change. It is the shared noun of the house: the workbench builds it, review
settles and edits it, corpus imports and exports it, and the pairs protocol reads its second
curve. What a *submit* needs of it is the workbench's (:mod:`annotation.workbench.protocol`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any, Callable, Mapping

from annotation.axes import AXIS_NAMES, is_axis_name
from annotation.curves import MAX_POINTS
from annotation.flag_reasons import ANNOTATOR_FLAG_CODES
from annotation.segmentation import Segmentation
from annotation.text_limits import NOTE_MAX_CHARS

#: The curve fields of a pair's second curve (the target given the follow-up) by the first
#: curve's field each stands beside.
CONTEXT_FIELDS: dict[str, str] = {
    "points": "context_points", "xi": "context_xi", "omega": "context_omega",
    "alpha": "context_alpha", "scale": "context_scale", "rmse": "context_rmse",
    "params_source": "context_params_source",
}
#: The change labels of a context pair by their index in the release (decreased 0, neutral 1,
#: increased 2): the follow-up makes the target's remaining time shorter, leaves it, or makes it
#: longer (``annotation.pairs.change`` reads one from two curves).
CHANGE_LABELS: tuple[str, ...] = ("decreased", "neutral", "increased")
#: The choice that confirms the label the curves give.
CONFIRM_DERIVED = "derived"
#: The parts of an annotation's content a protocol may use (``ProjectProtocol.content_parts``),
#: by the fields each is stored in: what the workbench edits, review settles and an export carries.
SEGMENTS, CURVE, CONTEXT, CHANGE = "segments", "curve", "context", "change"
CONTENT_PARTS: dict[str, tuple[str, ...]] = {
    SEGMENTS: ("boundaries", "segment_axes"),
    CURVE: ("points", "xi", "omega", "alpha", "scale", "rmse", "params_source"),
    CONTEXT: tuple(CONTEXT_FIELDS.values()),
    CHANGE: ("change",),
    "flags": ("flags", "note"),
}
#: What an annotator says of a pair's change at its last step: "" nothing yet (a submit asks for
#: a choice, so no pair is labelled by the annotator's silence), "derived" the label the two
#: curves give, confirmed, or a label of their own (an override when the curves give another).
CHANGE_CHOICES: tuple[str, ...] = ("", CONFIRM_DERIVED, *CHANGE_LABELS)


class ContentError(ValueError):
    """Malformed annotation content (message is user-facing)."""


@dataclass(frozen=True)
class AnnotationContent:
    """The annotator's work on one sample, as stored (parameters in base-1.1 log minutes)."""

    boundaries: tuple[int, ...] = (0,)
    segment_axes: tuple[str | None, ...] = (None,)
    points: tuple[tuple[float, float], ...] = ()
    xi: float | None = None
    omega: float | None = None
    alpha: float | None = None
    scale: float | None = None
    rmse: float | None = None
    params_source: str = "fit"  # "fit" or "manual" (fine-tuned by hand)
    flags: tuple[str, ...] = ()
    note: str = ""
    # a context pair's curve of the target given the follow-up (empty for single texts), and the
    # annotator's choice of its change (CHANGE_CHOICES: "" none yet, "derived" or a label)
    context_points: tuple[tuple[float, float], ...] = ()
    context_xi: float | None = None
    context_omega: float | None = None
    context_alpha: float | None = None
    context_scale: float | None = None
    context_rmse: float | None = None
    context_params_source: str = "fit"
    change: str = ""

    def segmentation(self, n_tokens: int) -> Segmentation:
        return Segmentation.from_boundaries(self.boundaries, n_tokens)

    @property
    def has_parameters(self) -> bool:
        return None not in (self.xi, self.omega, self.alpha)

    @property
    def has_context_parameters(self) -> bool:
        return None not in (self.context_xi, self.context_omega, self.context_alpha)

    @property
    def has_context(self) -> bool:
        """Whether a curve given the follow-up was started (points or parameters)."""
        return bool(self.context_points) or self.has_context_parameters

    def swapped_curves(self) -> "AnnotationContent":
        """The same work with the two curves exchanged: the curve edits of the workbench apply to
        the first curve, so an edit of the curve given the follow-up is made on the swapped
        content and swapped back.

        >>> c = AnnotationContent(points=((1.0, 1.0),), xi=5.0, context_xi=9.0)
        >>> (c.swapped_curves().xi, c.swapped_curves().context_points, c.swapped_curves().swapped_curves() == c)
        (9.0, ((1.0, 1.0),), True)
        """
        changes = {}
        for first, second in CONTEXT_FIELDS.items():
            changes[first], changes[second] = getattr(self, second), getattr(self, first)
        return replace(self, **changes)

    def with_context_copied(self) -> "AnnotationContent":
        """The curve given the follow-up started as a copy of the first curve (step 3 opens
        with the target's curve, drawn faintly behind, for the annotator to move)."""
        return replace(self, **{second: getattr(self, first) for first, second in CONTEXT_FIELDS.items()})

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["boundaries"] = list(self.boundaries)
        data["segment_axes"] = list(self.segment_axes)
        data["points"] = [list(p) for p in self.points]
        data["flags"] = list(self.flags)
        data["context_points"] = [list(p) for p in self.context_points]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "AnnotationContent":
        """Build from untrusted JSON-like data, checking types; raises ContentError naming the
        field and what it holds (:data:`FIELD_SHAPES`), never Python's words for the slip."""
        if not isinstance(data, Mapping):
            raise ContentError("the annotation data is malformed (not a JSON object)")
        boundaries = _read(data, "boundaries", lambda v: tuple(_as_int(b) for b in _listed(v or (0,))))
        axes = _read(data, "segment_axes", lambda v: tuple(_optional_text(a) for a in _listed(v or (None,))))
        points = _read(data, "points", _points)
        params = {k: _read(data, k, _opt_float) for k in ("xi", "omega", "alpha", "scale", "rmse")}
        flags = _read(data, "flags", lambda v: tuple(_text(f) for f in _listed(v or ())))
        note = _read(data, "note", lambda v: _text(v or ""))
        source = _read(data, "params_source", lambda v: _text(v or "fit"))
        context_points = _read(data, "context_points", _points)
        context = {f"context_{k}": _read(data, f"context_{k}", _opt_float)
                   for k in ("xi", "omega", "alpha", "scale", "rmse")}
        context_source = _read(data, "context_params_source", lambda v: _text(v or "fit"))
        change = _read(data, "change", lambda v: _text(v or ""))
        content = cls(boundaries, axes, points, params_source=source, flags=flags, note=note,
                      context_points=context_points, context_params_source=context_source,
                      change=change, **params, **context)
        content.check_shape()
        return content

    def check_shape(self) -> None:
        """Checks that hold for drafts too: known axes and flags, sane sizes."""
        if len(self.segment_axes) != len(self.boundaries):
            raise ContentError("there must be exactly one axis slot per segment")
        for a in self.segment_axes:
            if a is not None and not is_axis_name(a):
                raise ContentError(f"unknown axis {a!r}; expected one of {', '.join(AXIS_NAMES)}")
        if len(self.points) > MAX_POINTS:
            raise ContentError(f"at most {MAX_POINTS} curve points are allowed")
        for code in self.flags:
            if code not in ANNOTATOR_FLAG_CODES:
                raise ContentError(f"unknown flag {code!r}")
        if len(set(self.flags)) != len(self.flags):
            raise ContentError("a flag is listed twice")
        if len(self.note) > NOTE_MAX_CHARS:
            raise ContentError(f"the note is longer than {NOTE_MAX_CHARS} characters")
        if self.params_source not in ("fit", "manual") or self.context_params_source not in ("fit", "manual"):
            raise ContentError("unknown parameter source")
        if len(self.context_points) > MAX_POINTS:
            raise ContentError(f"at most {MAX_POINTS} curve points are allowed")
        for name in ("xi", "omega", "alpha", "scale", "rmse"):
            for field_name in (name, CONTEXT_FIELDS[name]):
                v = getattr(self, field_name)
                if v is not None and not math.isfinite(v):
                    raise ContentError(f"{field_name} must be a finite number")
        for omega in (self.omega, self.context_omega):
            if omega is not None and omega <= 0:
                raise ContentError("the scale ω must be positive")
        if self.change not in CHANGE_CHOICES:
            raise ContentError("the change must be one of: " + ", ".join(c for c in CHANGE_CHOICES if c))


#: What each field of an annotation's data holds, as a refusal of a badly typed one says it.
FIELD_SHAPES: dict[str, str] = {
    "boundaries": "a list of whole numbers (the tokens where segments start)",
    "segment_axes": "a list of axis names",
    "points": "a list of [x, y] pairs of finite numbers",
    "context_points": "a list of [x, y] pairs of finite numbers",
    "flags": "a list of flag names",
    "note": "text", "params_source": "text", "context_params_source": "text", "change": "text",
}


def _read(data: Mapping[str, Any], field: str, convert: Callable[[Any], Any]) -> Any:
    """``convert`` of the field's value; :class:`ContentError` naming the field when it fails."""
    try:
        return convert(data.get(field))
    except (TypeError, ValueError, IndexError, KeyError, OverflowError):
        raise ContentError(f"{field} must be {FIELD_SHAPES.get(field, 'a finite number')}") from None


def _listed(v: Any) -> list[Any] | tuple[Any, ...]:
    if not isinstance(v, (list, tuple)):
        raise TypeError("not a list")
    return v


def _points(v: Any) -> tuple[tuple[float, float], ...]:
    pairs = _listed(v or ())
    if not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in pairs):
        raise ValueError("not pairs")
    return tuple((_as_float(x), _as_float(y)) for x, y in pairs)


def _text(v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError("not text")
    return v


def _optional_text(v: Any) -> str | None:
    return None if v is None else _text(v)


def _as_int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not float(v).is_integer():
        raise ValueError(f"{v!r} is not a whole number")
    return int(v)


def _as_float(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{v!r} is not a number")
    f = float(v)
    if not math.isfinite(f):
        raise ValueError("numbers must be finite")
    return f


def _opt_float(v: Any) -> float | None:
    return None if v is None else _as_float(v)
