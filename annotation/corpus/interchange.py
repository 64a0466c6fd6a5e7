"""The annotation interchange format (SPEC section 11): JSON Lines, one annotation per line.

Used to import existing annotations (``chronocept import annotations``) and as the record of the
export's ``annotations`` config. Reading is all or nothing: the first bad record raises
:class:`InterchangeError` naming its line, and nothing is returned.

Record::

    {"sample_id": "B1-00042", "annotator": "ann03",
     "boundaries": [0, 5, 11], "segment_axes": ["main", "intention", "static"],
     "points": [[27.6, 0.77], [21.6, 0.41], [31.6, 0.41]],
     "xi": 27.1, "omega": 9.8, "alpha": 0.3,
     "flags": [], "note": "", "submitted_at": "2026-11-20T10:31:00Z"}

``boundaries`` are token indices (``annotation.segmentation.tokenize``) where segments start;
``points`` are optional when ``xi``, ``omega``, ``alpha`` are given, and the parameters are fitted
from the points when they are not. A record of an export's ``annotations`` config carries its
sample's ``provenance`` too (:data:`EXPORT_ONLY_FIELDS`): read and left aside.

A context-pairs project's annotation (:mod:`annotation.protocols`) carries the target-alone curve
as above and the curve of the target given the follow-up as ``context_xi``, ``context_omega``,
``context_alpha`` (or ``context_points``, fitted the same way), plus ``change`` where the
annotator overrode the change derived from the two curves (a ``change`` equal to the derived
label is no override and is stored as none). Where the project does not segment its targets,
``boundaries`` and ``segment_axes`` may be left out. A single-texts project refuses these fields.

An imported annotation obeys the rules of one made in the workbench, flagged or not:

* its segmentation partitions the text (starts at 0, strictly increasing, every boundary before
  the last token; one axis per segment);
* its parameters are finite and inside the fit's bounds (:func:`annotation.curves.parameter_bounds_problem`);
* its ``annotator`` is a valid username (:mod:`annotation.usernames`; surrounding whitespace is
  removed as ``create-user`` does), and no two names in one file look alike;
* ``submitted_at`` lies between :data:`EARLIEST_SUBMISSION` and one day
  (:data:`CLOCK_SKEW`) after the time of the import.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any, Mapping, Sequence

from annotation.curves import CurveFitError, fit_curve, fit_scale_for, parameter_bounds_problem
from annotation.corpus.json_lines import decode_json_line, numbered_json_lines
from annotation.pairs.change import CHANGE_LABELS, read_change
from annotation.protocols import protocol_of
from annotation.settings import ProjectSettings
from annotation.content import CONTEXT, AnnotationContent, ContentError
from annotation.segmentation import SegmentationError
from annotation.usernames import UsernameError, check_username, username_skeleton
from annotation.wording import shown

MAX_INTERCHANGE_BYTES = 200 * 1024 * 1024
_REQUIRED = ("sample_id", "annotator", "boundaries", "segment_axes")
#: the fields of a context pair's annotation only (the curve given the follow-up, the change)
PAIR_FIELDS = ("context_points", "context_xi", "context_omega", "context_alpha", "change")
_KNOWN = set(_REQUIRED) | {"points", "xi", "omega", "alpha", "flags", "note", "submitted_at", *PAIR_FIELDS}
#: What an export adds to each record of its ``annotations`` config (the sample's provenance: how
#: the exporting project settled its gold). The export's record is the interchange record, so an
#: import reads these and leaves them aside: the importing project settles its own gold. Any other
#: field is still refused, so a misspelt one is never silently dropped.
PROVENANCE_FIELD = "provenance"
EXPORT_ONLY_FIELDS = (PROVENANCE_FIELD,)
#: No annotation predates this tool's field (Chronocept, 2025) by decades: an earlier
#: ``submitted_at`` is a unit or parsing mistake.
EARLIEST_SUBMISSION = datetime(2000, 1, 1, tzinfo=timezone.utc)
#: How far in the future of the import ``submitted_at`` may lie (clocks of other machines).
CLOCK_SKEW = timedelta(days=1)


class InterchangeError(ValueError):
    """A record that cannot be imported; ``line`` is 1-based (0 for the whole file)."""

    def __init__(self, line: int, reason: str):
        self.line, self.reason = line, reason
        super().__init__(f"line {line}: {reason}" if line else reason)


@dataclass(frozen=True)
class InterchangeRecord:
    """One validated annotation from an interchange file."""

    line: int
    sample_id: str
    annotator: str
    content: AnnotationContent
    submitted_at: datetime


def parse_submitted_at(value: object) -> datetime:
    """An ISO 8601 timestamp as an aware UTC datetime (naive values are read as UTC)."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError("submitted_at must be an ISO 8601 timestamp such as 2026-11-20T10:31:00Z")
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"submitted_at {value!r} is not an ISO 8601 timestamp") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    try:
        return moment.astimezone(timezone.utc)
    except OverflowError:  # 9999-12-31T23:59-01:00 is past datetime.max in UTC
        raise ValueError(f"submitted_at {value!r} is too far in the future") from None


def parse_import_submitted_at(value: object, now: datetime | None = None) -> datetime:
    """:func:`parse_submitted_at` of an imported record, which must lie between
    :data:`EARLIEST_SUBMISSION` and ``now`` (default: the current time) plus :data:`CLOCK_SKEW`."""
    moment = parse_submitted_at(value)
    latest = (now or datetime.now(timezone.utc)) + CLOCK_SKEW
    if moment > latest:
        raise ValueError(f"submitted_at {value!r} is in the future (later than "
                         f"{latest:%Y-%m-%d %H:%M} UTC)")
    if moment < EARLIEST_SUBMISSION:
        raise ValueError(f"submitted_at {value!r} is before {EARLIEST_SUBMISSION:%Y-%m-%d}")
    return moment


def read_record(obj: Mapping[str, Any], n_tokens: int, line: int = 0,
                now: datetime | None = None, settings: ProjectSettings | None = None) -> InterchangeRecord:
    """Validate one decoded record against its sample's token count (``now``: the time of the
    import, for ``submitted_at``; default the current time) for a project with ``settings``
    (default: a single-texts project's): its protocol says what a submitted annotation holds."""
    settings = settings or ProjectSettings()
    protocol = protocol_of(settings)
    segmented = protocol.segmented(settings)
    missing = [k for k in _REQUIRED if k not in obj and (segmented or k in ("sample_id", "annotator"))]
    if missing:
        raise InterchangeError(line, f"missing field {', '.join(missing)}")
    unknown = sorted(set(obj) - _KNOWN - set(EXPORT_ONLY_FIELDS))
    if unknown:
        raise InterchangeError(line, f"unknown field {', '.join(unknown)}")
    pair_only = [k for k in PAIR_FIELDS if k in obj]
    if pair_only and not protocol.uses(CONTEXT):
        raise InterchangeError(line, f"{', '.join(pair_only)}: only a context-pairs project's annotations "
                                     "have a curve given the follow-up")
    try:
        annotator = check_username(obj["annotator"])
    except UsernameError as exc:
        raise InterchangeError(line, f"annotator {shown(obj['annotator'])} is not a valid username: {exc}") from None
    try:
        content = AnnotationContent.from_json({
            "boundaries": obj.get("boundaries"), "segment_axes": obj.get("segment_axes"),
            "points": obj.get("points") or (), "xi": obj.get("xi"), "omega": obj.get("omega"),
            "alpha": obj.get("alpha"), "flags": obj.get("flags") or (), "note": obj.get("note") or "",
            "params_source": "manual" if obj.get("xi") is not None else "fit",
            "context_points": obj.get("context_points") or (), "context_xi": obj.get("context_xi"),
            "context_omega": obj.get("context_omega"), "context_alpha": obj.get("context_alpha"),
            "context_params_source": "manual" if obj.get("context_xi") is not None else "fit",
            "change": obj.get("change") or "",
        })
    except ContentError as exc:
        raise InterchangeError(line, str(exc)) from None
    if segmented and None in content.segment_axes:
        raise InterchangeError(line, "every segment needs an axis name")
    try:  # flagged or not: every stored segmentation partitions its text
        content.segmentation(n_tokens)
    except SegmentationError as exc:
        raise InterchangeError(line, f"Segmentation: {exc}.") from None
    content = _with_parameters(content, line)
    if protocol.uses(CONTEXT):  # the curve given the follow-up, by the same rules, named as such
        content = _with_parameters(content.swapped_curves(), line, "context_").swapped_curves()
        content = _without_derived_change(content, settings.change_factor)
    problems = protocol.submission_problems(content, n_tokens, settings, points_required=False)
    if problems:
        raise InterchangeError(line, " ".join(problems))
    try:
        submitted = parse_import_submitted_at(obj.get("submitted_at"), now)
    except ValueError as exc:
        raise InterchangeError(line, str(exc)) from None
    return InterchangeRecord(line, str(obj["sample_id"]), annotator, content, submitted)


def _without_derived_change(content: AnnotationContent, factor: float) -> AnnotationContent:
    """``content`` with no override when its ``change`` is the label its two curves give anyway."""
    if content.change not in CHANGE_LABELS or not (content.has_parameters and content.has_context_parameters):
        return content
    derived = read_change((content.xi, content.omega, content.alpha),
                          (content.context_xi, content.context_omega, content.context_alpha), factor).label
    return replace(content, change="") if content.change == derived else content


def _with_parameters(content: AnnotationContent, line: int, prefix: str = "") -> AnnotationContent:
    """The curve's parameters, fitted from its points when not given; the parameters within the
    fit's bounds. ``prefix`` names the fields in messages (``context_`` for the curve given the
    follow-up, checked on the swapped content)."""
    given = [content.xi, content.omega, content.alpha]
    if any(v is not None for v in given) and None in given:
        raise InterchangeError(line, f"give all of {prefix}xi, {prefix}omega and {prefix}alpha, or none of them")
    if content.has_parameters:
        problem = parameter_bounds_problem(content.xi, content.omega, content.alpha)
        if problem is not None:
            raise InterchangeError(line, prefix + problem)
        if not content.points:
            return content
        try:  # hand-set parameters with points: keep them, compute how well they fit
            scale, rmse = fit_scale_for(content.points, content.xi, content.omega, content.alpha)
        except CurveFitError as exc:
            raise InterchangeError(line, str(exc)) from None
        return replace(content, scale=scale, rmse=rmse)
    if not content.points:
        if content.flags:
            return content  # a flagged annotation may come without a curve
        raise InterchangeError(line, f"give {prefix}points or {prefix}xi, {prefix}omega and {prefix}alpha")
    try:
        fit = fit_curve(content.points)
    except CurveFitError as exc:
        raise InterchangeError(line, str(exc)) from None
    return replace(content, xi=fit.xi, omega=fit.omega, alpha=fit.alpha, scale=fit.scale,
                   rmse=fit.rmse, params_source="fit")


def numbered_lines(data: bytes) -> list[tuple[int, str]]:
    r"""The non-blank lines of an interchange file with their 1-based numbers; raises
    :class:`InterchangeError` for a file too large or not UTF-8.

    Examples:
        >>> numbered_lines(b'{"a": 1}\r\n\n{"b": "x\xe2\x80\xa8y"}\n')
        [(1, '{"a": 1}'), (3, '{"b": "x\u2028y"}')]
    """
    if len(data) > MAX_INTERCHANGE_BYTES:
        raise InterchangeError(0, f"the file is larger than {MAX_INTERCHANGE_BYTES // 2**20} MB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InterchangeError(data[: exc.start].count(b"\n") + 1, "not valid UTF-8") from None
    return numbered_json_lines(text)


@dataclass(frozen=True)
class ParsedLines:
    """What :func:`parse_lines` read: the records before the first bad line, and that line's
    error (None when every line was good)."""

    records: list[InterchangeRecord]
    error: InterchangeError | None = None


def parse_lines(lines: Sequence[tuple[int, str]], n_tokens_by_sample: Mapping[str, int],
                now: datetime, settings: ProjectSettings | None = None) -> ParsedLines:
    """Read numbered lines, each a record on its own (the per-line work of
    :func:`parse_interchange`, which an import may spread over processes), for a project with
    ``settings`` (:func:`read_record`); stops at the first bad line. The checks across records
    are :func:`check_records`.

    Examples:
        >>> line = ('{"sample_id": "S1", "annotator": "ann", "boundaries": [0], "segment_axes": ["main"], '
        ...         '"xi": 50, "omega": 9, "alpha": 0, "submitted_at": "2026-11-20T10:31:00Z"}')
        >>> done = parse_lines([(1, line), (2, "{")], {"S1": 4}, datetime(2026, 11, 26, tzinfo=timezone.utc))
        >>> [r.annotator for r in done.records], done.error.line
        (['ann'], 2)
    """
    records: list[InterchangeRecord] = []
    try:
        for n, raw in lines:
            obj = decode_json_line(raw, n, InterchangeError)
            if not isinstance(obj, dict):
                raise InterchangeError(n, "each line must be a JSON object")
            sample_id = obj.get("sample_id")
            if not isinstance(sample_id, str) or sample_id not in n_tokens_by_sample:
                raise InterchangeError(n, f"unknown sample_id {shown(sample_id)}; import its text first")
            records.append(read_record(obj, n_tokens_by_sample[sample_id], n, now, settings))
    except InterchangeError as exc:
        return ParsedLines(records, exc)
    return ParsedLines(records)


def check_records(records: Sequence[InterchangeRecord], until: InterchangeError | None = None) -> None:
    """The checks across a file's records, in line order: two annotator names that look alike,
    the same annotator twice on one sample. Raises the first problem — or ``until``, a bad line
    found meanwhile, when no problem comes before it — as :class:`InterchangeError`; and "no
    annotations" for a file without any.

    Examples:
        >>> r = InterchangeRecord(1, "S1", "ann", AnnotationContent(), datetime(2026, 1, 1, tzinfo=timezone.utc))
        >>> try:
        ...     check_records([r, replace(r, line=2)])
        ... except InterchangeError as exc:
        ...     print(exc)
        line 2: ann already annotated S1 on line 1
    """
    seen: dict[tuple[str, str], int] = {}
    names_by_skeleton: dict[str, tuple[str, int]] = {}
    for record in records:
        n = record.line
        if until is not None and n > until.line:
            break
        name, first = names_by_skeleton.setdefault(username_skeleton(record.annotator), (record.annotator, n))
        if name != record.annotator:
            raise InterchangeError(n, f"annotator {record.annotator!r} looks like {name!r} on line {first}; "
                                      "use one spelling per person")
        key = (record.sample_id, record.annotator)
        if key in seen:
            raise InterchangeError(n, f"{record.annotator} already annotated {record.sample_id} on line {seen[key]}")
        seen[key] = n
    if until is not None:
        raise until
    if not records:
        raise InterchangeError(0, "the file contains no annotations")


def parse_interchange(data: bytes, n_tokens_by_sample: Mapping[str, int],
                      now: datetime | None = None, settings: ProjectSettings | None = None) -> list[InterchangeRecord]:
    """Read a whole interchange file; ``n_tokens_by_sample`` maps each known sample id to its
    token count, ``now`` is the time of the import (default: the current time), ``settings``
    the project's (default: a single-texts project's). Raises
    :class:`InterchangeError` on the first problem (unknown sample, malformed record, the same
    annotator twice on one sample, two annotator names that look alike)."""
    now = now or datetime.now(timezone.utc)
    parsed = parse_lines(numbered_lines(data), n_tokens_by_sample, now, settings)
    check_records(parsed.records, parsed.error)
    return parsed.records


def to_interchange(sample_id: str, annotator: str, content: AnnotationContent,
                   submitted_at: datetime | None) -> dict[str, Any]:
    """The interchange record of one annotation (key order as in SPEC section 11)."""
    return interchange_record(sample_id, annotator, content.boundaries, content.segment_axes,
                              content.points, content.xi, content.omega, content.alpha,
                              content.flags, content.note, submitted_at)


def pair_interchange_fields(content: AnnotationContent) -> dict[str, Any]:
    """The fields a context pair's annotation adds to its interchange record (what
    :func:`read_record` reads for a pairs project): the curve given the follow-up and the
    annotator's override of the derived change ("" where they accepted it).

    Examples:
        >>> c = AnnotationContent(xi=40.0, omega=8.0, alpha=0.0, context_xi=52.5, context_omega=8.0,
        ...                       context_alpha=0.0, change="neutral")
        >>> pair_interchange_fields(c)
        {'context_points': [], 'context_xi': 52.5, 'context_omega': 8.0, 'context_alpha': 0.0, 'change': 'neutral'}
    """
    return pair_interchange_values(content.context_points, content.context_xi, content.context_omega,
                                   content.context_alpha, content.change)


def pair_interchange_values(context_points: Sequence[Sequence[float]], context_xi: float | None,
                            context_omega: float | None, context_alpha: float | None,
                            change: str | None) -> dict[str, Any]:
    """:func:`pair_interchange_fields` from stored values, without validating them again (the
    export reads every annotation of a project).

    Examples:
        >>> pair_interchange_values([[50, 1]], 50.0, 8.0, float("nan"), "confirmed")
        {'context_points': [[50.0, 1.0]], 'context_xi': 50.0, 'context_omega': 8.0, 'context_alpha': None, 'change': ''}
    """
    def number(v: float | None) -> float | None:
        return None if v is None or not math.isfinite(v) else float(v)

    return {"context_points": [[float(x), float(y)] for x, y in context_points or ()],
            "context_xi": number(context_xi), "context_omega": number(context_omega),
            "context_alpha": number(context_alpha),
            # an override only: a confirmed derived label is what the curves say
            "change": change if change in CHANGE_LABELS else ""}


def interchange_record(sample_id: str, annotator: str, boundaries: Sequence[int],
                       segment_axes: Sequence[str | None], points: Sequence[Sequence[float]],
                       xi: float | None, omega: float | None, alpha: float | None,
                       flags: Sequence[str], note: str, submitted_at: datetime | None) -> dict[str, Any]:
    """The interchange record from stored values, without validating them again (the export
    reads hundreds of thousands of already-validated annotations)."""
    def number(v: float | None) -> float | None:
        return None if v is None or not math.isfinite(v) else float(v)

    when = submitted_at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if submitted_at else None
    return {
        "sample_id": sample_id,
        "annotator": annotator,
        "boundaries": list(boundaries),
        "segment_axes": list(segment_axes),
        # points decoded from stored JSON are already lists of floats: taken as they are
        "points": points if type(points) is list else [[float(x), float(y)] for x, y in points],
        "xi": number(xi),
        "omega": number(omega),
        "alpha": number(alpha),
        "flags": list(flags),
        "note": note,
        "submitted_at": when,
    }
