"""The HuggingFace dataset export (SPEC section 7): gold samples and annotations → a folder that
``datasets.load_dataset(folder, "benchmark_1")`` loads offline.

Shaped like doccano's export pipeline — **dataset → formatter → writer** — one module a stage,
with one short task function, :func:`export_hf_dataset` (here), driving them:

* :mod:`~annotation.export.dataset` — the plain input values the service builds from the
  database (:class:`GoldSample`, :class:`ExportAnnotation` or interchange dicts,
  :class:`ExportSettings`, :class:`ExportMeta`), the layout's names and the split assignment
  (:func:`annotation.corpus.splits.stratified_split`);
* formatters: :mod:`~annotation.export.records` — :func:`benchmark_record` (one gold sample →
  one benchmark record), :func:`annotation_record` (one annotation → one interchange record,
  SPEC section 11); :mod:`~annotation.export.card` — :func:`dataset_card` (the README.md);
  :mod:`~annotation.export.manifest` — :class:`ExportManifest` (``export.json``);
* :mod:`~annotation.export.writer` — :func:`write_json_lines`, and the atomic move into place;
* :mod:`~annotation.export.reader` — an export read back (:func:`read_export`) or zipped
  (:func:`zip_export`).

Folder layout (the public Chronocept release's, plus the ``annotations`` config and a manifest)::

    OUT/README.md                         dataset card, YAML header declaring the configs
    OUT/benchmark_1/train.json valid.json test.json      JSON Lines, one record per sample
    OUT/benchmark_2/train.json valid.json test.json
    OUT/annotations/train.json valid.json test.json      every individual annotation of the
                                                         samples of that split
    OUT/export.json                       manifest: who/when/settings/counts/split membership

Benchmark record (key order fixed; consumers read ``axes`` and ``target_values`` positionally)::

    {"_id": "B1-00042", "parent_text": "...",
     "axes": {"main_outcome_axis": "...", "static_axis": "", ..., "recurrent_axis": ""},
     "target_values": {"location": 54.1, "scale": 11.2, "skewness": -0.4}}

Each axis field is the text of the segments carrying that axis, in text order, joined by one
space, "" when none; a segment's text runs from its first token's start to its last token's end
(tokens of :func:`annotation.segmentation.tokenize`). A gold segment can carry several axes and
then contributes to each. Stored parameters are on the base-1.1 log-minute axis; an export in
base b multiplies location and scale — and the annotation points' x — by ln(1.1)/ln(b)
(:func:`annotation.timeaxis.convert_base`); skewness is unchanged.

A context-pairs project writes the ``tvcp`` configuration instead (:func:`export_tvcp_dataset`,
layout and record in :mod:`~annotation.export.tvcp`, card in :mod:`~annotation.export.tvcp_card`):
``OUT/tvcp/{train,valid,test}.json`` and the same rows as ``.csv``, and the ``annotations``
config (each record with the curve given the follow-up), its card and manifest.

**Empty splits.** ``datasets`` 5.2 cannot load a declared split that has no rows ("Instruction
... corresponds to no data", huggingface/datasets PR #8401, open). So every split file is always
written — possibly empty — and counted in the manifest, but the card's YAML declares only the
splits that have rows, and only the configs that have rows. Loading an export without benchmark-2
samples as ``"benchmark_2"`` therefore raises datasets' "BuilderConfig 'benchmark_2' not found"
error; a config with an empty test split loads without a ``test`` key. :func:`read_export` reads
every file, empty ones included.

**Atomic.** Everything is written into a hidden sibling folder ``.OUT.tmp-…`` and renamed into
place when complete; an exception removes it and leaves OUT as it was. A folder left by a killed
process names its writer, so :func:`remove_abandoned_staging` can tell it from one a live export
still writes (:mod:`~annotation.export.writer`).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from annotation.corpus.dataset_stats import TARGET_KEYS, dataset_statistics
from annotation.agreement.measure import json_ready
from annotation.export.card import card_header, dataset_card
from annotation.export.card_agreement import agreement_lines, card_figures
from annotation.export.dataset import (
    ANNOTATIONS_CONFIG,
    BENCHMARK_CONFIGS,
    BENCHMARKS,
    CARD_FILE,
    CONFIGS,
    DEFAULT_LICENCE,
    DEFAULT_SEED,
    FORMAT_VERSION,
    MANIFEST_FILE,
    SPLIT_FILES,
    ExportAnnotation,
    ExportError,
    ExportMeta,
    ExportSettings,
    PROVENANCE_KEYS,
    GoldSample,
    Provenance,
    base_factor,
    split_assignment,
)
from annotation.export.manifest import ExportManifest
from annotation.export.reader import ExportContents, read_export, spreadsheet_csv, zip_export
from annotation.export.records import (
    ANNOTATION_KEYS,
    PROVENANCE_KEY,
    RECORD_KEYS,
    annotation_record,
    axis_texts,
    benchmark_record,
    encode_json,
    finish_lines,
    format_annotations,
    format_samples,
)
from annotation.export.writer import (
    ABANDONED_AFTER_SECONDS,
    WRITER_MARKER,
    check_destination,
    remove_abandoned_staging,
    write_export,
    write_folder,
    write_json_lines,
    writer_identity,
    writer_is_alive,
)
from annotation.export.tvcp import (
    CSV_FILES,
    JSON_FILES,
    TVCP_CONFIG,
    TVCP_KEYS,
    PairGold,
    csv_text,
    encode_record,
    pair_split,
    tvcp_record,
    tvcp_statistics,
)
from annotation.export.tvcp_agreement import PAIR_FIGURE_NEEDS
from annotation.export.tvcp_card import tvcp_card
from annotation.corpus.splits import SPLITS, split_membership


def export_hf_dataset(
    out_dir: Path | str,
    samples: Iterable[GoldSample],
    annotations: Iterable[ExportAnnotation | Mapping[str, Any]],
    settings: ExportSettings,
    *,
    meta: ExportMeta | Mapping[str, Any],
    agreement: Mapping[str, Any] | Callable[[], Mapping[str, Any] | None] | None = None,
    splits: Mapping[str, str] | None = None,
    overwrite: bool = False,
    provenance: Mapping[str, Provenance] | Callable[[], Mapping[str, Provenance]] | None = None,
) -> ExportManifest:
    """Write the HuggingFace dataset folder ``out_dir`` (layout in the module docstring) and
    return its manifest.

    ``samples``: the gold samples of both benchmarks (ids unique). ``annotations``: the
    individual annotations (:class:`ExportAnnotation` or interchange dicts); those whose sample
    is not among ``samples`` are left out and counted. ``splits``: ``{_id: split}`` to reproduce
    a stored export exactly (every sample must have one; extra ids are ignored); when None each
    benchmark is split by :func:`annotation.corpus.splits.stratified_split` over the axes its samples
    use, with ``settings.seed`` and ``settings.ratios``. ``agreement``: figures for the card, per config
    as :func:`card_figures` makes them (each figure with its interval, W1 in its ``w1_base``
    and written in ``settings.base``), or any other mapping (e.g. ``{"icc_xi": 0.93}`` or
    nested mappings), rendered as given. ``meta``: :class:`ExportMeta` or a mapping with its keys.
    ``provenance``: ``{_id: Provenance}`` written instead of a sample's own
    :attr:`GoldSample.provenance` (ids it lacks keep their own).

    ``agreement`` and ``provenance`` may also be callables without arguments returning them: they
    are called once every record is formatted, so a caller can compute them meanwhile in another
    thread (the service does: numpy over every pair of curves, beside this pure-Python pass).

    Atomic: written into a hidden temporary sibling of ``out_dir`` and renamed into place when
    complete. Raises FileExistsError when ``out_dir`` exists and is not an empty folder (unless
    ``overwrite``, which replaces it), :class:`ExportError` (a ValueError) for bad input; after
    any exception ``out_dir`` is as it was and no temporary folder is left.
    """
    out_dir = Path(os.path.abspath(out_dir))
    if not out_dir.name:
        raise ExportError(f"cannot export into {out_dir}")
    check_destination(out_dir, overwrite)
    meta = ExportMeta.of(meta)
    # Formatting allocates a few million small, acyclic objects next to the caller's large input;
    # the cyclic collector would rescan that heap again and again (measured: 2–3× slower at
    # 100k samples). Nothing here makes cycles, so collection waits until the export is done.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _export(out_dir, samples, annotations, settings, meta, agreement, splits, overwrite, provenance)
    finally:
        if collecting:
            gc.enable()


def _export(
    out_dir: Path,
    samples: Iterable[GoldSample],
    annotations: Iterable[ExportAnnotation | Mapping[str, Any]],
    settings: ExportSettings,
    meta: ExportMeta,
    agreement: Mapping[str, Any] | Callable[[], Mapping[str, Any] | None] | None,
    splits: Mapping[str, str] | None,
    overwrite: bool,
    provenance: Mapping[str, Provenance] | Callable[[], Mapping[str, Provenance]] | None,
) -> ExportManifest:
    factor = base_factor(settings.base)

    ordered = sorted(samples, key=lambda s: s.external_id)
    split_of = split_assignment(ordered, settings, splits)

    # Formatters: one pass over the samples and one over the annotations, encoding as they go;
    # each record's provenance (its last key) is encoded once per sample and appended after.
    records, heads, token_lengths = format_samples(ordered, split_of, factor)
    annotation_heads, left_out = format_annotations(annotations, split_of, factor)
    statistics = {
        config: dataset_statistics(records[config], token_lengths=token_lengths).to_json()
        for config in BENCHMARK_CONFIGS.values()
    }
    # what the caller computes meanwhile (see the docstring) is taken only now
    given = (provenance() if callable(provenance) else provenance) or {}
    provenance_json = {s.external_id: encode_json(given.get(s.external_id, s.provenance).to_json(factor))
                       for s in ordered}
    heads[ANNOTATIONS_CONFIG] = annotation_heads
    lines = {config: {split: finish_lines(per_split[split], provenance_json) for split in SPLITS}
             for config, per_split in heads.items()}
    if callable(agreement):
        agreement = agreement()
    manifest = ExportManifest(
        export_id=meta.export_id,
        project=meta.project,
        created_at=meta.created_at_text,
        created_by=meta.created_by,
        base=settings.base,
        seed=settings.seed,
        licence=settings.licence,
        ratios=settings.ratios,
        counts={c: {s: len(lines[c][s]) for s in SPLITS} for c in CONFIGS},
        splits={
            config: {s: [r["_id"] for r in records[config][s]] for s in SPLITS}
            for config in BENCHMARK_CONFIGS.values()
        },
        annotations_left_out=left_out,
        agreement=json_ready(agreement) if agreement is not None else None,
        statistics=statistics,
    )
    card = dataset_card(manifest)

    write_export(out_dir, lines, card, manifest, overwrite)
    return manifest


def export_tvcp_dataset(
    out_dir: Path | str,
    pairs: Iterable[PairGold],
    settings: ExportSettings,
    *,
    meta: ExportMeta | Mapping[str, Any],
    change_factor: float,
    annotations: Iterable[Mapping[str, Any]] = (),
    splits: Mapping[str, str] | None = None,
    overwrite: bool = False,
    provenance: Mapping[str, Provenance] | Callable[[], Mapping[str, Provenance]] | None = None,
    agreement: Mapping[str, Any] | Callable[[], Mapping[str, Any] | None] | None = None,
) -> ExportManifest:
    """Write the ``tvcp`` export folder ``out_dir`` (layout in the module docstring) and return
    its manifest — atomically, like :func:`annotation.export.export_hf_dataset`, whose
    ``annotations`` (interchange dicts in base 1.1, here with a pair's fields), ``splits``,
    ``overwrite``, ``provenance`` and ``agreement`` (mappings or callables giving one, called once
    the records are formatted) mean the same; ``agreement`` is the pairs card's
    (:func:`~annotation.export.tvcp_agreement.pair_agreement_figures`), written with its rules
    in ``agreement.json``. ``change_factor``: the project's time factor, for gold that holds no
    change label. Raises FileExistsError and :class:`ExportError` as it does.

    Examples:
        >>> import tempfile
        >>> pairs = [PairGold(f"p{i}", f"t{i // 3}", "Interview tomorrow.", f"Follow-up {i}.", 45.0, 10.0, 0.0,
        ...                   45.0 + i, 10.0, 0.0, change="neutral") for i in range(30)]
        >>> out = Path(tempfile.mkdtemp()) / "e"
        >>> m = export_tvcp_dataset(out, pairs, ExportSettings(seed=1), change_factor=1.5,
        ...                         meta=ExportMeta(1, "Pairs", "lea", "2026-11-29T10:00:00Z"))
        >>> m.counts[TVCP_CONFIG], sorted(p.name for p in (out / TVCP_CONFIG).iterdir())[:3]
        ({'train': 21, 'validation': 6, 'test': 3}, ['test.csv', 'test.json', 'train.csv'])
    """
    out_dir = Path(os.path.abspath(out_dir))
    if not out_dir.name:
        raise ExportError(f"cannot export into {out_dir}")
    check_destination(out_dir, overwrite)
    meta = ExportMeta.of(meta)
    factor = base_factor(settings.base)
    ordered = sorted(pairs, key=lambda p: p.external_id)
    for pair in ordered:
        problem = pair.problem()
        if problem is not None:
            raise ExportError(f"pair {problem}")
    split_of = pair_split(ordered, settings, splits)
    annotation_heads, left_out = format_annotations(annotations, split_of, factor)
    given = (provenance() if callable(provenance) else provenance) or {}
    records: dict[str, list[dict[str, Any]]] = {s: [] for s in SPLITS}
    for pair in ordered:
        records[split_of[pair.external_id]].append(
            tvcp_record(pair, change_factor, factor, given.get(pair.external_id)))
    lines = {s: [encode_record(r) for r in records[s]] for s in SPLITS}
    # an annotation record carries its sample's provenance nested, as in the benchmark export
    provenance_json = {p.external_id: encode_json(given.get(p.external_id, p.provenance).to_json(factor))
                       for p in ordered}
    annotation_lines = {s: finish_lines(annotation_heads[s], provenance_json) for s in SPLITS}
    if callable(agreement):
        agreement = agreement()
    manifest = ExportManifest(
        export_id=meta.export_id, project=meta.project, created_at=meta.created_at_text,
        created_by=meta.created_by, base=settings.base, seed=settings.seed, licence=settings.licence,
        ratios=settings.ratios, counts={TVCP_CONFIG: {s: len(records[s]) for s in SPLITS},
                                        ANNOTATIONS_CONFIG: {s: len(annotation_lines[s]) for s in SPLITS}},
        splits={TVCP_CONFIG: split_membership(split_of)}, annotations_left_out=left_out,
        agreement=json_ready(agreement) if agreement is not None else None,
        statistics={TVCP_CONFIG: {**tvcp_statistics(records), "change_factor": float(change_factor)}})
    card = tvcp_card(manifest)

    def write(folder: Path) -> None:
        (folder / TVCP_CONFIG).mkdir()
        (folder / ANNOTATIONS_CONFIG).mkdir()
        for split in SPLITS:
            write_json_lines(folder / TVCP_CONFIG / JSON_FILES[split], lines[split])
            with open(folder / TVCP_CONFIG / CSV_FILES[split], "w", encoding="utf-8", newline="") as handle:
                handle.write(csv_text(records[split]))
            write_json_lines(folder / ANNOTATIONS_CONFIG / SPLIT_FILES[split], annotation_lines[split])

    collecting = gc.isenabled()
    gc.disable()
    try:
        write_folder(out_dir, write, card, manifest, overwrite, rules=PAIR_FIGURE_NEEDS)
    finally:
        if collecting:
            gc.enable()
    return manifest


def _write_benchmarks(out_dir: Path | str, samples: Iterable[Any], settings: ExportSettings, *,
                      annotations: Iterable[Any] = (), change_factor: float = 1.0, **rest: Any) -> ExportManifest:
    # a benchmark record holds no change label: the project's time factor is not written
    return export_hf_dataset(out_dir, samples, annotations, settings, **rest)


#: The writer of each export layout (``ExportLayout.config``, :mod:`annotation.protocols`).
WRITERS: Mapping[str, Callable[..., ExportManifest]] = {"default": _write_benchmarks, TVCP_CONFIG: export_tvcp_dataset}


def export_dataset(layout: str, out_dir: Path | str, samples: Iterable[Any], settings: ExportSettings, *,
                   meta: ExportMeta | Mapping[str, Any], annotations: Iterable[Any] = (),
                   change_factor: float = 1.0, splits: Mapping[str, str] | None = None, overwrite: bool = False,
                   provenance: Mapping[str, Provenance] | Callable[[], Mapping[str, Provenance]] | None = None,
                   agreement: Mapping[str, Any] | Callable[[], Mapping[str, Any] | None] | None = None,
                   ) -> ExportManifest:
    """Write the export folder ``out_dir`` in ``layout`` (a protocol's ``ExportLayout.config``:
    ``"default"`` the benchmark configurations, :func:`export_hf_dataset`; ``"tvcp"`` the pairs',
    :func:`export_tvcp_dataset`) and return its manifest; the arguments mean what they mean there
    (``change_factor``: the project's time factor, for gold without a change label).

    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp()) / "e"
    >>> gold = [GoldSample(f"s{i}", 1, "Meeting at 3.", (0,), (("main",),), 45.0, 10.0, 0.0) for i in range(10)]
    >>> m = export_dataset("default", out, gold, ExportSettings(seed=1), meta=ExportMeta(1, "P", "lea", "2026-11-29T10:00:00Z"))
    >>> sum(m.counts["benchmark_1"].values())
    10
    """
    try:
        write = WRITERS[layout]
    except KeyError:
        raise ExportError(f"no export layout {layout!r}; the layouts are {', '.join(WRITERS)}") from None
    return write(out_dir, samples, settings, meta=meta, annotations=annotations, change_factor=change_factor,
                 splits=splits, overwrite=overwrite, provenance=provenance, agreement=agreement)


__all__ = [
    "ABANDONED_AFTER_SECONDS", "ANNOTATIONS_CONFIG", "ANNOTATION_KEYS", "BENCHMARKS", "BENCHMARK_CONFIGS",
    "CARD_FILE", "CONFIGS", "DEFAULT_LICENCE", "DEFAULT_SEED", "ExportAnnotation", "ExportContents",
    "ExportError", "ExportManifest", "ExportMeta", "ExportSettings", "FORMAT_VERSION", "GoldSample",
    "MANIFEST_FILE", "PROVENANCE_KEY", "PROVENANCE_KEYS", "Provenance", "RECORD_KEYS", "SPLIT_FILES", "TARGET_KEYS", "WRITER_MARKER", "annotation_record",
    "agreement_lines", "axis_texts", "benchmark_record", "base_factor", "card_figures", "card_header", "dataset_card", "export_hf_dataset",
    "read_export", "remove_abandoned_staging", "spreadsheet_csv", "write_json_lines", "writer_identity",
    "writer_is_alive",
    "zip_export", "CSV_FILES", "JSON_FILES", "PairGold", "TVCP_CONFIG", "TVCP_KEYS", "export_tvcp_dataset",
    "tvcp_record", "WRITERS", "export_dataset",
]
