"""Near-duplicate detection before annotation (SPEC section 7), pure and blocked.

The rule is the Chronocept paper's de-duplication step: every text is represented twice, by its
SBERT all-MiniLM-L6-v2 embedding (semantic: catches paraphrases) and by its TF-IDF vector
(lexical: catches near-copies whose few changed words move the embedding more than the wording).
Going through the texts in import order, a text whose cosine similarity to an *earlier kept*
text is strictly greater than the threshold (0.7 by default, ``ProjectSettings.dedup_threshold``)
under either representation is a near-duplicate of it; every other text is kept. Greedy in
import order means the first of a group survives and a text is only ever compared with
survivors: in a chain a ≈ b ≈ c where b is dropped, c is judged against a alone.

Scaling: the search never forms an N×N matrix. Rows are taken ``block_size`` at a time and
compared with the texts kept so far in column tiles of :data:`COLUMN_TILE` texts (a dense
float32 product for SBERT, a sparse product for TF-IDF), plus the small block×block part for
texts of the same block, which is then decided in order. Peak extra memory is a few
block×tile float32 arrays (tens of MB) whatever N is; time is O(N × kept) products, which BLAS
does at full speed.

Embeddings are cached in the database by the service layer; :func:`pack_embedding` and
:func:`unpack_embeddings` are the byte format of that cache (float32, little-endian).
TF-IDF vectors are not cached: their IDF weights depend on the whole corpus, so they are
recomputed (cheaply) on each run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Collection, Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfVectorizer

from annotation.settings import ProjectSettings

#: the default threshold of SPEC section 7: a new project's (the project's own value is its
#: ProjectSettings.dedup_threshold)
DEFAULT_THRESHOLD = ProjectSettings.dedup_threshold

#: texts kept so far are compared in tiles of this many columns, so that memory per step is
#: block_size × COLUMN_TILE whatever the corpus size
COLUMN_TILE = 4096

#: progress callback: (texts done, texts in all)
DedupProgress = Callable[[int, int], None]

#: the names of the representations, as stored with a mark
REPRESENTATIONS = ("sbert", "tfidf", "both")

_EMBEDDING_DTYPE = np.dtype("<f4")


@dataclass(frozen=True)
class NearDuplicate:
    """Text ``index`` is a near-duplicate of the earlier kept text ``of_index``.

    ``sbert_score`` and ``tfidf_score`` are both cosine similarities (in [-1, 1]; TF-IDF ones in
    [0, 1]) of that one pair, whichever of them fired; ``representation`` says which exceeded
    the threshold for the pair: "sbert", "tfidf" or "both". Indices are positions in the input,
    i.e. import order.
    """

    index: int
    of_index: int
    sbert_score: float
    tfidf_score: float
    representation: str

    @property
    def score(self) -> float:
        """The similarity that made the mark: the larger score among the representations that
        fired (the one that did not fire is at most the threshold, so this is also the larger
        of the two)."""
        if self.representation == "sbert":
            return self.sbert_score
        if self.representation == "tfidf":
            return self.tfidf_score
        return max(self.sbert_score, self.tfidf_score)


def tfidf_matrix(texts: Sequence[str]) -> sp.csr_matrix:
    """TF-IDF vectors of ``texts``: a float32 CSR matrix (n texts × vocabulary), rows of unit
    L2 norm, so the dot product of two rows is their cosine similarity.

    Settings, and why: lower-cased with accents folded (case and diacritics are not a
    difference between two wordings); unigrams and bigrams, so that the same words in a
    different local order or a few words changed still score high while unrelated sentences
    that merely share common words do not; sublinear term frequency (1 + log tf), so a word
    repeated within one text does not dominate; smoothed IDF (scikit-learn's default), so words
    common to the whole corpus weigh little; stop words kept, because in short texts small
    words such as "not" or "will" carry the temporal meaning that matters here. The IDF weights
    are fitted on ``texts`` themselves, hence vectors are only comparable within one call.

    An empty input gives a (0, 0) matrix; texts without a single token (e.g. only punctuation)
    give all-zero rows, which are similar to nothing.
    """
    n = len(texts)
    if n == 0:
        return sp.csr_matrix((0, 0), dtype=np.float32)
    vectorizer = TfidfVectorizer(
        lowercase=True,
        strip_accents="unicode",
        ngram_range=(1, 2),
        sublinear_tf=True,
        norm="l2",
        dtype=np.float32,
    )
    try:
        matrix = vectorizer.fit_transform(list(texts))
    except ValueError as exc:  # no text has a single token: nothing is lexically similar
        if "empty vocabulary" not in str(exc):
            raise
        return sp.csr_matrix((n, 0), dtype=np.float32)
    return sp.csr_matrix(matrix, dtype=np.float32)


def _check_inputs(embeddings: np.ndarray, tfidf: sp.spmatrix, threshold: float,
                  keep: Collection[int], drop: Collection[int]
                  ) -> tuple[np.ndarray, sp.csr_matrix, np.float32, np.ndarray, np.ndarray]:
    """Validated, normalised inputs: C-contiguous float32 embeddings, float32 CSR TF-IDF, the
    threshold as float32 (the precision the similarities are computed in, so that a similarity
    equal to the threshold does not count as exceeding it) and boolean keep/drop masks."""
    emb = np.asarray(embeddings)
    if emb.ndim != 2:
        raise ValueError(f"embeddings must be a 2-D array (texts × dimensions), got {emb.ndim}-D")
    if not sp.issparse(tfidf) or tfidf.ndim != 2:
        raise ValueError("tfidf must be a 2-D scipy sparse matrix (texts × vocabulary)")
    n = emb.shape[0]
    if tfidf.shape[0] != n:
        raise ValueError(
            f"embeddings and tfidf must have one row per text: {n} embedding rows but "
            f"{tfidf.shape[0]} TF-IDF rows"
        )
    if not (isinstance(threshold, (int, float, np.floating)) and 0.0 < float(threshold) <= 1.0):
        raise ValueError(f"the threshold must be in (0, 1], got {threshold!r}")
    masks = []
    for name, indices in (("keep", keep), ("drop", drop)):
        idx = np.fromiter((int(i) for i in indices), dtype=np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            bad = idx[(idx < 0) | (idx >= n)][0]
            raise ValueError(f"{name} index {bad} is out of range for {n} texts")
        mask = np.zeros(n, dtype=bool)
        mask[idx] = True
        masks.append(mask)
    both = np.flatnonzero(masks[0] & masks[1])
    if both.size:
        raise ValueError(f"text {both[0]} cannot be both kept and dropped")
    emb32 = np.ascontiguousarray(emb, dtype=np.float32)
    x = sp.csr_matrix(tfidf, dtype=np.float32)
    return emb32, x, np.float32(threshold), masks[0], masks[1]


def _mark(index: int, of_index: int, s: float, t: float, thr: np.float32) -> NearDuplicate:
    """The mark for a pair whose larger similarity exceeds the threshold; ``representation``
    names the score(s) of that pair above it."""
    s_fired, t_fired = s > thr, t > thr
    representation = "both" if s_fired and t_fired else ("sbert" if s_fired else "tfidf")
    return NearDuplicate(int(index), int(of_index), float(s), float(t), representation)


class _KeptTiles:
    """The texts kept so far, in column tiles ready for the products: for each tile the kept
    indices (ascending), their embeddings (tile × d) and their TF-IDF rows transposed (vocab ×
    tile, CSR, so block × tile is a CSR × CSR product without conversion). Full tiles are built
    once; the last, partial tile is rebuilt when asked for, from the pending indices."""

    def __init__(self, emb: np.ndarray, x: sp.csr_matrix, tile: int) -> None:
        self._emb, self._x, self._tile = emb, x, tile
        self._sealed: list[tuple[np.ndarray, np.ndarray, sp.csr_matrix]] = []
        self._pending = np.empty(0, dtype=np.int64)

    def _build(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, sp.csr_matrix]:
        return idx, self._emb[idx], self._x[idx].T.tocsr()

    def add(self, kept: np.ndarray) -> None:
        """Append newly kept indices (all larger than those already held)."""
        self._pending = np.concatenate([self._pending, kept])
        while self._pending.size >= self._tile:
            self._sealed.append(self._build(self._pending[: self._tile]))
            self._pending = self._pending[self._tile:]

    def tiles(self):
        """The tiles in ascending index order."""
        yield from self._sealed
        if self._pending.size:
            yield self._build(self._pending)


def find_near_duplicates(
    embeddings: np.ndarray,
    tfidf: sp.spmatrix,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    keep: Collection[int] = (),
    drop: Collection[int] = (),
    block_size: int = 1024,
    progress: DedupProgress | None = None,
) -> list[NearDuplicate]:
    """Greedy near-duplicate marks in import order, computed block by block.

    ``embeddings`` (n × d) are L2-normalised SBERT vectors, ``tfidf`` (n × vocabulary) the rows
    of :func:`tfidf_matrix`; row i of both is text i, in import order. Text i is a
    near-duplicate when its cosine similarity to some earlier kept text j < i is strictly
    greater than ``threshold`` under SBERT or under TF-IDF; a kept text is one that is not a
    near-duplicate. ``keep`` are texts a lead released (never marked; they count as kept for
    later texts); ``drop`` are texts a lead confirmed as duplicates (never the kept text of a
    later one, and not reported again: the caller keeps their stored mark).

    A near-duplicate is attributed to the earlier kept text with the highest similarity under
    the representation that fired, i.e. the highest max(SBERT, TF-IDF) — ties to the smallest
    index — and the mark carries both similarities of that pair and which of them exceeded
    the threshold. Similarities are computed in float32.

    Works in blocks of ``block_size`` rows against the kept texts in tiles of
    :data:`COLUMN_TILE`, so working memory is O(block_size × tile) plus one copy of the kept
    rows (O(n × d)), never n × n; the result equals
    :func:`find_near_duplicates_bruteforce`'s. ``progress(done, total)`` is called after each
    block. Returns the marks sorted by index.
    """
    emb, x, thr, keep_mask, drop_mask = _check_inputs(embeddings, tfidf, threshold, keep, drop)
    if int(block_size) < 1:
        raise ValueError(f"the block size must be at least 1, got {block_size!r}")
    block_size = int(block_size)
    n = emb.shape[0]
    if progress is not None and n == 0:
        progress(0, 0)
    kept = _KeptTiles(emb, x, COLUMN_TILE)
    marks: list[NearDuplicate] = []

    for start in range(0, n, block_size):
        stop = min(start + block_size, n)
        b = stop - start
        e_blk = emb[start:stop]
        x_blk = x[start:stop]

        # 1. against the texts kept before this block: the best pair per row, if above thr
        best_val = np.full(b, thr, dtype=np.float32)  # only values above thr matter
        best_idx = np.full(b, -1, dtype=np.int64)
        best_s = np.zeros(b, dtype=np.float32)
        best_t = np.zeros(b, dtype=np.float32)
        for idx, e_tile, xt_tile in kept.tiles():
            s = e_blk @ e_tile.T
            t = (x_blk @ xt_tile).toarray()
            m = np.maximum(s, t)
            row_max = m.max(axis=1)
            rows = np.flatnonzero(row_max > best_val)  # strictly: an earlier tile wins ties
            if rows.size:
                cols = m[rows].argmax(axis=1)  # first maximum: the smallest index
                best_val[rows] = row_max[rows]
                best_idx[rows] = idx[cols]
                best_s[rows] = s[rows, cols]
                best_t[rows] = t[rows, cols]
            del s, t, m
        prev_hit = best_idx >= 0

        # 2. within the block: pairs j < i of this block above thr, j not dropped
        s_in = e_blk @ e_blk.T
        t_in = (x_blk @ x_blk.T).toarray()
        m_in = np.maximum(s_in, t_in)
        cand = (m_in > thr) & np.tri(b, b, -1, dtype=bool) & ~drop_mask[start:stop][None, :]

        # 3. decide: most rows directly, the few with a within-block candidate in order
        blk_keep = keep_mask[start:stop]
        blk_drop = drop_mask[start:stop]
        open_rows = ~blk_keep & ~blk_drop & ~prev_hit
        has_cand = cand.any(axis=1)
        kept_blk = blk_keep | (open_rows & ~has_cand)
        for i in np.flatnonzero(open_rows & has_cand):
            kept_blk[i] = not bool(np.any(cand[i, :i] & kept_blk[:i]))
        dup_rows = np.flatnonzero(~kept_blk & ~blk_drop)

        # 4. attribute: a kept text of the block beats the earlier best only when strictly more
        #    similar (the earlier one has the smaller index)
        if dup_rows.size:
            within = np.where(cand[dup_rows] & kept_blk[None, :], m_in[dup_rows], -np.inf)
            w_col = within.argmax(axis=1)
            w_val = within[np.arange(dup_rows.size), w_col]
            for r, i in enumerate(dup_rows):
                if w_val[r] > best_val[i] or best_idx[i] < 0:
                    j = int(w_col[r])
                    marks.append(_mark(start + i, start + j, s_in[i, j], t_in[i, j], thr))
                else:
                    marks.append(_mark(start + i, best_idx[i], best_s[i], best_t[i], thr))
        del s_in, t_in, m_in, cand

        kept.add(start + np.flatnonzero(kept_blk))
        if progress is not None:
            progress(stop, n)
    return marks


def find_near_duplicates_bruteforce(
    embeddings: np.ndarray,
    tfidf: sp.spmatrix,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    keep: Collection[int] = (),
    drop: Collection[int] = (),
) -> list[NearDuplicate]:
    """The same marks as :func:`find_near_duplicates`, the obvious way: full n × n similarity
    matrices and one pass over the texts. The reference the blocked search is tested against,
    and fine for small inputs (memory 8 n² bytes: 2k texts take 32 MB, 100k would take 80 GB).
    """
    emb, x, thr, keep_mask, drop_mask = _check_inputs(embeddings, tfidf, threshold, keep, drop)
    n = emb.shape[0]
    sbert = emb @ emb.T
    lexical = (x @ x.T).toarray() if n else np.zeros((0, 0), dtype=np.float32)
    kept = np.zeros(n, dtype=bool)
    marks: list[NearDuplicate] = []
    for i in range(n):
        if drop_mask[i]:
            continue
        if keep_mask[i]:
            kept[i] = True
            continue
        earlier = np.flatnonzero(kept[:i])
        s_row, t_row = sbert[i, earlier], lexical[i, earlier]
        fired = (s_row > thr) | (t_row > thr)
        if not fired.any():
            kept[i] = True
            continue
        best = np.maximum(s_row, t_row)
        k = int(np.argmax(best))  # first maximum: the smallest index
        marks.append(_mark(i, earlier[k], s_row[k], t_row[k], thr))
    return marks


def pack_embedding(vec: np.ndarray) -> bytes:
    """One embedding as the bytes stored in the database cache: float32, little-endian,
    4 × d bytes (the same on every machine, whatever its byte order)."""
    arr = np.asarray(vec)
    if arr.ndim != 1:
        raise ValueError(f"an embedding must be a 1-D vector, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("an embedding must contain only finite numbers")
    return arr.astype(_EMBEDDING_DTYPE, copy=False).tobytes()


def unpack_embeddings(blobs: Sequence[bytes], dim: int) -> np.ndarray:
    """Embeddings stored by :func:`pack_embedding` back as a float32 (n, dim) array; raises
    ValueError naming the first blob whose length is not 4 × dim bytes."""
    if int(dim) < 1:
        raise ValueError(f"the embedding dimension must be at least 1, got {dim!r}")
    dim = int(dim)
    width = 4 * dim
    for k, blob in enumerate(blobs):
        if len(blob) != width:
            raise ValueError(
                f"stored embedding {k} has {len(blob)} bytes; {width} expected for {dim} "
                f"float32 dimensions"
            )
    if len(blobs) == 0:
        return np.empty((0, dim), dtype=np.float32)
    flat = np.frombuffer(b"".join(blobs), dtype=_EMBEDDING_DTYPE)
    return flat.reshape(len(blobs), dim).astype(np.float32)
