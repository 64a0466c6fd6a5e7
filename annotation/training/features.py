"""Baseline features: the parent-text embedding followed by the eight axis embeddings.

For each sample the feature block is a (9, d) array: row 0 embeds ``parent_text``, rows 1..8
embed the axis texts in the fixed order of :data:`annotation.axes.EXPORT_KEYS` (an empty axis is
the embedding of ""), as in the Chronocept baselines. Flat models read the block flattened to
9·d numbers; the Bi-LSTM reads it as a sequence of 9 vectors.

Each distinct text is embedded once. With a ``cache_dir``, the vectors of a whole export are
stored in one ``.npz`` keyed by export id + encoder name + a SHA-256 of the texts, so a second
run on the same export with the same encoder does not call the encoder again, and any change to
the texts (or a different encoder) gets a new entry.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from annotation.axes import EXPORT_KEYS

from .data import Sample
from .encoders import TextEncoder
from .errors import TrainingCancelled

#: rows of a sample's feature block: the parent text, then the eight axes
FEATURE_ROWS: tuple[str, ...] = ("parent_text", *EXPORT_KEYS)


@dataclass(frozen=True)
class EmbeddedSplits:
    """Feature blocks per split (float32, shape (n, 9, dim)), and how they were obtained."""

    features: Mapping[str, np.ndarray]
    encoder_name: str
    dim: int
    n_unique_texts: int
    cache_path: Path | None
    cache_hit: bool
    seconds: float


def sample_texts(sample: Sample) -> tuple[str, ...]:
    """The nine texts of a sample's feature block, in :data:`FEATURE_ROWS` order."""
    return (sample.parent_text, *sample.axes)


def content_hash(splits: Mapping[str, Sequence[Sample]]) -> str:
    """SHA-256 (hex) over split names, sample ids and the nine texts of every sample."""
    digest = hashlib.sha256()
    for split in sorted(splits):
        digest.update(f"\x00split\x00{split}".encode())
        for sample in splits[split]:
            digest.update(f"\x00id\x00{sample.id}".encode())
            for text in sample_texts(sample):
                digest.update(b"\x00t\x00" + text.encode("utf-8"))
    return digest.hexdigest()


def _slug(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", value).strip("-")[:80] or "x"


def cache_file(cache_dir: str | Path, export_id: str, encoder_name: str, digest: str) -> Path:
    """Path of the cache entry for an export, an encoder and a content hash."""
    return Path(cache_dir) / f"{_slug(export_id)}__{_slug(encoder_name)}__{digest[:20]}.npz"


def _encode_unique(texts: list[str], encoder: TextEncoder, chunk_size: int,
                   progress: Callable[[int, int], None] | None,
                   should_stop: Callable[[], bool] | None) -> np.ndarray:
    out = np.empty((len(texts), encoder.dim), dtype=np.float32)
    for start in range(0, len(texts), chunk_size):
        if should_stop is not None and should_stop():
            raise TrainingCancelled("cancelled while embedding")
        part = texts[start:start + chunk_size]
        vectors = np.asarray(encoder.encode(part), dtype=np.float32)
        if vectors.shape != (len(part), encoder.dim):
            raise ValueError(f"encoder {encoder.name!r} returned shape {vectors.shape}, expected "
                             f"({len(part)}, {encoder.dim})")
        out[start:start + len(part)] = vectors
        if progress is not None:
            progress(start + len(part), len(texts))
    return out


def _save_npz(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".npz")
    try:
        with os.fdopen(fd, "wb") as handle:
            np.savez(handle, **arrays)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def embed_splits(splits: Mapping[str, Sequence[Sample]], encoder: TextEncoder, *,
                 cache_dir: str | Path | None = None, export_id: str = "export",
                 chunk_size: int = 512,
                 progress: Callable[[int, int], None] | None = None,
                 should_stop: Callable[[], bool] | None = None) -> EmbeddedSplits:
    """Feature blocks (n, 9, d) for every split, embedding each distinct text once.

    ``progress(done, total)`` is called after each chunk of distinct texts; ``should_stop`` is
    checked before each chunk (raises :class:`TrainingCancelled`). With ``cache_dir`` the
    vectors are read from / written to the cache entry of (export id, encoder, content hash).
    """
    started = time.perf_counter()
    unique: dict[str, int] = {}
    indices: dict[str, np.ndarray] = {}
    for split, samples in splits.items():
        index = np.empty((len(samples), len(FEATURE_ROWS)), dtype=np.int64)
        for row, sample in enumerate(samples):
            for col, text in enumerate(sample_texts(sample)):
                index[row, col] = unique.setdefault(text, len(unique))
        indices[split] = index
    texts = list(unique)

    path = None
    vectors = None
    hit = False
    if cache_dir is not None:
        path = cache_file(cache_dir, export_id, encoder.name, content_hash(splits))
        if path.is_file():
            try:
                with np.load(path) as stored:
                    cached = stored["vectors"]
                if cached.shape == (len(texts), encoder.dim):
                    vectors, hit = cached.astype(np.float32, copy=False), True
            except (OSError, ValueError, KeyError):
                vectors = None   # unreadable entry: embed again and overwrite it
    if vectors is None:
        vectors = _encode_unique(texts, encoder, max(chunk_size, 1), progress, should_stop)
        if path is not None:
            _save_npz(path, {"vectors": vectors})
    elif progress is not None:
        progress(len(texts), len(texts))
    features = {split: vectors[index] for split, index in indices.items()}
    return EmbeddedSplits(features=features, encoder_name=encoder.name, dim=encoder.dim,
                          n_unique_texts=len(texts), cache_path=path, cache_hit=hit,
                          seconds=time.perf_counter() - started)
