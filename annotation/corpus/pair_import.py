"""Reading context pairs to annotate from JSON Lines or CSV — all or nothing.

A pair is a *target statement* and a *follow-up statement* read after it (Wenzel & Jatowt's
Temporal Validity Change Prediction). Three shapes of record are read, in either format:

* ours: ``target``, ``follow_up``, optional ``id`` (the pair's sample id) and ``target_id``
  (groups several follow-ups under one target; without it, identical target texts are grouped);
* the TVCP release's CSV: ``context`` (the target), ``follow_up``, ``context_only_tv`` and
  ``combined_tv`` (duration class indices 0–11, :mod:`annotation.pairs.duration_classes`) and
  ``change`` (decreased / neutral / increased). Its labels are kept as the pair's *reference*
  values: shown to leads, never to annotators;
* this tool's own ``tvcp`` export (JSON Lines or CSV, its files as written): the release's
  columns with the pair's id as ``_id`` and its ``target_id``; the exporting project's gold
  classes and change become the reference values, the rest of the record is left aside
  (:data:`EXPORT_ONLY_FIELDS`). What the export writes, the import reads.

In our shape the three reference fields are optional (a file may carry a release's labels or a
demo's intended change); a CSV whose header names ``context`` is the release's and must have all
five columns. A column or key not listed here refuses the file: a misspelt ``target_id`` would
otherwise lose the grouping silently. The file checks before any parsing (size, type, lines,
UTF-8), the text rules and the id rule are the text import's
(:mod:`annotation.corpus.text_import`), so a pair's target and follow-up are each limited as a
text is.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from annotation.corpus.text_import import (
    ImportFileError,
    clean_id,
    clean_text,
    csv_rows,
    infer_benchmark,
    json_objects,
    read_import,
)
from annotation.pairs.change import CHANGE_LABELS
from annotation.pairs.duration_classes import CLASS_NAMES
from annotation.wording import shown

PAIR_FORMATS = ("jsonl", "csv")
#: The TVCP release's columns, in its order.
TVCP_COLUMNS = ("context", "follow_up", "context_only_tv", "combined_tv", "change")
REFERENCE_FIELDS = ("context_only_tv", "combined_tv", "change")
_OURS = ("target", "follow_up", "id", "target_id")
_KNOWN = frozenset(_OURS) | frozenset(TVCP_COLUMNS)
#: A record of this tool's own ``tvcp`` export names its pair's id ``_id``; what else it holds
#: beyond the release's columns and ``target_id`` — both gold curves' parameters, the count of
#: annotations, the exporting project's own reference labels, the label its gold curves give where a
#: lead's change label overrides them (``curves_change``) and the export's provenance
#: (``annotation.export.tvcp.TVCP_KEYS``, which a unit test keeps equal) — is left aside, and its
#: classes and change (the exporting project's gold) become the pair's reference labels.
EXPORT_ID = "_id"
EXPORT_ONLY_FIELDS = ("xi", "omega", "alpha", "context_xi", "context_omega", "context_alpha", "n_annotations",
                      "reference_context_only_tv", "reference_combined_tv", "reference_change", "curves_change",
                      "w1", "pk", "jaccard", "resolution", "confidence", "error_type", "pooling", "pool_weights")
_EXPORTED = _KNOWN | {EXPORT_ID} | frozenset(EXPORT_ONLY_FIELDS)


@dataclass(frozen=True)
class PairRecord:
    """One pair read from a file: the target (stored as the sample's text), its follow-up, the
    ids given (None: generated on import) and the reference labels given (None / "")."""

    target: str
    follow_up: str
    external_id: str | None
    target_id: str | None
    line: int
    reference_alone: int | None = None
    reference_given: int | None = None
    reference_change: str = ""

    @property
    def text(self) -> str:
        """The sample's text: the target statement."""
        return self.target

    @property
    def benchmark(self) -> int:
        """As for a text: 1 for a single-sentence target, 2 for a passage."""
        return infer_benchmark(self.target)


def generated_target_key(target: str) -> str:
    """The target key of a target given without a ``target_id``: the same text always gets the
    same key (so its follow-ups stay together, in this file and the next), and it fits the
    column (64 characters).

    Examples:
        >>> generated_target_key("Job interview tomorrow.") == generated_target_key("Job interview tomorrow.")
        True
        >>> generated_target_key("Job interview tomorrow.")[:2], len(generated_target_key("x" * 5000))
        ('T-', 18)
    """
    return "T-" + hashlib.sha256(target.encode("utf-8")).hexdigest()[:16]


def parse_class_index(line: int, field: str, value: object) -> int | None:
    """A release's duration class index (0 no time-sensitive information, 1–11 the durations),
    None when absent; whole numbers written as ``3`` or ``3.0`` are read.

    Examples:
        >>> parse_class_index(2, "combined_tv", " 7 "), parse_class_index(2, "combined_tv", 0.0)
        (7, 0)
        >>> try:
        ...     parse_class_index(4, "context_only_tv", "12")
        ... except ImportFileError as exc:
        ...     print(exc)
        line 4: context_only_tv must be a class index from 0 to 11, not '12'
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    last = len(CLASS_NAMES) - 1
    wrong = ImportFileError(line, f"{field} must be a class index from 0 to {last}, not {shown(value)}")
    if isinstance(value, bool):
        raise wrong
    try:
        number = float(value.strip() if isinstance(value, str) else value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise wrong from None
    if not number.is_integer() or not 0 <= number <= last:
        raise wrong
    return int(number)


def parse_change_label(line: int, value: object) -> str:
    """A release's change label ("" when absent); the words are read in any case.

    Examples:
        >>> parse_change_label(1, " Increased "), parse_change_label(1, None)
        ('increased', '')
        >>> try:
        ...     parse_change_label(5, "up")
        ... except ImportFileError as exc:
        ...     print(exc)
        line 5: change must be decreased, neutral or increased, not 'up'
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return ""
    label = value.strip().lower() if isinstance(value, str) else None
    if label not in CHANGE_LABELS:
        raise ImportFileError(line, f"change must be {', '.join(CHANGE_LABELS[:-1])} or {CHANGE_LABELS[-1]}, "
                                    f"not {shown(value)}")
    return label


#: a texts file given where pairs are asked for (the likeliest wrong file on a pairs project)
TEXTS_FILE = ("this reads as a texts file (a 'text' field): a context-pairs project takes pairs, "
              "'target' and 'follow_up' (texts go into a single-texts project)")


def read_pair(line: int, fields: Mapping[str, Any]) -> PairRecord:
    """One pair from a record's fields (a JSON object, a CSV row); :class:`ImportFileError` names
    the line and the first problem.

    Examples:
        >>> r = read_pair(3, {"context": "Job interview tomorrow.", "follow_up": "It was moved to Friday.",
        ...                   "context_only_tv": "8", "combined_tv": "9", "change": "increased"})
        >>> (r.target, r.reference_alone, r.reference_given, r.reference_change, r.external_id)
        ('Job interview tomorrow.', 8, 9, 'increased', None)
        >>> try:
        ...     read_pair(4, {"target": "Rain today.", "followup": "It stopped."})
        ... except ImportFileError as exc:
        ...     print(exc)
        line 4: unknown field followup (a pair has target, follow_up, id, target_id, context_only_tv, combined_tv, change)
    """
    if "text" in fields and not {"target", "context"} & set(fields):
        raise ImportFileError(line, TEXTS_FILE)
    exported = EXPORT_ID in fields
    unknown = sorted(k for k in fields if k not in (_EXPORTED if exported else _KNOWN) and str(k).strip())
    if unknown:
        raise ImportFileError(line, f"unknown field {', '.join(map(str, unknown))} (a pair has "
                                    f"{', '.join(_OURS)}, {', '.join(REFERENCE_FIELDS)})")
    if exported and fields.get("id") not in (None, ""):
        raise ImportFileError(line, f"give the pair's id as 'id' or as '{EXPORT_ID}', not both")
    if fields.get("target") not in (None, "") and fields.get("context") not in (None, ""):
        raise ImportFileError(line, "give the target as 'target' or as 'context', not both")
    target_value = fields.get("target") if fields.get("target") not in (None, "") else fields.get("context")
    target = clean_text(line, target_value, "target")
    follow_up = clean_text(line, fields.get("follow_up"), "follow-up")
    return PairRecord(
        target, follow_up, clean_id(line, fields.get(EXPORT_ID if exported else "id")),
        clean_id(line, fields.get("target_id"), "target_id"),
        line, parse_class_index(line, "context_only_tv", fields.get("context_only_tv")),
        parse_class_index(line, "combined_tv", fields.get("combined_tv")),
        parse_change_label(line, fields.get("change")))


def _check_pair_header(fields: list[str]) -> None:
    named = set(fields)
    if "text" in named and not {"target", "context"} & named:
        raise ImportFileError(1, TEXTS_FILE)
    if "context" in named:
        missing = [c for c in TVCP_COLUMNS if c not in named]
        if missing:
            raise ImportFileError(1, f"a TVCP CSV needs the columns {','.join(TVCP_COLUMNS)} "
                                     f"(missing: {', '.join(missing)})")
    elif "target" not in named or "follow_up" not in named:
        raise ImportFileError(1, "the CSV header needs 'target' and 'follow_up' columns (optional: 'id', "
                                 f"'target_id'), or is the TVCP release's: {','.join(TVCP_COLUMNS)}")
    unknown = sorted(f for f in named if f and f not in (_EXPORTED if EXPORT_ID in named else _KNOWN))
    if unknown:
        raise ImportFileError(1, f"unknown column {', '.join(unknown)} in the CSV header")
    doubled = sorted({f for f in fields if f and fields.count(f) > 1})
    if doubled:
        raise ImportFileError(1, f"the column {', '.join(doubled)} appears twice in the CSV header")


def check_pairs(records: Iterable[PairRecord]) -> list[PairRecord]:
    """The records, when no id is given twice and no ``target_id`` names two different targets.

    Examples:
        >>> a = PairRecord("Rain today.", "It stopped.", "p1", "t1", 1)
        >>> try:
        ...     check_pairs([a, PairRecord("Snow today.", "It melted.", "p2", "t1", 2)])
        ... except ImportFileError as exc:
        ...     print(exc)
        line 2: target_id 't1' names a different target on line 1
    """
    out = list(records)
    ids: dict[str, int] = {}
    targets: dict[str, tuple[str, int]] = {}
    for r in out:
        if r.external_id is not None:
            if r.external_id in ids:
                raise ImportFileError(r.line, f"id {r.external_id!r} also appears on line {ids[r.external_id]}")
            ids[r.external_id] = r.line
        if r.target_id is not None:
            text, first = targets.setdefault(r.target_id, (r.target, r.line))
            if text != r.target:
                raise ImportFileError(r.line, f"target_id {r.target_id!r} names a different target on line {first}")
    if not out:
        raise ImportFileError(0, "the file contains no pairs")
    return out


def parse_pairs(data: bytes, filename: str) -> list[PairRecord]:
    """Parse an uploaded pairs file (JSON Lines or CSV, either shape); raises
    :class:`ImportFileError` on the first problem. The file's size and number of lines are checked
    before anything is parsed.

    Examples:
        >>> data = b"context,follow_up,context_only_tv,combined_tv,change\\nGym at 6.,It got cancelled.,5,0,decreased\\n"
        >>> [(r.line, r.target, r.reference_given, r.reference_change) for r in parse_pairs(data, "tvcp.csv")]
        [(2, 'Gym at 6.', 0, 'decreased')]
        >>> try:
        ...     parse_pairs(b'{"target": "Gym at 6.", "follow_up": "Ok."}\\n{"target": "Gym"', "p.jsonl")
        ... except ImportFileError as exc:
        ...     print(exc.line, exc.reason[:14])
        2 not valid JSON
    """
    fmt, content = read_import(data, filename, PAIR_FORMATS)
    rows = json_objects(content) if fmt == "jsonl" else csv_rows(content, _check_pair_header)
    return check_pairs(read_pair(n, fields) for n, fields in rows)


__all__ = ["EXPORT_ID", "EXPORT_ONLY_FIELDS", "PAIR_FORMATS", "PairRecord", "REFERENCE_FIELDS", "TVCP_COLUMNS", "check_pairs",
           "generated_target_key", "parse_change_label", "parse_class_index", "parse_pairs", "read_pair"]
