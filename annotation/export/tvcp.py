"""The ``tvcp`` configuration of the export: a context-pairs project's gold in the columns of
Wenzel & Jatowt's Temporal Validity Change Prediction release, so their code and anyone who
knows their dataset can read it.

Folder layout (a pairs project writes this configuration only; see :mod:`annotation.protocols`)::

    OUT/README.md                      dataset card (YAML header declaring the ``tvcp`` config)
    OUT/tvcp/train.json valid.json test.json   JSON Lines, one record per pair (what ``datasets`` loads)
    OUT/tvcp/train.csv  valid.csv  test.csv    the same rows as CSV (what the TVCP reader reads)
    OUT/export.json                    manifest: who/when/settings/counts/split membership

A record (:data:`TVCP_KEYS`, this order; the release's five columns first)::

    context, follow_up, context_only_tv, combined_tv, change,
    xi, omega, alpha, context_xi, context_omega, context_alpha,
    _id, target_id, n_annotations, reference_context_only_tv, reference_combined_tv,
    reference_change, curves_change, w1, pk, jaccard, resolution, confidence, error_type

``context`` is the target statement, ``context_only_tv`` / ``combined_tv`` the TVCP class index
(:mod:`annotation.pairs.duration_classes`: 0 = no time-sensitive information, 1 = less than one
minute … 11 = more than 1 month) of the gold curve of the target alone and given the follow-up,
``change`` the gold change label (decreased / neutral / increased). Both curves' parameters are in
the export's log base (ξ and ω × ln 1.1 / ln b, α unchanged), like the benchmark configs. The rest is
provenance: the sample's id, its target's key, how many annotations it had, an imported release's
own labels (empty where none), ``curves_change`` — where ``change`` is a lead's override of the
label the gold curves give, that label (empty otherwise: :mod:`annotation.review.gold_rules`) —, then the benchmark configs' ``provenance`` keys, flattened
(:class:`~annotation.export.dataset.Provenance`).

**Splits.** All follow-ups of one target are in one split (:func:`annotation.corpus.splits.grouped_split`
over the target keys), so no target is trained on and tested again.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotation.corpus.splits import SPLITS, grouped_split
from annotation.export.dataset import SPLIT_FILES, ExportError, ExportSettings, PROVENANCE_KEYS, Provenance
from annotation.export.records import encode_json
from annotation.pairs.change import CHANGE_LABELS, read_change
from annotation.pairs.duration_classes import CLASS_NAMES, class_of_curve

#: The configuration's name (a folder of the export, a config of the card).
TVCP_CONFIG = "tvcp"
#: The release's columns, in its order.
RELEASE_COLUMNS: tuple[str, ...] = ("context", "follow_up", "context_only_tv", "combined_tv", "change")
#: Both curves' parameters, after the release's columns.
CURVE_COLUMNS: tuple[str, ...] = ("xi", "omega", "alpha", "context_xi", "context_omega", "context_alpha")
#: The pair's own provenance, before the benchmark configs' provenance keys.
PAIR_PROVENANCE_COLUMNS: tuple[str, ...] = ("_id", "target_id", "n_annotations", "reference_context_only_tv",
                                            "reference_combined_tv", "reference_change", "curves_change")
#: Every key of a record, in record (and CSV column) order.
TVCP_KEYS: tuple[str, ...] = (*RELEASE_COLUMNS, *CURVE_COLUMNS, *PAIR_PROVENANCE_COLUMNS, *PROVENANCE_KEYS)
#: The CSV file of each split (beside the JSON Lines file :data:`JSON_FILES` names).
CSV_FILES: Mapping[str, str] = {"train": "train.csv", "validation": "valid.csv", "test": "test.csv"}
#: The JSON Lines file of each split: the benchmark configs' names.
JSON_FILES: Mapping[str, str] = SPLIT_FILES
#: What each of the export's splits is called in the TVCP release.
TVCP_SPLIT_NAMES: Mapping[str, str] = {"train": "train", "validation": "dev", "test": "test"}


@dataclass(frozen=True)
class PairGold:
    """One pair's settled values, as the service reads them: the sample's id, its target's key,
    the target statement and the follow-up, the gold curve of the target alone (ξ, ω, α) and
    given the follow-up (``context_*``), all in base-1.1 log minutes, and the gold change label
    ("" when the gold holds none: it is then derived from the curves with the project's time
    factor); how many submitted annotations it had, an imported release's labels (None / ""
    where none) and, when ``change`` is a lead's override, the label the gold curves give
    (``curves_change``; "" otherwise)."""

    external_id: str
    target_key: str
    context: str
    follow_up: str
    xi: float
    omega: float
    alpha: float
    context_xi: float | None
    context_omega: float | None
    context_alpha: float | None
    change: str = ""
    n_annotations: int = 0
    reference_alone: int | None = None
    reference_given: int | None = None
    reference_change: str = ""
    provenance: Provenance = Provenance()
    curves_change: str = ""

    def problem(self) -> str | None:
        """Why this pair's gold cannot be exported (None when it can).

        Examples:
            >>> PairGold("p1", "t1", "Meeting at 3.", "It moved.", 50.0, 10.0, 0.0, None, None, None).problem()
            'p1: its gold has no curve of the target given the follow-up'
        """
        curves = (self.xi, self.omega, self.alpha, self.context_xi, self.context_omega, self.context_alpha)
        if any(v is None for v in curves[3:]):
            return f"{self.external_id}: its gold has no curve of the target given the follow-up"
        if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in curves) \
                or self.omega <= 0 or (self.context_omega or 0) <= 0:
            return f"{self.external_id}: its gold curves are not finite numbers with ω > 0"
        if self.change and self.change not in CHANGE_LABELS:
            return f"{self.external_id}: its gold change {self.change!r} is not one of {', '.join(CHANGE_LABELS)}"
        if not self.target_key or not self.follow_up:
            return f"{self.external_id}: it is not a pair (no follow-up and target of its own)"
        return None


def tvcp_record(pair: PairGold, change_factor: float, base_factor_: float = 1.0,
                provenance: Provenance | None = None) -> dict[str, Any]:
    """One pair as a record (:data:`TVCP_KEYS` order): the classes from both gold curves, the
    gold change (derived from the curves against ``change_factor`` when the gold holds none), ξ
    and ω multiplied by ``base_factor_`` (:func:`~annotation.export.dataset.base_factor`),
    ``provenance`` (or the pair's own) flattened at the end. Raises :class:`ExportError` for a
    pair :meth:`PairGold.problem` refuses.

    Examples:
        >>> p = PairGold("p1", "t1", "Job interview tomorrow.", "It moved to Friday.", 45.0, 10.0, 0.0,
        ...              56.53, 10.0, 0.0, n_annotations=2)
        >>> r = tvcp_record(p, 1.5)
        >>> [r[k] for k in ("context_only_tv", "combined_tv", "change", "target_id", "n_annotations")]
        [6, 7, 'increased', 't1', 2]
        >>> list(r)[:5]
        ['context', 'follow_up', 'context_only_tv', 'combined_tv', 'change']
    """
    problem = pair.problem()
    if problem is not None:
        raise ExportError(f"pair {problem}")
    alone = (float(pair.xi), float(pair.omega), float(pair.alpha))
    given = (float(pair.context_xi), float(pair.context_omega), float(pair.context_alpha))  # type: ignore[arg-type]
    change = pair.change or read_change(alone, given, change_factor).label
    record: dict[str, Any] = {
        "context": pair.context,
        "follow_up": pair.follow_up,
        "context_only_tv": class_of_curve(*alone).index,
        "combined_tv": class_of_curve(*given).index,
        "change": change,
        "xi": alone[0] * base_factor_, "omega": alone[1] * base_factor_, "alpha": alone[2],
        "context_xi": given[0] * base_factor_, "context_omega": given[1] * base_factor_,
        "context_alpha": given[2],
        "_id": pair.external_id,
        "target_id": pair.target_key,
        "n_annotations": int(pair.n_annotations),
        "reference_context_only_tv": pair.reference_alone,
        "reference_combined_tv": pair.reference_given,
        "reference_change": pair.reference_change or None,
        "curves_change": pair.curves_change or None,
    }
    record.update((provenance or pair.provenance).to_json(base_factor_))
    return record


def csv_text(records: Iterable[Mapping[str, Any]]) -> str:
    """The records as CSV: a header of :data:`TVCP_KEYS`, one row a record, an empty cell for
    None, numbers as Python writes them (pandas reads them back as numbers), every text exactly as
    written — this file is the dataset (the TVCP reader trains on it), not a spreadsheet's copy,
    so a text starting with ``=`` is not neutralised (:mod:`annotation.corpus.csv_safety`).

    Examples:
        >>> print(csv_text([{k: None for k in TVCP_KEYS} | {"context": 'Say "hi", then go.', "context_only_tv": 3}]).splitlines()[1][:30])
        "Say ""hi"", then go.",,3,,,,,
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(TVCP_KEYS)
    for record in records:
        writer.writerow(["" if record[k] is None else record[k] for k in TVCP_KEYS])
    return buffer.getvalue()


def pair_split(pairs: Sequence[PairGold], settings: ExportSettings,
               splits: Mapping[str, str] | None) -> dict[str, str]:
    """``{_id: split}``: the given assignment (every pair must have one, and all follow-ups of a
    target the same) or :func:`~annotation.corpus.splits.grouped_split` by target key.

    Examples:
        >>> pairs = [PairGold(f"p{i}", f"t{i // 2}", "a", "b", 50.0, 10.0, 0.0, 50.0, 10.0, 0.0) for i in range(4)]
        >>> pair_split(pairs, ExportSettings(), {"p0": "train", "p1": "test", "p2": "train", "p3": "train"})
        Traceback (most recent call last):
        ...
        annotation.export.dataset.ExportError: target t0 has follow-ups in train and test; all of a target's follow-ups must share a split
    """
    ids = [p.external_id for p in pairs]
    if len(set(ids)) != len(ids):
        raise ExportError("a pair id appears more than once")
    if splits is None:
        return grouped_split(ids, [p.target_key for p in pairs], seed=settings.seed, ratios=settings.ratios)
    assignment: dict[str, str] = {}
    of_target: dict[str, str] = {}
    for pair in pairs:
        split = splits.get(pair.external_id)
        if split not in SPLITS:
            raise ExportError(f"pair {pair.external_id}: no split or an unknown one ({split!r})")
        first = of_target.setdefault(pair.target_key, split)
        if first != split:
            raise ExportError(f"target {pair.target_key} has follow-ups in {first} and {split}; all of a "
                              "target's follow-ups must share a split")
        assignment[pair.external_id] = split
    return assignment


def tvcp_statistics(records: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
    """Per split: pairs, targets, the counts of each change label and each class index of both
    curves, and how many change labels are a lead's override of the gold curves — the card's
    tables.

    Examples:
        >>> s = tvcp_statistics({"train": [{"target_id": "t", "change": "neutral", "context_only_tv": 0,
        ...                                 "combined_tv": 11}], "validation": [], "test": []})
        >>> s["train"]["pairs"], s["train"]["change"], s["train"]["combined_tv"][11], s["train"]["overrides"]
        (1, {'decreased': 0, 'neutral': 1, 'increased': 0}, 1, 0)
    """
    out: dict[str, Any] = {}
    for split, rows in records.items():
        out[split] = {
            "pairs": len(rows),
            "targets": len({r["target_id"] for r in rows}),
            "change": {label: sum(1 for r in rows if r["change"] == label) for label in CHANGE_LABELS},
            "context_only_tv": [sum(1 for r in rows if r["context_only_tv"] == i) for i in range(len(CLASS_NAMES))],
            "combined_tv": [sum(1 for r in rows if r["combined_tv"] == i) for i in range(len(CLASS_NAMES))],
            "overrides": sum(1 for r in rows if r.get("curves_change")),
        }
    return out


def encode_record(record: Mapping[str, Any]) -> str:
    """One record as a JSON line (:data:`TVCP_KEYS` order kept).

    Examples:
        >>> encode_record({"context": "ü", "change": "neutral"})
        '{"context": "ü", "change": "neutral"}'
    """
    try:
        return encode_json(record)
    except (TypeError, ValueError) as exc:
        raise ExportError(f"pair {record.get('_id')}: cannot write the record as JSON ({exc})") from None


__all__ = ["CSV_FILES", "CURVE_COLUMNS", "JSON_FILES", "PAIR_PROVENANCE_COLUMNS", "PairGold", "RELEASE_COLUMNS",
           "TVCP_CONFIG", "TVCP_KEYS", "TVCP_SPLIT_NAMES", "csv_text", "encode_record", "pair_split",
           "tvcp_record", "tvcp_statistics"]
