"""The dataset card (README.md) of a ``tvcp`` export: the YAML header declaring the ``tvcp``
config (and the ``annotations`` config of the individual annotations) for ``datasets``, then the
contents, how the export's splits map to the release's, the class-index mapping of both duration
columns and of ``change``, how the classes and the change are derived from the curves, the
distributions, the annotators' agreement (:mod:`annotation.export.tvcp_agreement`: before
adjudication, then on the settled gold, and the adjudication outcome), the time axis, the record
schema, the annotations and how to load it (with ``datasets``, or the CSV with pandas as the TVCP
authors' reader does)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from annotation.corpus.splits import SPLITS
from annotation.export.card import annotation_features
from annotation.export.card_agreement import agreement_lines
from annotation.export.card_experts import expert_section
from annotation.export.dataset import ANNOTATIONS_CONFIG, SPLIT_FILES
from annotation.export.manifest import ExportManifest
from annotation.export.tvcp_agreement import PAIR_INTRO, PAIR_MEANING
from annotation.export.tvcp import (
    CSV_FILES,
    JSON_FILES,
    TVCP_CONFIG,
    TVCP_KEYS,
    TVCP_SPLIT_NAMES,
)
from annotation.pairs.change import CHANGE_LABELS
from annotation.pairs.duration_classes import CLASS_NAMES
from annotation.timeaxis import minutes_to_x

#: Column types in the card's ``dataset_info`` (datasets' YAML feature syntax).
_TYPES: Mapping[str, str] = {
    "context": "string", "follow_up": "string", "context_only_tv": "int64", "combined_tv": "int64",
    "change": "string", "xi": "float64", "omega": "float64", "alpha": "float64", "context_xi": "float64",
    "context_omega": "float64", "context_alpha": "float64", "_id": "string", "target_id": "string",
    "n_annotations": "int64", "reference_context_only_tv": "int64", "reference_combined_tv": "int64",
    "reference_change": "string", "curves_change": "string", "w1": "float64", "pk": "float64", "jaccard": "float64",
    "resolution": "string", "confidence": "int64", "error_type": "string", "pooling": "string",
    "pool_weights": "string",
}


def tvcp_header(manifest: ExportManifest) -> dict[str, Any]:
    """The YAML header: licence, and — when it has rows — the ``tvcp`` config (the default) with
    its JSON Lines files of the splits that have rows and its features in record order; then,
    when it has rows, the ``annotations`` config (a pair's interchange records).

    Examples:
        >>> from annotation.export.manifest import ExportManifest
        >>> m = ExportManifest(1, "P", "2026-11-29T10:00:00Z", "lea", 1.1, 0, "cc-by-4.0", (0.7, 0.2, 0.1),
        ...                    {"tvcp": {"train": 5, "validation": 0, "test": 1}}, {})
        >>> h = tvcp_header(m)
        >>> h["configs"][0]["data_files"], h["dataset_info"][0]["features"][2]
        ([{'split': 'train', 'path': 'tvcp/train.json'}, {'split': 'test', 'path': 'tvcp/test.json'}], {'name': 'context_only_tv', 'dtype': 'int64'})
    """
    header: dict[str, Any] = {
        "pretty_name": manifest.project,
        "license": manifest.licence,
        "language": ["en"],
        "tags": ["temporal-validity", "temporal-validity-change-prediction", "chronocept"],
    }
    present = [s for s in SPLITS if manifest.counts.get(TVCP_CONFIG, {}).get(s, 0) > 0]
    if present:
        header["configs"] = [{"config_name": TVCP_CONFIG, "default": True, "data_files": [
            {"split": s, "path": f"{TVCP_CONFIG}/{JSON_FILES[s]}"} for s in present]}]
        header["dataset_info"] = [{"config_name": TVCP_CONFIG,
                                   "features": [{"name": k, "dtype": _TYPES[k]} for k in TVCP_KEYS]}]
        annotated = [s for s in SPLITS if manifest.counts.get(ANNOTATIONS_CONFIG, {}).get(s, 0) > 0]
        if annotated:
            header["configs"].append({"config_name": ANNOTATIONS_CONFIG, "data_files": [
                {"split": s, "path": f"{ANNOTATIONS_CONFIG}/{SPLIT_FILES[s]}"} for s in annotated]})
            header["dataset_info"].append({"config_name": ANNOTATIONS_CONFIG,
                                           "features": annotation_features(pairs=True)})
    return header


def class_mapping_lines() -> list[str]:
    """The card's table of the duration classes by index, and the change labels by index.

    Examples:
        >>> lines = class_mapping_lines()
        >>> lines[2], lines[13]
        ('| 0 | no time-sensitive information |', '| 11 | more than 1 month |')
    """
    out = ["| index | duration class (`context_only_tv`, `combined_tv`) |", "|---:|---|"]
    out += [f"| {i} | {name} |" for i, name in enumerate(CLASS_NAMES)]
    out += ["", "| index | `change` |", "|---:|---|"]
    out += [f"| {i} | {label} |" for i, label in enumerate(CHANGE_LABELS)]
    return out


def tvcp_card(manifest: ExportManifest) -> str:
    """The README.md of a ``tvcp`` export (module docstring).

    Examples:
        >>> from annotation.export.manifest import ExportManifest
        >>> m = ExportManifest(1, "P", "2026-11-29T10:00:00Z", "lea", 1.1, 0, "cc-by-4.0", (0.7, 0.2, 0.1),
        ...                    {"tvcp": {"train": 5, "validation": 0, "test": 1}}, {})
        >>> "| 1 | less than one minute |" in tvcp_card(m) and "`valid.csv` = dev" in tvcp_card(m)
        True
    """
    header = yaml.safe_dump(tvcp_header(manifest), sort_keys=False, allow_unicode=True, width=1000)
    stats: Mapping[str, Any] = (manifest.statistics or {}).get(TVCP_CONFIG) or {}
    b = manifest.base
    factor = stats.get("change_factor")
    counts = manifest.counts.get(TVCP_CONFIG, {})
    out = ["---", header.rstrip("\n"), "---", "",
           f"# {_one_line(manifest.project)} — temporal validity change dataset", "",
           "Pairs of a *target statement* (`context`) and a *follow-up statement* (`follow_up`) in the columns "
           "of the Temporal Validity Change Prediction release (Wenzel & Jatowt): does the follow-up "
           "decrease, keep or increase how long the target stays valid? Annotators drew a validity curve "
           "of the target alone and one of the target given the follow-up; the duration classes and the "
           "change are read off those gold curves, whose parameters are included.", "",
           f"Exported with Chronocept Studio on {_one_line(manifest.created_at)} by "
           f"{_one_line(manifest.created_by)} (export {_one_line(str(manifest.export_id))}).", "",
           "## Contents", "",
           "| split | TVCP split | files | pairs | targets |", "|---|---|---|---:|---:|"]
    for split in SPLITS:
        per = stats.get(split) or {}
        out.append(f"| {split} | {TVCP_SPLIT_NAMES[split]} | `{TVCP_CONFIG}/{JSON_FILES[split]}`, "
                   f"`{TVCP_CONFIG}/{CSV_FILES[split]}` | {counts.get(split, 0)} | {per.get('targets', 0)} |")
    out += ["", "Splits: " + ", ".join(f"`{CSV_FILES[s]}` = {TVCP_SPLIT_NAMES[s]}" for s in SPLITS)
            + " of the release. All follow-ups of one target are in the same split (grouped by `target_id`), "
            f"about {' / '.join(f'{r:.0%}' for r in manifest.ratios)} of the pairs, seed {manifest.seed}; "
            "`export.json` lists the `_id`s of every split. The `.json` files (JSON Lines) and the `.csv` "
            "files hold the same rows and columns.", "",
           "Every text is exactly as written, in the CSV files too: a `context` or `follow_up` may start with "
           "`=`, `+`, `-` or `@`, which a spreadsheet opening the file would run as a formula. Read the CSV as "
           "data (pandas, the TVCP reader) or import it into a spreadsheet as text; Chronocept Studio's Export "
           "page offers a copy of the pairs for spreadsheets, whose such cells start with `'`.", "",
           "## Class indices", "", *class_mapping_lines(), "",
           "`change` is written as its label; the indices are those of the TVCP dataset reader's label map "
           "(decreased 0, neutral 1, increased 2).", "",
           "## How the classes and the change are derived", "",
           "A curve's duration class is the class holding its *half-gone time*: the time after the curve's "
           "peak at which the validity has fallen to half of it. A class holds its lower edge and not its "
           "upper one (exactly 5 minutes is 5–15 minutes); *more than 6 hours* ends at 1 day, *1–4 weeks* at "
           "28 days, and *more than 1 month* holds everything later, including a curve still more than half "
           "valid at the chart's end. A curve already below half its peak at one minute is *less than one "
           "minute*. A curve that stays at or above half of its highest point over the whole axis (one minute "
           "to the chart's end) is flat: it says nothing about time, class 0, *no time-sensitive information*.",
           "",
           "`change` is the gold change label. Annotators confirm or override the label derived from the two "
           "curves: the follow-up makes the target valid 1.1^(h₁ − h₀) times as long (h₀, h₁ the half-gone "
           "times of the target alone and given the follow-up); at least the project's time factor is "
           "*increased*, at most its inverse *decreased*, anything between *neutral*"
           + (f" (this project's factor: ×{factor:g})." if isinstance(factor, (int, float)) else ".")
           + " Gold without a label of its own gets the derived one.", "",
           *_override_lines(stats),
           "## Distributions", "",
           "| | " + " | ".join(SPLITS) + " |", "|---|" + "---:|" * len(SPLITS)]
    for label in CHANGE_LABELS:
        out.append(f"| change: {label} | " + " | ".join(str((stats.get(s) or {}).get("change", {}).get(label, 0))
                                                        for s in SPLITS) + " |")
    for column in ("context_only_tv", "combined_tv"):
        for index, name in enumerate(CLASS_NAMES):
            cells = [(stats.get(s) or {}).get(column, [0] * len(CLASS_NAMES))[index] for s in SPLITS]
            if any(cells):
                out.append(f"| `{column}` {index} ({name}) | " + " | ".join(map(str, cells)) + " |")
    out += ["", "## Agreement", ""]
    out += (agreement_lines(manifest.agreement, b, intro=PAIR_INTRO, meaning=PAIR_MEANING) if manifest.agreement
            else ["No agreement figures were given with this export."])
    out += expert_section(manifest.agreement)
    out += [
        "", "## Columns", "",
        "In this order: " + ", ".join(f"`{k}`" for k in TVCP_KEYS) + ".", "",
        "The first five are the release's. `xi`, `omega`, `alpha` are the gold curve of the target alone "
        "and `context_xi`, `context_omega`, `context_alpha` the gold curve given the follow-up: the skew-normal "
        "density f(x) = (2/ω) φ((x−ξ)/ω) Φ(α(x−ξ)/ω) over x = ln(t) / ln(" + f"{b:g}) with t in minutes "
        f"(x = 0 is one minute, 1 hour ≈ {minutes_to_x(60.0, b):.2f}, 1 day ≈ {minutes_to_x(1440.0, b):.2f}); "
        f"ξ and ω are in base-{b:g} log minutes (multiply by ln({b:g}) / ln(c) for base c), α is unitless.",
        "",
        "Provenance: `_id` is the pair's id, `target_id` groups the follow-ups of one target, "
        "`n_annotations` counts the pair's submitted annotations, `reference_*` are the labels of an "
        "imported release (empty where none), `curves_change` the label the gold curves give where `change` "
        "is a lead's override of it (empty otherwise). Then, as in the `provenance` of Chronocept's benchmark configs "
        "(computed over the curves of the target alone): `w1` (largest W1 between two annotators' curves, "
        f"base {b:g}), `pk` and `jaccard` (between segmentations, empty where the targets were not "
        "segmented), `resolution` (automatic, edited, taken or pooled), the lead's `confidence` (1–5) and "
        "`error_type` (empty where no lead decided).", "",
        "## Annotations", "",
        f"`{ANNOTATIONS_CONFIG}/{{train,valid,test}}.json` hold every submitted annotation of the pairs of "
        f"each split ({sum(manifest.counts.get(ANNOTATIONS_CONFIG, {}).values())} in all), annotators by "
        "pseudonym, as records of Chronocept's interchange format: `sample_id` (the pair's `_id`), "
        "`annotator`, `boundaries` and `segment_axes` (empty where targets were not segmented), `points`, "
        "`xi`, `omega`, `alpha` (the curve of the target alone), `flags`, `note`, `submitted_at`, then "
        "`context_points`, `context_xi`, `context_omega`, `context_alpha` (the curve given the follow-up) "
        f"and `change` (the annotator's override of the derived label, empty where none); x, ξ and ω in base "
        f"{b:g}; last the pair's `provenance`, as above. `chronocept import annotations path/to/this/folder` "
        "imports them into another context-pairs project holding these pairs (values converted back to "
        "base 1.1).", "",
        "## Licence", "", f"`{manifest.licence}`.", "",
        "## Loading", "",
        "```python",
        "from datasets import load_dataset",
        'pairs = load_dataset("path/to/this/folder", "tvcp")',
        f'annotations = load_dataset("path/to/this/folder", "{ANNOTATIONS_CONFIG}")',
        "",
        "import pandas as pd",
        f'train = pd.read_csv("path/to/this/folder/{TVCP_CONFIG}/{CSV_FILES["train"]}")',
        "label_map = {'decreased': 0, 'neutral': 1, 'increased': 2}",
        "labels = train['change'].map(label_map)",
        "```", "",
        "Every split file exists, but a split without rows is not declared above (`datasets` cannot load "
        "an empty split); `export.json` has the counts.", "",
    ]
    return "\n".join(out)


def _override_lines(stats: Mapping[str, Any]) -> list[str]:
    """What a lead override is, and how many of this export's pairs hold one, per split.

    Examples:
        >>> _override_lines({"train": {"overrides": 2}, "test": {"overrides": 1}})[0].split("In this export ")[1]
        '3 of its pairs hold one (train 2, validation 0, test 1).'
    """
    per = {split: int((stats.get(split) or {}).get("overrides", 0)) for split in SPLITS}
    total = sum(per.values())
    counted = (f"{total} of its pairs hold{'s' if total == 1 else ''} one ("
               + ", ".join(f"{split} {n}" for split, n in per.items()) + ")." if total else "none of its pairs holds one.")
    return ["A *lead override* is a gold change label that the gold curves do not give: a lead who decided the "
            "pair chose another label and said why in the review note. Its record's `curves_change` holds the "
            "label the curves give (empty otherwise); the duration classes still come from the curves. In this "
            "export " + counted, ""]


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


__all__ = ["class_mapping_lines", "tvcp_card", "tvcp_header"]
