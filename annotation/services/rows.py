"""Rows ↔ domain values: the one place where a stored annotation or gold row becomes a domain
value, and a domain value becomes the columns that store it.

Argilla 2's ``from_model`` / ``api_model`` pair is the shape: every service reads an annotation
through :func:`annotation_content` and a gold row through :func:`stored_gold`, and writes them
through :func:`content_values` / :func:`gold_values`. Rows are read by column *name*, so a
function accepts an ORM object as well as a ``select(...)`` row whose columns carry the same
names (``Row`` objects answer attribute access by label); a fast path that decodes JSON columns
itself passes the decoded values to :func:`content_from_columns` by keyword.

Nothing here opens a session or a transaction: these are pure translations.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable, Sequence

from sqlalchemy import Text, cast

from annotation.agreement.ratings import Rating
from annotation.agreement.reference_agreement import ReferenceRow
from annotation.review.pair_settling import change_choice
from annotation.export.tvcp import PairGold
from annotation.review.resolution import EDITED, Resolution
from annotation.content import CONTEXT_FIELDS, AnnotationContent
from db.engine import decode_json_texts

#: The annotation columns that hold an annotator's work (``annotations`` and ``staged_annotations``).
CONTENT_COLUMNS = ("boundaries", "segment_axes", "points", "xi", "omega", "alpha", "scale", "rmse",
                   "params_source", "flags", "note", *CONTEXT_FIELDS.values(), "change")


def content_from_columns(*, boundaries: Sequence[int] | None, segment_axes: Sequence[str | None] | None,
                         points: Iterable[Sequence[float]] | None = None, xi: float | None = None,
                         omega: float | None = None, alpha: float | None = None,
                         scale: float | None = None, rmse: float | None = None,
                         params_source: str | None = None, flags: Iterable[str] | None = None,
                         note: str | None = None,
                         context_points: Iterable[Sequence[float]] | None = None,
                         context_xi: float | None = None, context_omega: float | None = None,
                         context_alpha: float | None = None, context_scale: float | None = None,
                         context_rmse: float | None = None, context_params_source: str | None = None,
                         change: str | None = None) -> AnnotationContent:
    """The work stored in these column values. Empty columns (a fresh draft's, or a NULL read
    by an outer join) read as empty work: one segment, no axis, no points, no flags, no note (and
    for a context pair no second curve and no change chosen).

    >>> c = content_from_columns(boundaries=[0, 3], segment_axes=["static", None], points=[[10, 1]])
    >>> (c.boundaries, c.segment_axes, c.points, c.xi, c.params_source, c.flags, c.note, c.context_points, c.change)
    ((0, 3), ('static', None), ((10.0, 1.0),), None, 'fit', (), '', (), '')
    >>> content_from_columns(boundaries=None, segment_axes=[]).boundaries
    (0,)
    """
    return AnnotationContent(
        boundaries=tuple(boundaries or (0,)), segment_axes=tuple(segment_axes or (None,)),
        points=tuple((float(x), float(y)) for x, y in (points or ())),
        xi=xi, omega=omega, alpha=alpha, scale=scale, rmse=rmse,
        params_source=params_source or "fit", flags=tuple(flags or ()), note=note or "",
        context_points=tuple((float(x), float(y)) for x, y in (context_points or ())),
        context_xi=context_xi, context_omega=context_omega, context_alpha=context_alpha,
        context_scale=context_scale, context_rmse=context_rmse,
        context_params_source=context_params_source or "fit", change=change or "")


def annotation_content(row: Any) -> AnnotationContent:
    """The work an annotation row stores (an ORM ``Annotation``, a ``StagedAnnotation`` or any
    row with the columns of :data:`CONTENT_COLUMNS` by name; a column the row lacks reads as
    empty).

    >>> from types import SimpleNamespace
    >>> row = SimpleNamespace(boundaries=[0, 2], segment_axes=["static", "main"], xi=40.0, note=None)
    >>> c = annotation_content(row)
    >>> (c.boundaries, c.segment_axes, c.xi, c.omega, c.note)
    ((0, 2), ('static', 'main'), 40.0, None, '')
    """
    return content_from_columns(**{name: getattr(row, name, None) for name in CONTENT_COLUMNS})


#: The content columns stored as JSON: :func:`content_select` reads them as text, to be decoded
#: in one go (several times faster on large reads than the JSON type's value-by-value decoding).
JSON_CONTENT_COLUMNS = ("boundaries", "segment_axes", "points", "flags", "context_points")


def content_select(model: Any) -> list[Any]:
    """The columns to select from ``model`` (``Annotation`` or ``StagedAnnotation``) for
    :func:`contents_of`: the plain content columns by name, the JSON ones as text labelled
    ``<name>_json``.

    >>> from db.models import Annotation
    >>> [c.name for c in content_select(Annotation)][-5:]
    ['boundaries_json', 'segment_axes_json', 'points_json', 'flags_json', 'context_points_json']
    """
    return [*(getattr(model, name) for name in CONTENT_COLUMNS if name not in JSON_CONTENT_COLUMNS),
            *(cast(getattr(model, name), Text).label(f"{name}_json") for name in JSON_CONTENT_COLUMNS)]


def contents_of(rows: Sequence[Any]) -> list[AnnotationContent]:
    """The work each of ``rows`` stores, rows selected with :func:`content_select`'s columns.

    >>> from types import SimpleNamespace
    >>> row = SimpleNamespace(boundaries_json="[0]", segment_axes_json='["static"]', points_json="[[5, 1]]",
    ...                       flags_json="[]", context_points_json="[]", xi=None, omega=None, alpha=None,
    ...                       scale=None, rmse=None, params_source="fit", note="", context_xi=None,
    ...                       context_omega=None, context_alpha=None, context_scale=None,
    ...                       context_rmse=None, context_params_source="fit", change="")
    >>> [(c.segment_axes, c.points) for c in contents_of([row])]
    [(('static',), ((5.0, 1.0),))]
    """
    decoded = decode_json_texts(rows, [f"{name}_json" for name in JSON_CONTENT_COLUMNS])
    plain = [name for name in CONTENT_COLUMNS if name not in JSON_CONTENT_COLUMNS]
    return [content_from_columns(**dict(zip(JSON_CONTENT_COLUMNS, json_values)),
                                 **{name: getattr(r, name) for name in plain})
            for r, json_values in zip(rows, decoded)]


def content_values(content: AnnotationContent) -> dict[str, object]:
    """The annotation columns that store ``content`` (as UPDATE or INSERT values).

    >>> content_values(AnnotationContent(points=((10, 1),)))["points"]
    [[10.0, 1.0]]
    """
    return {"boundaries": list(content.boundaries), "segment_axes": list(content.segment_axes),
            "points": [[float(x), float(y)] for x, y in content.points],
            "xi": content.xi, "omega": content.omega, "alpha": content.alpha,
            "scale": content.scale, "rmse": content.rmse, "params_source": content.params_source,
            "flags": list(content.flags), "note": content.note,
            "context_points": [[float(x), float(y)] for x, y in content.context_points],
            "context_xi": content.context_xi, "context_omega": content.context_omega,
            "context_alpha": content.context_alpha, "context_scale": content.context_scale,
            "context_rmse": content.context_rmse,
            "context_params_source": content.context_params_source, "change": content.change}


@dataclass(frozen=True)
class StoredGold:
    """A sample's gold as stored: the settled segmentation (a tuple of axis names per segment —
    a union can give a segment several), the curve (base-1.1 log minutes), how it was decided
    (``source``: ``auto``, a lead's decision, ``warmup``, …), by whom (a user id; None for
    automatic gold), when, the lead's note, confidence and error type."""

    sample_id: int
    boundaries: tuple[int, ...]
    segment_axes: tuple[tuple[str, ...], ...]
    xi: float
    omega: float
    alpha: float
    source: str
    decided_by: int | None
    decided_at: datetime
    note: str = ""
    confidence: int | None = None
    error_type: str = ""
    source_annotation_id: int | None = None
    id: int | None = None
    # a context pair's gold: the curve of the target given the follow-up and the change label
    context_xi: float | None = None
    context_omega: float | None = None
    context_alpha: float | None = None
    change: str = ""
    #: the label the gold curves give when ``change`` is a lead's override of it ("" otherwise)
    curves_change: str = ""

    @property
    def context_curve(self) -> tuple[float, float, float] | None:
        if None in (self.context_xi, self.context_omega, self.context_alpha):
            return None
        return (self.context_xi, self.context_omega, self.context_alpha)  # type: ignore[return-value]

    def resolution(self, n_tokens: int, sources: tuple[int | str, ...] = ()) -> Resolution:
        """The gold as a resolution over ``n_tokens`` tokens (method ``EDITED``: it is what was
        decided, not a fresh merge)."""
        return Resolution(self.boundaries, self.segment_axes, self.xi, self.omega, self.alpha,
                          sources, n_tokens, method=EDITED)


def stored_gold(row: Any) -> StoredGold:
    """The gold a ``GoldAnnotation`` row (or a row with its columns by name) stores.

    >>> from datetime import datetime
    >>> from types import SimpleNamespace
    >>> row = SimpleNamespace(sample_id=7, boundaries=[0, 2], segment_axes=[["static"], ["static", "main"]],
    ...                       xi=40.0, omega=8.0, alpha=0.5, source="auto", decided_at=datetime(2026, 1, 1))
    >>> g = stored_gold(row)
    >>> (g.segment_axes, g.decided_by, g.note)
    ((('static',), ('static', 'main')), None, '')
    >>> g.resolution(4).segment_axes  # canonical: each axis set in AXES order
    (('static',), ('main', 'static'))
    """
    return StoredGold(
        sample_id=row.sample_id, boundaries=tuple(row.boundaries),
        segment_axes=tuple(tuple(axes) for axes in row.segment_axes),
        xi=row.xi, omega=row.omega, alpha=row.alpha, source=row.source,
        decided_by=getattr(row, "decided_by", None), decided_at=row.decided_at,
        note=getattr(row, "note", None) or "", confidence=getattr(row, "confidence", None),
        error_type=getattr(row, "error_type", None) or "",
        source_annotation_id=getattr(row, "source_annotation_id", None), id=getattr(row, "id", None),
        context_xi=getattr(row, "context_xi", None), context_omega=getattr(row, "context_omega", None),
        context_alpha=getattr(row, "context_alpha", None), change=getattr(row, "change", None) or "",
        curves_change=getattr(row, "curves_change", None) or "")


def gold_values(res: Resolution, *, source: str, decided_by: int | None, decided_at: datetime,
                note: str = "", source_annotation_id: int | None = None,
                confidence: int | None = None, error_type: str = "",
                context: tuple[float, float, float] | None = None,
                change: str = "", curves_change: str = "") -> dict[str, object]:
    """The ``gold_annotations`` columns that store ``res`` as a sample's gold (as UPDATE or
    INSERT values; the sample id is the caller's). A context pair's gold also stores the curve
    given the follow-up (``context``: ξ, ω, α), the change label and, when that label is a lead's
    override, the label the gold curves give (``curves_change``).

    >>> from datetime import datetime
    >>> res = Resolution((0, 2), (("static",), ("main",)), 40, 8, 0.5, (), 4)
    >>> v = gold_values(res, source="auto", decided_by=None, decided_at=datetime(2026, 1, 1))
    >>> (v["boundaries"], v["segment_axes"], v["xi"], v["confidence"], v["error_type"])
    ([0, 2], [['static'], ['main']], 40.0, None, '')
    """
    if not res.has_parameters:
        raise ValueError("a gold needs a curve (ξ, ω, α)")
    return {"boundaries": list(res.boundaries), "segment_axes": [list(axes) for axes in res.segment_axes],
            "xi": float(res.xi), "omega": float(res.omega), "alpha": float(res.alpha),  # type: ignore[arg-type]
            "source": source, "decided_by": decided_by, "decided_at": decided_at, "note": note,
            "source_annotation_id": source_annotation_id, "confidence": confidence,
            "error_type": error_type,
            "context_xi": None if context is None else float(context[0]),
            "context_omega": None if context is None else float(context[1]),
            "context_alpha": None if context is None else float(context[2]), "change": change,
            "curves_change": curves_change, "pooling": res.pooling,
            "pool_weights": ({str(a): round(w, 6) for a, w in zip(res.parameter_sources, res.weights)}
                             if res.weights else None)}


def json_lists(texts: Iterable[str | None]) -> dict[str | None, tuple]:
    """Each distinct JSON list text decoded once, as a tuple (a NULL column or ``null`` reads as
    the empty tuple): a project holds far fewer distinct segmentations, axis lists or reasons
    than rows, so the decoded tuples are shared.

    >>> json_lists(['[0, 3]', None, '["static", null]', '[0, 3]'])
    {'[0, 3]': (0, 3), None: (), '["static", null]': ('static', None)}
    """
    decoded: dict[str | None, tuple] = {}
    for text in texts:
        if text not in decoded:
            decoded[text] = tuple(json.loads(text or "null") or ())
    return decoded


def curve_of(row: Any, *, given: bool = False) -> tuple[float, float, float] | None:
    """The curve (ξ, ω, α) a row stores by column name (``given``: the context pair's curve given
    the follow-up, its ``context_*`` columns), or None when it has none (a NULL ξ).

    >>> from types import SimpleNamespace
    >>> row = SimpleNamespace(xi=40.0, omega=8.0, alpha=0.5, context_xi=None, context_omega=None, context_alpha=None)
    >>> curve_of(row), curve_of(row, given=True)
    ((40.0, 8.0, 0.5), None)
    """
    prefix = "context_" if given else ""
    xi = getattr(row, f"{prefix}xi")
    return None if xi is None else (xi, getattr(row, f"{prefix}omega"), getattr(row, f"{prefix}alpha"))


def rating_of(row: Any, *, boundaries: Sequence[int], segment_axes: Sequence[str | None],
              given: bool = False, change: str | None = None) -> Rating:
    """A submitted annotation as an agreement rating: the row's annotator (``username``),
    ``submitted_at`` and curve (``given``: the curve given the follow-up), the segmentation
    already decoded (:func:`json_lists`) and, for a context pair, the change label it gives.

    >>> from datetime import datetime
    >>> from types import SimpleNamespace
    >>> row = SimpleNamespace(username="ann", submitted_at=datetime(2026, 1, 1), xi=40.0, omega=8.0, alpha=0.5)
    >>> r = rating_of(row, boundaries=(0,), segment_axes=("static",))
    >>> (r.annotator, r.boundaries, r.segment_axes, r.xi, r.change)
    ('ann', (0,), ('static',), 40.0, None)
    """
    prefix = "context_" if given else ""
    return Rating(annotator=row.username, submitted_at=row.submitted_at, boundaries=tuple(boundaries),
                  segment_axes=tuple(segment_axes), xi=getattr(row, f"{prefix}xi"),
                  omega=getattr(row, f"{prefix}omega"), alpha=getattr(row, f"{prefix}alpha"), change=change)


def annotation_change(row: Any, factor: float) -> str | None:
    """The change label a stored pair annotation gives (its override, else the one its two
    curves give against the project's time ``factor``; None without both curves): what the
    change measure rates, in the agreement report and the pairs export's card. ``row`` has the
    annotation's curve and change columns by name.

    >>> from types import SimpleNamespace
    >>> row = SimpleNamespace(xi=45.0, omega=10.0, alpha=0.0, context_xi=60.0, context_omega=10.0,
    ...                       context_alpha=0.0, change=None)
    >>> annotation_change(row, 1.5), annotation_change(SimpleNamespace(**{**vars(row), "context_xi": None}), 1.5)
    ('increased', None)
    """
    # the curves and the label only: what the label is read from
    choice = change_choice(content_from_columns(
        boundaries=None, segment_axes=None, xi=row.xi, omega=row.omega, alpha=row.alpha,
        context_xi=row.context_xi, context_omega=row.context_omega, context_alpha=row.context_alpha,
        change=row.change), factor)
    return None if choice is None else choice.label


def reference_row(row: Any) -> ReferenceRow:
    """A pair's gold (the columns of ``gold_annotations``, NULL where none yet) beside the
    reference labels of its ``sample_pairs`` row.

    >>> from types import SimpleNamespace
    >>> row = SimpleNamespace(change=None, xi=None, omega=None, alpha=None, context_xi=None, context_omega=None,
    ...                       context_alpha=None, reference_change="longer", reference_alone=2, reference_given=None)
    >>> reference_row(row)
    ReferenceRow(gold_change='', gold_alone=None, gold_given=None, reference_change='longer', reference_alone=2, reference_given=None)
    """
    return ReferenceRow(gold_change=row.change or "", gold_alone=curve_of(row), gold_given=curve_of(row, given=True),
                        reference_change=row.reference_change or "", reference_alone=row.reference_alone,
                        reference_given=row.reference_given)


def pair_gold_of(row: Any, n_annotations: int) -> PairGold:
    """A context pair's exported gold from a row of its gold and ``sample_pairs`` columns (by
    name: ``external_id``, ``parent_text``, the curves, ``change``, ``curves_change`` and the pair
    facts, which are None for a gold sample without a pair row: :meth:`PairGold.problem` names it).

    >>> from types import SimpleNamespace as Row
    >>> row = Row(external_id="p1", parent_text="Meeting at 3.", xi=50.0, omega=10.0, alpha=0.0, context_xi=None,
    ...           context_omega=None, context_alpha=None, change=None, curves_change=None, target_key=None,
    ...           follow_up=None, reference_alone=None, reference_given=None, reference_change=None)
    >>> pair_gold_of(row, 2).problem()
    'p1: its gold has no curve of the target given the follow-up'
    """
    return PairGold(
        external_id=row.external_id, target_key=row.target_key or "", context=row.parent_text,
        follow_up=row.follow_up or "", xi=row.xi, omega=row.omega, alpha=row.alpha,
        context_xi=row.context_xi, context_omega=row.context_omega, context_alpha=row.context_alpha,
        change=row.change or "", n_annotations=n_annotations, reference_alone=row.reference_alone,
        reference_given=row.reference_given, reference_change=row.reference_change or "",
        curves_change=row.curves_change or "")


__all__ = ["CONTENT_COLUMNS", "JSON_CONTENT_COLUMNS", "StoredGold", "annotation_change", "annotation_content", "content_from_columns", "content_select", "content_values", "contents_of", "curve_of", "gold_values", "json_lists", "pair_gold_of", "rating_of", "reference_row", "stored_gold"]
