"""The record formatters of the export: one gold sample → one benchmark record
(:func:`benchmark_record`, its ``axes`` by :func:`axis_texts`), one annotation → one interchange
record (:func:`annotation_record`, SPEC section 11), and the passes that format and encode every
sample and annotation of an export into JSON lines per config and split."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from annotation.axes import AXES, AXIS_NAMES
from annotation.export.dataset import (
    BENCHMARK_CONFIGS,
    ExportAnnotation,
    ExportError,
    GoldSample,
    base_factor,
)
from annotation.corpus.interchange import PAIR_FIELDS, PROVENANCE_FIELD, parse_submitted_at, to_interchange
from annotation.content import AnnotationContent
from annotation.segmentation import token_offsets
from annotation.corpus.splits import SPLITS
from annotation.timeaxis import DEFAULT_BASE

#: Keys of a benchmark record, in record order (the public record, SPEC section 7).
RECORD_KEYS: tuple[str, str, str, str] = ("_id", "parent_text", "axes", "target_values")
#: The key after the public ones (benchmark and annotation records) that carries the sample's
#: provenance (:class:`~annotation.export.dataset.Provenance`); the interchange reader knows it as
#: a field an export adds, so the export's annotation records import back.
PROVENANCE_KEY = PROVENANCE_FIELD
#: Keys of an annotation record, in record order: those of the interchange record (SPEC
#: section 11), read off :func:`annotation.corpus.interchange.to_interchange`, which defines them.
ANNOTATION_KEYS: tuple[str, ...] = tuple(to_interchange("", "", AnnotationContent(), None))
#: The keys a context pair's annotation record has after :data:`ANNOTATION_KEYS` (the curve given
#: the follow-up and the change override), in record order.
PAIR_ANNOTATION_KEYS: tuple[str, ...] = PAIR_FIELDS

_EXPORT_KEY_OF_AXIS: Mapping[str, str] = {axis.name: axis.export_key for axis in AXES}
_AXIS_NAME_SET = frozenset(AXIS_NAMES)
# One encoder for every line: non-ASCII text kept as is, NaN refused (it is not JSON).
encode_json = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


def axis_texts(
    parent_text: str,
    boundaries: Sequence[int],
    segment_axes: Sequence[Sequence[str]],
) -> tuple[dict[str, str], int]:
    """The ``axes`` field of a record and the text's token count.

    For every axis (export key, AXES order): the text of the segments carrying it, in text
    order, joined by a space; "" when none. A segment's text is ``parent_text`` from its first
    token's start to its last token's end. Raises :class:`ExportError` when the boundaries do not
    partition the tokens (first 0, strictly increasing, inside the text) or an axis is unknown.
    """
    offsets = token_offsets(parent_text)  # token i: offsets[2i] … offsets[2i + 1]
    n_tokens = len(offsets) // 2
    previous = -1
    for start in boundaries:
        if isinstance(start, bool) or not isinstance(start, int) or start <= previous or start >= n_tokens:
            raise ExportError(
                f"boundaries {list(boundaries)} do not partition a text of {n_tokens} tokens"
            )
        previous = start
    if not boundaries or boundaries[0] != 0:
        raise ExportError(f"boundaries {list(boundaries)} must start at token 0")
    parts: dict[str, list[str]] = {}
    ends = (*boundaries[1:], n_tokens)
    for start, end, names in zip(boundaries, ends, segment_axes):
        if not names:
            continue
        text = parent_text[offsets[2 * start] : offsets[2 * end - 1]]
        for name in names:
            parts.setdefault(name, []).append(text)
    if not parts.keys() <= _AXIS_NAME_SET:
        unknown = sorted(parts.keys() - _AXIS_NAME_SET)
        raise ExportError(f"unknown axis {', '.join(map(repr, unknown))}; expected one of {', '.join(AXIS_NAMES)}")
    return {
        key: " ".join(parts[name]) if name in parts else ""
        for name, key in _EXPORT_KEY_OF_AXIS.items()
    }, n_tokens


def benchmark_record(sample: GoldSample, base: float = DEFAULT_BASE) -> tuple[dict[str, Any], int]:
    """One gold sample as a benchmark record (key order :data:`RECORD_KEYS`), its parameters
    rewritten in log base ``base``, and the parent text's token count."""
    factor = base_factor(base)
    record, n_tokens = _public_record(sample, factor)
    record[PROVENANCE_KEY] = sample.provenance.to_json(factor)
    return record, n_tokens


def _public_record(sample: GoldSample, factor: float) -> tuple[dict[str, Any], int]:
    """The record's :data:`RECORD_KEYS` (no provenance) and the text's token count."""
    try:
        axes, n_tokens = axis_texts(sample.parent_text, sample.boundaries, sample.segment_axes)
    except ExportError as exc:
        raise ExportError(f"sample {sample.external_id}: {exc}") from None
    record = {
        "_id": sample.external_id,
        "parent_text": sample.parent_text,
        "axes": axes,
        "target_values": {
            "location": float(sample.xi) * factor,
            "scale": float(sample.omega) * factor,
            "skewness": float(sample.alpha),
        },
    }
    return record, n_tokens


def annotation_record(
    annotation: ExportAnnotation | Mapping[str, Any], base: float = DEFAULT_BASE
) -> dict[str, Any]:
    """One annotation as an interchange record (SPEC section 11, key order
    :data:`ANNOTATION_KEYS`) with ξ, ω and the points' x rewritten in log base ``base``
    (α and the points' y unchanged). Accepts an :class:`ExportAnnotation` or an interchange dict
    in base 1.1 (its ``submitted_at`` rewritten as ``YYYY-MM-DDTHH:MM:SSZ``, the form
    ``datasets`` reads as the declared ``timestamp[s, tz=UTC]``); a dict holding a context
    pair's fields keeps them after the others (:data:`PAIR_ANNOTATION_KEYS`), the curve given the
    follow-up rewritten like the first.

    Examples:
        >>> r = annotation_record({"sample_id": "P1", "annotator": "ann01", "boundaries": [], "segment_axes": [],
        ...     "points": [], "xi": 44.0, "omega": 8.0, "alpha": 0.0, "flags": [], "note": "",
        ...     "submitted_at": "2026-11-20T10:31:00Z", "context_points": [[22.0, 1.0]], "context_xi": 22.0,
        ...     "context_omega": 4.0, "context_alpha": 0.5, "change": ""}, base=1.21)
        >>> list(r)[-5:], round(r["xi"], 9), round(r["context_points"][0][0], 9), round(r["context_omega"], 9)
        (['context_points', 'context_xi', 'context_omega', 'context_alpha', 'change'], 22.0, 11.0, 2.0)
    """
    return _annotation_record(annotation, base_factor(base))


def _annotation_record(annotation: ExportAnnotation | Mapping[str, Any], factor: float) -> dict[str, Any]:
    if isinstance(annotation, ExportAnnotation):
        record = to_interchange(annotation.sample_id, annotation.annotator, annotation.content,
                                annotation.submitted_at)
    else:
        missing = [k for k in ANNOTATION_KEYS if k not in annotation]
        if missing:
            raise ExportError(f"annotation record lacks {', '.join(missing)}")
        record = {key: annotation[key] for key in ANNOTATION_KEYS}
        if PAIR_ANNOTATION_KEYS[0] in annotation:  # a context pair's: the curve given the follow-up
            record.update((key, annotation.get(key)) for key in PAIR_ANNOTATION_KEYS)
        when = record["submitted_at"]
        if when is not None and not _is_utc_second(when):  # the one timestamp form the card declares
            try:
                moment = parse_submitted_at(when)
            except ValueError as exc:
                raise ExportError(f"annotation of {record['sample_id']}: {exc}") from None
            record["submitted_at"] = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    if factor != 1.0:
        rescale_curves(record, factor)
    return record


def rescale_curves(record: dict[str, Any], factor: float) -> dict[str, Any]:
    """``record`` (an interchange record, changed in place and returned) with both curves' points'
    x, ξ and ω multiplied by ``factor`` — a change of log base (SPEC section 4); α and heights
    unchanged. What is not a number (an absent curve, a malformed point of a file being read) is
    left as it is, for the import to name.

    Examples:
        >>> rescale_curves({"points": [[10.0, 1.0], "x"], "xi": 10.0, "omega": None, "alpha": 2.0,
        ...                 "context_xi": 20.0}, 2.0)
        {'points': [[20.0, 1.0], 'x'], 'xi': 20.0, 'omega': None, 'alpha': 2.0, 'context_xi': 40.0}
    """
    for prefix in ("", "context_"):
        points = record.get(f"{prefix}points")
        if isinstance(points, list):
            record[f"{prefix}points"] = [[p[0] * factor, *p[1:]] if isinstance(p, list) and p and _is_number(p[0])
                                         else p for p in points]
        for key in (f"{prefix}xi", f"{prefix}omega"):
            if _is_number(record.get(key)):
                record[key] = record[key] * factor
    return record


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_utc_second(text: Any) -> bool:
    """Whether ``text`` is already written ``YYYY-MM-DDTHH:MM:SSZ`` (a valid moment, year 1000
    or later) — what the service's records carry — so it is kept as it is rather than parsed
    and written again.

    Examples:
        >>> _is_utc_second("2026-11-20T10:31:00Z"), _is_utc_second("2026-11-20T10:31:00+01:00")
        (True, False)
        >>> _is_utc_second("2026-02-30T10:31:00Z"), _is_utc_second("2026-W47-1T10:31:0Z")
        (False, False)
    """
    if type(text) is not str or len(text) != 20 or text[19] != "Z" or text[0] == "0" or not text.isascii():
        return False
    if text[4] != "-" or text[7] != "-" or text[10] != "T" or text[13] != ":" or text[16] != ":":
        return False
    try:
        datetime.fromisoformat(text[:19])
    except ValueError:
        return False
    return True


#: What joins a record's encoded public keys to its provenance: the separators of
#: :data:`encode_json`, so a spliced line is byte for byte the line of the whole record.
_PROVENANCE_JOIN = f', "{PROVENANCE_KEY}": '


def format_samples(
    ordered: Sequence[GoldSample], split_of: Mapping[str, str], factor: float
) -> tuple[dict[str, dict[str, list[dict[str, Any]]]], dict[str, dict[str, list[tuple[str, str]]]],
           dict[str, int]]:
    """Records without their provenance and the records' ``(sample id, encoded head)`` per
    benchmark config and split (in ``ordered`` order), and the token count of every sample's text.

    A head is the encoded record less its closing brace; :func:`finish_lines` appends the
    sample's provenance to it once that is known (the service computes it while this runs)."""
    records: dict[str, dict[str, list[dict[str, Any]]]] = {
        c: {s: [] for s in SPLITS} for c in BENCHMARK_CONFIGS.values()
    }
    heads: dict[str, dict[str, list[tuple[str, str]]]] = {
        c: {s: [] for s in SPLITS} for c in BENCHMARK_CONFIGS.values()
    }
    token_lengths: dict[str, int] = {}
    for sample in ordered:
        record, n_tokens = _public_record(sample, factor)
        config, split = BENCHMARK_CONFIGS[sample.benchmark], split_of[sample.external_id]
        records[config][split].append(record)
        heads[config][split].append((sample.external_id, _encode_line(record, sample.external_id)[:-1]))
        token_lengths[sample.external_id] = n_tokens
    return records, heads, token_lengths


def format_annotations(
    annotations: Iterable[ExportAnnotation | Mapping[str, Any]], split_of: Mapping[str, str], factor: float,
) -> tuple[dict[str, list[tuple[str, str]]], int]:
    """Per split of their sample, ``(sample id, encoded head)`` of every annotation record —
    ordered by (sample, submission time, annotator) whatever the input order; the head as in
    :func:`format_samples`, to be finished with the sample's provenance by
    :func:`finish_lines` — and how many annotations were left out (sample not exported)."""
    keyed: dict[str, list[tuple[str, str, str, str]]] = {s: [] for s in SPLITS}
    left_out = 0
    for annotation in annotations:
        record = _annotation_record(annotation, factor)
        split = split_of.get(record["sample_id"])
        if split is None:
            left_out += 1
            continue
        head = _encode_line(record, record["sample_id"])[:-1]
        keyed[split].append((record["sample_id"], record["submitted_at"] or "", record["annotator"], head))
    heads = {}
    for split in SPLITS:
        keyed[split].sort()
        heads[split] = [(item[0], item[3]) for item in keyed[split]]
    return heads, left_out


def finish_lines(heads: Iterable[tuple[str, str]], provenance_json: Mapping[str, str]) -> list[str]:
    """The JSON lines of ``(sample id, head)`` pairs: each head closed with its sample's encoded
    provenance (``provenance_json[sample id]``, encoded once per sample however many records
    carry it) as the record's last key, :data:`PROVENANCE_KEY`.

    Examples:
        >>> record = {"_id": "a", "n": [1.5, None], "t": "ü"}
        >>> head = encode_json(record)[:-1]
        >>> line = finish_lines([("a", head)], {"a": encode_json({"w1": 2.0})})[0]
        >>> line == encode_json({**record, PROVENANCE_KEY: {"w1": 2.0}})
        True
    """
    join = _PROVENANCE_JOIN
    return [head + join + provenance_json[sample_id] + "}" for sample_id, head in heads]


def _encode_line(record: Mapping[str, Any], sample_id: str) -> str:
    try:
        return encode_json(record)
    except (TypeError, ValueError) as exc:
        raise ExportError(f"sample {sample_id}: cannot write the record as JSON ({exc})") from None
