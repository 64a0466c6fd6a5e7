"""Text encoders for the baseline features: the bundled SBERT model, or a fast hashing encoder.

An encoder is anything with a ``name`` (stored with cached vectors, so two encoders never share
a cache entry), a ``dim`` and ``encode(texts) -> float32 array (n, dim)`` — see
:class:`TextEncoder`. :class:`SbertEncoder` is the default (all-MiniLM-L6-v2, as in the
Chronocept baselines); :class:`HashingEncoder` is a deterministic bag-of-words random projection
for tests and quick runs (the "hashing trick", Weinberger et al. 2009, followed by a Gaussian
random projection, Johnson–Lindenstrauss): no model, no download, milliseconds per thousand texts.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from annotation.corpus.embeddings import SBERT_DIM, SBERT_MODEL_NAME

from .errors import BadConfigError

#: encoder names a :class:`~annotation.training.config.TrainingConfig` may use
ENCODER_NAMES: tuple[str, ...] = ("sbert", "hashing")

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


@runtime_checkable
class TextEncoder(Protocol):
    """What the feature builder needs from an encoder."""

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """float32 array of shape (len(texts), dim)."""
        ...


@dataclass(frozen=True)
class SbertEncoder:
    """The bundled SBERT all-MiniLM-L6-v2 (384-dim, L2-normalised), through
    :func:`annotation.corpus.embeddings.embed_texts`; the model is loaded once per process and device."""

    device: str = "cpu"
    batch_size: int = 128

    @property
    def name(self) -> str:
        return SBERT_MODEL_NAME

    @property
    def dim(self) -> int:
        return SBERT_DIM

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        from annotation.corpus.embeddings import embed_texts, load_sbert

        return embed_texts(list(texts), model=load_sbert(self.device), batch_size=self.batch_size)


@dataclass(frozen=True)
class HashingEncoder:
    """Hashed bag of words projected to ``dim`` dimensions and L2-normalised.

    Each lower-cased word token gets a fixed Gaussian vector drawn from a generator seeded by
    (``seed``, BLAKE2b hash of the token) — i.e. a random projection of the one-hot vocabulary
    without storing the matrix; a text is the sum of its tokens' vectors, normalised. The
    empty string (and a text without word tokens) encodes to the zero vector. Deterministic
    across processes and machines.
    """

    dim: int = 256
    seed: int = 0
    _vectors: dict[str, np.ndarray] = field(default_factory=dict, init=False, repr=False,
                                            compare=False, hash=False)

    def __post_init__(self) -> None:
        if isinstance(self.dim, bool) or not isinstance(self.dim, int) or self.dim < 1:
            raise BadConfigError(f"HashingEncoder dim must be a positive integer, got {self.dim!r}")

    @property
    def name(self) -> str:
        return f"hashing-{self.dim}-seed{self.seed}"

    def _token_vector(self, token: str) -> np.ndarray:
        vector = self._vectors.get(token)
        if vector is None:
            digest = hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest()
            rng = np.random.default_rng([self.seed, int.from_bytes(digest, "little")])
            vector = rng.standard_normal(self.dim)
            self._vectors[token] = vector
        return vector

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            tokens = _TOKEN.findall(text.lower())
            if not tokens:
                continue
            total = np.sum([self._token_vector(t) for t in tokens], axis=0)
            norm = float(np.linalg.norm(total))
            if norm > 0:
                out[row] = total / norm
        return out


def make_encoder(name: str, device: str = "cpu") -> TextEncoder:
    """The encoder called ``name`` ("sbert" or "hashing"); SBERT runs on ``device``."""
    if name == "sbert":
        return SbertEncoder(device=device)
    if name == "hashing":
        return HashingEncoder()
    raise BadConfigError(f"unknown encoder {name!r}; expected one of {', '.join(ENCODER_NAMES)}")
