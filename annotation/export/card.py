"""The dataset card of the export (its README.md): the YAML header that declares the configs,
splits and features for ``datasets``, then the counts, axis distribution, target statistics, time
axis, agreement figures, licence, record schema and how to load it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from annotation.axes import AXES, EXPORT_KEYS
from annotation.corpus.dataset_stats import PARAMETER_OF_TARGET, TARGET_KEYS, DatasetStatistics
from annotation.export.dataset import (
    ANNOTATIONS_CONFIG,
    BENCHMARK_CONFIGS,
    CONFIGS,
    PROVENANCE_KEYS,
    SPLIT_FILES,
)
from annotation.export.card_agreement import agreement_lines
from annotation.export.card_experts import expert_section
from annotation.export.manifest import ExportManifest
from annotation.parameters import PARAMETER_SYMBOLS
from annotation.export.records import ANNOTATION_KEYS, PAIR_ANNOTATION_KEYS, PROVENANCE_KEY, RECORD_KEYS, encode_json
from annotation.corpus.splits import SPLITS
from annotation.timeaxis import minutes_to_x


# Column types of the configs in the card's ``dataset_info`` (datasets' YAML feature syntax).
_BENCHMARK_FEATURE_TYPES: Mapping[str, Mapping[str, Any]] = {
    "_id": {"dtype": "string"},
    "parent_text": {"dtype": "string"},
    "axes": {"struct": [{"name": key, "dtype": "string"} for key in EXPORT_KEYS]},
    "target_values": {"struct": [{"name": key, "dtype": "float64"} for key in TARGET_KEYS]},
}
_ANNOTATION_FEATURE_TYPES: Mapping[str, Mapping[str, Any]] = {
    "sample_id": {"dtype": "string"},
    "annotator": {"dtype": "string"},
    "boundaries": {"list": "int64"},
    "segment_axes": {"list": "string"},
    "points": {"list": {"list": "float64"}},
    "xi": {"dtype": "float64"},
    "omega": {"dtype": "float64"},
    "alpha": {"dtype": "float64"},
    "flags": {"list": "string"},
    "note": {"dtype": "string"},
    # pyarrow's JSON reader turns ISO timestamps into timestamps before datasets casts the
    # column; declared as a string it would come back as "2026-11-20 10:31:00".
    "submitted_at": {"dtype": "timestamp[s, tz=UTC]"},
}
#: A context pair's annotation record: the curve given the follow-up and the change override.
_PAIR_ANNOTATION_FEATURE_TYPES: Mapping[str, Mapping[str, Any]] = {
    "context_points": {"list": {"list": "float64"}},
    "context_xi": {"dtype": "float64"},
    "context_omega": {"dtype": "float64"},
    "context_alpha": {"dtype": "float64"},
    "change": {"dtype": "string"},
}
_PROVENANCE_TYPES: Mapping[str, str] = {"w1": "float64", "pk": "float64", "jaccard": "float64",
                                         "resolution": "string", "confidence": "int64",
                                         "error_type": "string", "pooling": "string", "pool_weights": "string"}
#: The ``provenance`` key after the public ones, in both kinds of record.
_PROVENANCE_FEATURE = {"name": PROVENANCE_KEY,
                       "struct": [{"name": k, "dtype": _PROVENANCE_TYPES[k]} for k in PROVENANCE_KEYS]}


def annotation_features(pairs: bool = False) -> list[dict[str, Any]]:
    """The ``features`` of the ``annotations`` config in record key order: the interchange
    record's, a context pair's fields after them (``pairs``), then ``provenance``."""
    keys = (*ANNOTATION_KEYS, *PAIR_ANNOTATION_KEYS) if pairs else ANNOTATION_KEYS
    types = {**_ANNOTATION_FEATURE_TYPES, **_PAIR_ANNOTATION_FEATURE_TYPES}
    return [*({"name": key, **types[key]} for key in keys), _PROVENANCE_FEATURE]


def _features(config: str) -> list[dict[str, Any]]:
    """The ``features`` list of one config, in record key order (a KeyError here means the
    record gained a key without a declared type)."""
    if config == ANNOTATIONS_CONFIG:
        return annotation_features()
    return [*({"name": key, **_BENCHMARK_FEATURE_TYPES[key]} for key in RECORD_KEYS), _PROVENANCE_FEATURE]


def card_header(manifest: ExportManifest) -> dict[str, Any]:
    """The YAML header of the card: licence, and for every config with rows its data files (only
    splits with rows — see the module docstring) and its features (``dataset_info``), so column
    order and types are fixed. The first benchmark with rows is the default config."""
    configs, infos = [], []
    for config in CONFIGS:
        present = [s for s in SPLITS if manifest.counts.get(config, {}).get(s, 0) > 0]
        if not present:
            continue
        entry: dict[str, Any] = {"config_name": config}
        if not configs and config != ANNOTATIONS_CONFIG:
            entry["default"] = True
        entry["data_files"] = [{"split": s, "path": f"{config}/{SPLIT_FILES[s]}"} for s in present]
        configs.append(entry)
        infos.append({"config_name": config, "features": _features(config)})
    header: dict[str, Any] = {
        "pretty_name": manifest.project,
        "license": manifest.licence,
        "language": ["en"],
        "tags": ["temporal-validity", "chronocept"],
    }
    if configs:
        header["configs"] = configs
        header["dataset_info"] = infos
    return header


def dataset_card(manifest: ExportManifest) -> str:
    """The README.md of the export: YAML header (:func:`card_header`), then the project, counts
    per benchmark and split, axis distribution and parameter mean/SD per benchmark, the log base
    and how to convert it, agreement figures and the annotators as experts (when given), licence, record schema, how to load."""
    header = yaml.safe_dump(card_header(manifest), sort_keys=False, allow_unicode=True, width=1000)
    stats = {config: DatasetStatistics.from_json(manifest.statistics[config])
             for config in BENCHMARK_CONFIGS.values() if config in manifest.statistics}
    b = manifest.base
    out: list[str] = ["---", header.rstrip("\n"), "---", ""]
    out += [
        f"# {_one_line(manifest.project)} — temporal validity dataset",
        "",
        "Short English texts annotated with how long what they say stays valid, in the Chronocept "
        "format: each text is split into segments labelled with eight temporal axes, and its "
        "validity over time is a skew-normal curve on a logarithmic time axis, given by its "
        "location, scale and skewness. The values here are the project's gold values: independent "
        "annotations resolved automatically or adjudicated by a lead.",
        "",
        f"Exported with Chronocept Studio on {_one_line(manifest.created_at)} by "
        f"{_one_line(manifest.created_by)} (export {_one_line(str(manifest.export_id))}).",
        "",
        "## Contents",
        "",
        "| config | train | validation | test | total |",
        "|---|---:|---:|---:|---:|",
    ]
    for config in CONFIGS:
        counts = manifest.counts.get(config, {})
        row = [counts.get(s, 0) for s in SPLITS]
        out.append(f"| `{config}` | " + " | ".join(str(n) for n in row) + f" | {sum(row)} |")
    out += [
        "",
        "`benchmark_1` holds single sentences, `benchmark_2` multi-sentence passages; `annotations` "
        "holds every individual annotation of the samples of each split (annotators by pseudonym).",
        f"Splits: train/validation/test = {' / '.join(f'{r:.0%}' for r in manifest.ratios)} of each "
        "benchmark, stratified over the set of axes each sample uses by iterative stratification "
        "(Sechidis, Tsoumakas & Vlahavas 2011, *On the stratification of multi-label data*), "
        f"seed {manifest.seed}. `export.json` lists the `_id`s of every split.",
    ]
    if manifest.annotations_left_out:
        out.append(f"{manifest.annotations_left_out} annotations of samples outside this export were left out.")
    out += ["", "## Axis distribution", "",
            "Share of samples using each axis (a non-empty axis field), with counts.", ""]
    if stats:
        names = list(stats)
        out.append("| axis | " + " | ".join(f"`{n}`" for n in names) + " |")
        out.append("|---|" + "---:|" * len(names))
        for axis in AXES:
            cells = []
            for name in names:
                overall = stats[name].overall
                cells.append(f"{overall.axis_shares[axis.export_key]:.1%} ({overall.axis_counts[axis.export_key]})"
                             if overall.n_samples else "—")
            out.append(f"| {axis.label} (`{axis.export_key}`) | " + " | ".join(cells) + " |")
        out += ["", "## Target values and text length", "",
                f"Mean ± standard deviation over all splits (location and scale in base-{b:g} "
                "log minutes, skewness unitless; text length in tokens).", ""]
        out.append("| | " + " | ".join(f"`{n}`" for n in names) + " |")
        out.append("|---|" + "---:|" * len(names))
        for key in TARGET_KEYS:
            symbol = PARAMETER_SYMBOLS[PARAMETER_OF_TARGET[key]]
            out.append(f"| {key} ({symbol}) | "
                       + " | ".join(_mean_sd(stats[n].overall.targets[key]) for n in names) + " |")
        out.append("| tokens per text | " + " | ".join(_mean_sd(stats[n].overall.token_length) for n in names) + " |")
    out += [
        "",
        "## Time axis",
        "",
        f"Times are minutes since publication t on the axis x = ln(t) / ln({b:g}) "
        f"(1 hour ≈ {minutes_to_x(60.0, b):.2f}, 1 day ≈ {minutes_to_x(1440.0, b):.2f}, "
        f"1 week ≈ {minutes_to_x(10080.0, b):.2f}); x = 0 is one minute. Location and scale are on "
        f"this axis, so t = {b:g}^x. To use another base c, multiply location and scale by "
        f"ln({b:g}) / ln(c); skewness does not change. The curve is the skew-normal density "
        "f(x) = (2/ω) φ((x−ξ)/ω) Φ(α(x−ξ)/ω) with ξ = location, ω = scale, α = skewness.",
        "",
        "## Agreement",
        "",
    ]
    if manifest.agreement:
        out += agreement_lines(manifest.agreement, b)
    else:
        out.append("No agreement figures were given with this export.")
    out += expert_section(manifest.agreement)
    out += [
        "",
        "## Licence",
        "",
        f"`{manifest.licence}`.",
        "",
        "## Record schema",
        "",
        "Each line of `benchmark_N/*.json` is one JSON object with keys in exactly this order "
        "(`axes` and `target_values` keys too — consumers may read them positionally):",
        "",
        "```json",
        encode_json({
            "_id": "B1-00042", "parent_text": "...",
            "axes": {key: "..." if key == EXPORT_KEYS[0] else "" for key in EXPORT_KEYS},
            "target_values": dict(zip(TARGET_KEYS, (54.1, 11.2, -0.4))),
        }),
        "```",
        "",
        "Each axis field is the text of the segments carrying that axis, in text order, joined by "
        "one space, or \"\" when no segment carries it; a segment may carry several axes. "
        "Each line of `annotations/*.json` is one annotation: "
        + ", ".join(f"`{k}`" for k in ANNOTATION_KEYS)
        + " — `boundaries` are the token indices where segments start, `segment_axes` one axis name "
        f"per segment, `points` the annotator's [x, relative validity] points (x, `xi` and `omega` in "
        f"base {b:g}), `submitted_at` ISO 8601 UTC (read by `datasets` as a UTC timestamp). "
        "Both kinds of record end with `provenance`: the sample's W1 (largest between two "
        f"annotators' curves, base {b:g}), Pk (largest) and Jaccard (lowest) between its annotations, "
        "the resolution of its gold (automatic, edited, taken or pooled) and the lead's confidence "
        "(1–5) and error type (null where no lead decided), the rule that pooled the annotators' curves "
        "into the gold curve (`pooling`: equal, calibration — Cooke's calibration × information on the "
        "seeds — or model — the annotator model's bias-corrected, precision-weighted mean) and each "
        "annotator's weight in it (`pool_weights`, JSON text: pseudonym → weight; null where no rule "
        "pooled: a lead's edit or choice of one version). The annotation records are Chronocept's "
        "interchange format: `chronocept import annotations path/to/this/folder` imports them into "
        "another project holding these texts (values converted back to base 1.1).",
        "",
        "## Loading",
        "",
        "```python",
        "from datasets import load_dataset",
        'benchmark_1 = load_dataset("path/to/this/folder", "benchmark_1")',
        'annotations = load_dataset("path/to/this/folder", "annotations")',
        "```",
        "",
        "Every split file exists, but a split or config without rows is not declared above "
        "(`datasets` cannot load an empty split); `export.json` has the counts.",
        "",
    ]
    return "\n".join(out)


def _mean_sd(figure: Any) -> str:
    if figure.mean is None:
        return "—"
    if figure.sd is None:
        return f"{figure.mean:.2f}"
    return f"{figure.mean:.2f} ± {figure.sd:.2f}"


def _one_line(text: str) -> str:
    return " ".join(str(text).split())
