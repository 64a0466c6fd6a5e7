"""Near-duplicate detection (SPEC section 7): the blocked search against the brute-force
reference on a generated corpus with planted duplicates, the greedy rule, keep/drop, threshold
strictness, attribution, validation, the embedding byte format — and one small run of the real
SBERT model.

The 2k-text comparison pairs real TF-IDF vectors of generated texts with synthetic embeddings
(random unit vectors, with planted duplicates at known cosines), so it needs no SBERT run; the
100k-text run lives in bench/dedup.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from annotation.corpus import duplicates as dedup_domain
from annotation.corpus.duplicates import (
    NearDuplicate,
    find_near_duplicates,
    find_near_duplicates_bruteforce,
    pack_embedding,
    tfidf_matrix,
    unpack_embeddings,
)

DIM = 384

# --- a generated corpus with planted near-copies and paraphrases ------------------------------

SUBJECTS = ("council", "mayor", "union", "airline", "museum", "hospital", "library", "court",
            "railway", "school", "bakery", "harbour", "orchestra", "brewery", "festival",
            "ministry", "university", "stadium", "ferry", "theatre")
ADJECTIVES = ("local", "regional", "national", "small", "old", "new", "private", "public",
              "northern", "southern", "coastal", "rural")
VERBS = ("approved", "rejected", "delayed", "announced", "cancelled", "suspended", "confirmed",
         "expanded", "reviewed", "proposed", "funded", "criticised")
OBJECTS = ("budget", "bridge", "tram", "tax", "merger", "curfew", "pipeline", "subsidy",
           "marathon", "reform", "lane", "levy", "park", "wage", "barrier", "exhibition",
           "concert", "timetable", "contract", "strike")
PLACES = ("Lisbon", "Oslo", "Denver", "Nairobi", "Osaka", "Leeds", "Porto", "Quebec", "Dakar",
          "Perth", "Tulsa", "Graz", "Lyon", "Cork", "Bergen", "Turin", "Austin", "Kyoto",
          "Accra", "Seville", "Gdansk", "Ghent", "Riga", "Split", "Lima", "Quito")
WHEN = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
        "January", "March", "June", "October", "December")
SYNONYMS = {"approved": "endorsed", "rejected": "refused", "delayed": "postponed",
            "announced": "declared", "cancelled": "scrapped", "budget": "spending plan",
            "new": "recent", "old": "former", "small": "little", "public": "state"}


def _sentence(rng: np.random.Generator) -> tuple[str, str]:
    """(main clause, time clause) of one short news-like sentence."""
    def pick(words):
        return words[int(rng.integers(len(words)))]
    main = (f"the {pick(ADJECTIVES)} {pick(SUBJECTS)} of {pick(PLACES)} {pick(VERBS)} "
            f"the {pick(OBJECTS)} {int(rng.integers(2, 99))} {pick(('times', 'days', 'weeks'))} "
            f"ago near the {pick(SUBJECTS)} {pick(OBJECTS)}")
    return main, f"on {pick(WHEN)}"


def make_corpus(n_base: int, seed: int):
    """Base sentences with near-copies and paraphrases planted right after random originals.

    Returns (texts, planted, embeddings) where planted maps position → (original, kind):
    "copy" (case, punctuation or one word changed; embedding at cosine 0.97) or "paraphrase"
    (synonyms, clauses swapped; embedding at cosine 0.85 — TF-IDF may or may not fire).
    Originals are never planted texts themselves, so each planted pair is unambiguous. A
    "decoy" follows some originals: a different sentence whose embedding sits at cosine 0.6
    (below the threshold) to it.
    """
    rng = np.random.default_rng(seed)
    texts: list[str] = []
    planted: dict[int, tuple[int, str]] = {}
    close: list[tuple[int, int, float]] = []  # (position, original, cosine)
    for _ in range(n_base):
        main, when = _sentence(rng)
        texts.append(f"{main[0].upper()}{main[1:]} {when}.")
        orig = len(texts) - 1
        r = rng.random()
        if r < 0.10:
            kind = int(rng.integers(3))
            if kind == 0:
                copy = texts[orig].upper()
            elif kind == 1:
                copy = texts[orig].replace(".", "!").replace(" ago", ", ago")
            else:
                words = texts[orig].split()
                words[-3] = "roughly"  # "... near the X Y on Day." → one word changed
                copy = " ".join(words)
            texts.append(copy)
            planted[len(texts) - 1] = (orig, "copy")
            close.append((len(texts) - 1, orig, 0.97))
        elif r < 0.18:
            para = main
            for word, other in SYNONYMS.items():
                para = para.replace(f" {word} ", f" {other} ")
            texts.append(f"{when[0].upper()}{when[1:]}, {para}.")
            planted[len(texts) - 1] = (orig, "paraphrase")
            close.append((len(texts) - 1, orig, 0.85))
        elif r < 0.22:
            main2, when2 = _sentence(rng)
            texts.append(f"{main2[0].upper()}{main2[1:]} {when2}.")
            close.append((len(texts) - 1, orig, 0.6))
    emb = rng.standard_normal((len(texts), DIM)).astype(np.float64)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    for pos, orig, cos in close:
        u = emb[orig]
        w = emb[pos] - (emb[pos] @ u) * u
        w /= np.linalg.norm(w)
        emb[pos] = cos * u + math.sqrt(1.0 - cos * cos) * w
    return texts, planted, emb.astype(np.float32)


@pytest.fixture(scope="module")
def corpus():
    texts, planted, emb = make_corpus(1800, seed=20261122)
    return texts, planted, emb, tfidf_matrix(texts)


def unit(*coords: float, dim: int = 8) -> np.ndarray:
    v = np.zeros(dim, dtype=np.float64)
    v[: len(coords)] = coords
    return v / np.linalg.norm(v)


def no_tfidf(n: int) -> sp.csr_matrix:
    """TF-IDF rows that are similar to nothing, to test the SBERT side alone."""
    return sp.csr_matrix((n, 1), dtype=np.float32)


def both_ways(emb, tfidf, **kwargs) -> list[NearDuplicate]:
    """The blocked result, checked equal to the reference at a few block sizes."""
    reference = find_near_duplicates_bruteforce(emb, tfidf, **kwargs)
    for block in (1, 2, 3, 1024):
        assert_same_marks(find_near_duplicates(emb, tfidf, block_size=block, **kwargs), reference)
    return reference


def assert_same_marks(got: list[NearDuplicate], expected: list[NearDuplicate]) -> None:
    assert [(d.index, d.of_index, d.representation) for d in got] == \
        [(d.index, d.of_index, d.representation) for d in expected]
    for g, e in zip(got, expected):
        assert g.sbert_score == pytest.approx(e.sbert_score, abs=1e-5)
        assert g.tfidf_score == pytest.approx(e.tfidf_score, abs=1e-5)


# --- blocked == brute force on 2k texts --------------------------------------------------------


def test_corpus_has_about_2k_texts_and_planted_pairs(corpus):
    texts, planted, emb, tfidf = corpus
    assert 1900 <= len(texts) <= 2300
    kinds = [k for _, k in planted.values()]
    assert kinds.count("copy") > 100 and kinds.count("paraphrase") > 80
    assert emb.shape == (len(texts), DIM) and tfidf.shape[0] == len(texts)


@pytest.mark.parametrize("block_size,tile,n", [
    (7, 4096, None), (256, 4096, None), (5000, 4096, None),  # one tile: blocks differ
    (256, 100, None), (32, 45, 700),  # small tiles: the kept texts span many tiles
    (1, 4096, 500),  # one row per block: every decision comes from earlier blocks
])
def test_blocked_equals_bruteforce(corpus, monkeypatch, block_size, tile, n):
    texts, planted, emb, tfidf = corpus
    emb, tfidf = emb[:n], tfidf[:n]
    monkeypatch.setattr(dedup_domain, "COLUMN_TILE", tile)
    expected = find_near_duplicates_bruteforce(emb, tfidf)
    assert len(expected) > (30 if n else 300)
    assert_same_marks(find_near_duplicates(emb, tfidf, block_size=block_size), expected)


@pytest.mark.parametrize("threshold", [0.5, 0.9])
def test_blocked_equals_bruteforce_with_keep_drop_and_other_thresholds(corpus, threshold):
    texts, planted, emb, tfidf = corpus
    rng = np.random.default_rng(3)
    planted_pos = sorted(planted)
    keep = set(rng.choice(planted_pos, 40, replace=False).tolist())
    drop = set(rng.choice(sorted(set(range(len(texts))) - keep), 60, replace=False).tolist())
    expected = find_near_duplicates_bruteforce(emb, tfidf, threshold=threshold, keep=keep,
                                               drop=drop)
    got = find_near_duplicates(emb, tfidf, threshold=threshold, keep=keep, drop=drop,
                               block_size=97)
    assert_same_marks(got, expected)
    assert not {d.index for d in got} & (keep | drop)
    assert not {d.of_index for d in got} & drop


def test_planted_pairs_are_exactly_the_pairs_found(corpus):
    texts, planted, emb, tfidf = corpus
    found = find_near_duplicates(emb, tfidf, block_size=256)
    assert {d.index: d.of_index for d in found} == {p: o for p, (o, _) in planted.items()}
    for d in found:
        assert d.index > d.of_index
        if planted[d.index][1] == "copy":  # the same words: TF-IDF fires as well
            assert d.representation == "both", texts[d.index]
            assert d.sbert_score == pytest.approx(0.97, abs=1e-4)
        else:
            assert d.representation in ("sbert", "both")
            assert d.sbert_score == pytest.approx(0.85, abs=1e-4)
        assert d.score == max(d.sbert_score, d.tfidf_score)


def test_progress_reports_rows_done(corpus):
    texts, planted, emb, tfidf = corpus
    seen: list[tuple[int, int]] = []
    find_near_duplicates(emb, tfidf, block_size=500, progress=lambda d, t: seen.append((d, t)))
    n = len(texts)
    assert seen == [(min(k, n), n) for k in range(500, n + 500, 500)]


# --- the greedy rule ---------------------------------------------------------------------------

# a, b, c with cos(a, b) = cos(b, c) = 0.8 and cos(a, c) = 0.64 (see the coordinates)
CHAIN = np.array([unit(1.0), unit(0.8, 0.6), unit(0.64, 0.48, 0.6), unit(0, 0, 0, 1)],
                 dtype=np.float32)


def test_chain_compares_with_kept_texts_only():
    marks = both_ways(CHAIN, no_tfidf(4))
    assert [(d.index, d.of_index, d.representation) for d in marks] == [(1, 0, "sbert")]
    assert marks[0].sbert_score == pytest.approx(0.8, abs=1e-6)
    assert marks[0].tfidf_score == 0.0


def test_keep_releases_a_text_and_it_counts_as_kept():
    marks = both_ways(CHAIN, no_tfidf(4), keep={1})
    assert [(d.index, d.of_index) for d in marks] == [(2, 1)]
    assert marks[0].sbert_score == pytest.approx(0.8, abs=1e-6)


def test_drop_is_never_reported_nor_the_kept_text_of_another():
    # b is confirmed a duplicate: not reported again, and c (0.8 to b) only meets a (0.64)
    assert both_ways(CHAIN, no_tfidf(4), drop={1}) == []
    # a dropped: b meets nothing kept, so b is kept and c is its duplicate
    marks = both_ways(CHAIN, no_tfidf(4), drop={0})
    assert [(d.index, d.of_index) for d in marks] == [(2, 1)]


def test_forced_keep_of_a_later_text_is_never_marked():
    emb = np.array([unit(1.0), unit(1.0), unit(1.0)], dtype=np.float32)
    marks = both_ways(emb, no_tfidf(3), keep={1, 2})
    assert marks == []
    marks = both_ways(emb, no_tfidf(3), keep={2})
    assert [(d.index, d.of_index) for d in marks] == [(1, 0)]


def test_attributed_to_the_most_similar_kept_text():
    emb = np.array([unit(1.0), unit(0, 1.0), unit(0.6, 0.8, 0.2)], dtype=np.float32)
    # cos(2, 0) ≈ 0.588, cos(2, 1) ≈ 0.784: only 1 fires
    marks = both_ways(emb, no_tfidf(3))
    assert [(d.index, d.of_index) for d in marks] == [(2, 1)]
    emb = np.array([unit(1.0), unit(0, 1.0), unit(0.75, 0.66)], dtype=np.float32)
    marks = both_ways(emb, no_tfidf(3))  # 0.751 and 0.661: only text 0 fires
    assert [(d.index, d.of_index) for d in marks] == [(2, 0)]
    emb = np.array([unit(1.0), unit(0, 1.0), unit(0.705, 0.709, 0.0173)], dtype=np.float32)
    marks = both_ways(emb, no_tfidf(3))  # both fire, text 1 is closer
    assert [(d.index, d.of_index) for d in marks] == [(2, 1)]


def test_ties_go_to_the_smallest_index():
    s = np.float32(1 / math.sqrt(2))
    emb = np.zeros((3, 4), dtype=np.float32)
    emb[0, 0] = emb[1, 1] = 1.0
    emb[2, :2] = s  # exactly equal dot products with texts 0 and 1
    marks = both_ways(emb, no_tfidf(3))
    assert [(d.index, d.of_index) for d in marks] == [(2, 0)]


def test_the_representation_that_fired_decides_the_attribution():
    # text 2: TF-IDF 0.9 to text 0, SBERT 0.8 to text 1 → attributed to 0 (0.9 > 0.8), and the
    # mark carries both scores of that pair
    emb = np.array([unit(1.0), unit(0, 1.0), unit(0.3, 0.8, 0.52)], dtype=np.float32)
    tfidf = sp.csr_matrix(np.array([unit(1.0, dim=3), unit(0, 1.0, dim=3),
                                    unit(0.9, 0, math.sqrt(0.19), dim=3)], dtype=np.float32))
    marks = both_ways(emb, tfidf)
    assert len(marks) == 1
    d = marks[0]
    assert (d.index, d.of_index, d.representation) == (2, 0, "tfidf")
    assert d.tfidf_score == pytest.approx(0.9, abs=1e-6)
    assert d.sbert_score == pytest.approx(float(emb[2] @ emb[0]), abs=1e-6)
    assert d.score == d.tfidf_score
    # with TF-IDF only 0.75, SBERT's 0.8 to text 1 wins
    tfidf = sp.csr_matrix(np.array([unit(1.0, dim=3), unit(0, 1.0, dim=3),
                                    unit(0.75, 0, math.sqrt(1 - 0.5625), dim=3)],
                                   dtype=np.float32))
    d = both_ways(emb, tfidf)[0]
    assert (d.index, d.of_index, d.representation) == (2, 1, "sbert")
    assert d.score == d.sbert_score


def test_both_representations_firing_on_one_pair():
    emb = np.array([unit(1.0), unit(0.9, 0.3)], dtype=np.float32)
    tfidf = sp.csr_matrix(np.array([[1.0, 0.0], [0.8, 0.6]], dtype=np.float32))
    (d,) = both_ways(emb, tfidf)
    assert d.representation == "both"
    assert d.score == pytest.approx(max(d.sbert_score, d.tfidf_score))


# --- the threshold -----------------------------------------------------------------------------


def _pair_at(cos: np.float32) -> np.ndarray:
    emb = np.zeros((2, 2), dtype=np.float32)
    emb[0, 0] = 1.0
    emb[1, 0] = cos  # the dot product is exactly cos, in float32
    emb[1, 1] = np.sqrt(np.float32(1.0) - cos * cos)
    return emb


@pytest.mark.parametrize("side", ["sbert", "tfidf"])
def test_a_similarity_equal_to_the_threshold_does_not_fire(side):
    at = np.float32(0.7)
    above = np.nextafter(at, np.float32(1.0))
    for cos, expected in ((at, 0), (above, 1)):
        pair = _pair_at(cos)
        if side == "sbert":
            emb, tfidf = pair, no_tfidf(2)
        else:
            emb, tfidf = np.array([unit(1.0), unit(0, 1.0)], dtype=np.float32), sp.csr_matrix(pair)
        marks = both_ways(emb, tfidf, threshold=0.7)
        assert len(marks) == expected, (side, float(cos))
        if expected:
            assert marks[0].representation == side


def test_threshold_is_configurable():
    emb = _pair_at(np.float32(0.6))
    assert both_ways(emb, no_tfidf(2)) == []
    assert len(both_ways(emb, no_tfidf(2), threshold=0.55)) == 1
    same = np.array([unit(1.0), unit(1.0)], dtype=np.float32)  # cosine exactly 1.0
    assert both_ways(same, no_tfidf(2), threshold=1.0) == []
    assert len(both_ways(same, no_tfidf(2), threshold=0.99)) == 1


# --- edges and validation ----------------------------------------------------------------------


def test_empty_input():
    tfidf = tfidf_matrix([])
    assert tfidf.shape == (0, 0)
    seen = []
    assert find_near_duplicates(np.empty((0, DIM), np.float32), tfidf,
                                progress=lambda d, t: seen.append((d, t))) == []
    assert seen == [(0, 0)]
    assert find_near_duplicates_bruteforce(np.empty((0, DIM), np.float32), tfidf) == []


def test_one_text():
    tfidf = tfidf_matrix(["Only one text here."])
    emb = np.array([unit(1.0, dim=DIM)], dtype=np.float32)
    assert find_near_duplicates(emb, tfidf) == []
    assert find_near_duplicates_bruteforce(emb, tfidf) == []


def test_texts_without_tokens_are_similar_to_nothing():
    tfidf = tfidf_matrix(["!!!", "...", "?"])
    assert tfidf.shape == (3, 0)
    emb = np.array([unit(1.0), unit(0, 1.0), unit(0, 0, 1.0)], dtype=np.float32)
    assert both_ways(emb, tfidf) == []


def test_tfidf_rows_are_unit_float32_and_ignore_case_and_punctuation():
    texts = ["The Meeting was moved to Friday.", "the meeting was moved to friday!",
             "Heavy rain flooded the harbour."]
    x = tfidf_matrix(texts)
    assert sp.issparse(x) and x.format == "csr"
    assert x.dtype == np.float32
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1))).ravel()
    assert norms == pytest.approx([1.0, 1.0, 1.0], abs=1e-6)
    sims = (x @ x.T).toarray()
    assert sims[0, 1] == pytest.approx(1.0, abs=1e-6)
    assert sims[0, 2] < 0.3


@pytest.mark.parametrize("kwargs,message", [
    ({"threshold": 0.0}, "threshold"),
    ({"threshold": 1.5}, "threshold"),
    ({"threshold": float("nan")}, "threshold"),
    ({"keep": {0}, "drop": {0}}, "both kept and dropped"),
    ({"keep": {5}}, "out of range"),
    ({"drop": {-1}}, "out of range"),
])
def test_bad_arguments(kwargs, message):
    emb = np.array([unit(1.0), unit(0, 1.0)], dtype=np.float32)
    with pytest.raises(ValueError, match=message):
        find_near_duplicates(emb, no_tfidf(2), **kwargs)
    with pytest.raises(ValueError, match=message):
        find_near_duplicates_bruteforce(emb, no_tfidf(2), **kwargs)


def test_mismatched_rows_and_shapes():
    emb = np.array([unit(1.0), unit(0, 1.0)], dtype=np.float32)
    with pytest.raises(ValueError, match="one row per text"):
        find_near_duplicates(emb, no_tfidf(3))
    with pytest.raises(ValueError, match="one row per text"):
        find_near_duplicates_bruteforce(emb, no_tfidf(3))
    with pytest.raises(ValueError, match="2-D"):
        find_near_duplicates(emb[0], no_tfidf(1))
    with pytest.raises(ValueError, match="sparse"):
        find_near_duplicates(emb, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="block size"):
        find_near_duplicates(emb, no_tfidf(2), block_size=0)


# --- the embedding cache format ----------------------------------------------------------------


def test_pack_unpack_roundtrip():
    rng = np.random.default_rng(0)
    vecs = rng.standard_normal((5, DIM)).astype(np.float32)
    blobs = [pack_embedding(v) for v in vecs]
    assert all(len(b) == 4 * DIM for b in blobs)
    assert blobs[0][:4] == np.float32(vecs[0, 0]).astype("<f4").tobytes()  # little-endian
    back = unpack_embeddings(blobs, DIM)
    assert back.dtype == np.float32 and back.shape == (5, DIM)
    np.testing.assert_array_equal(back, vecs)
    assert unpack_embeddings([], DIM).shape == (0, DIM)
    # a float64 vector is stored as float32
    assert unpack_embeddings([pack_embedding(np.array([0.5, -2.0]))], 2).tolist() == [[0.5, -2.0]]


def test_unpack_rejects_a_blob_of_the_wrong_length():
    good = pack_embedding(np.ones(DIM, dtype=np.float32))
    with pytest.raises(ValueError, match="stored embedding 1 has 12 bytes; 1536 expected"):
        unpack_embeddings([good, b"\x00" * 12], DIM)
    with pytest.raises(ValueError, match="dimension"):
        unpack_embeddings([good], 0)


def test_pack_rejects_non_vectors():
    with pytest.raises(ValueError, match="1-D"):
        pack_embedding(np.ones((2, 3), dtype=np.float32))
    with pytest.raises(ValueError, match="finite"):
        pack_embedding(np.array([1.0, float("nan")]))


# --- the real model, small ---------------------------------------------------------------------


@pytest.mark.slow  # loads the real SBERT model
def test_real_sbert_finds_a_paraphrase_and_not_an_unrelated_text():
    from annotation.corpus.embeddings import embed_texts

    texts = [
        "The meeting was moved to Friday.",
        "Heavy rain flooded several streets in the harbour district overnight.",
        "Our school will open a new science lab next spring.",
        "The meeting has been rescheduled for Friday.",
        "A local bakery won the regional prize for its sourdough bread.",
        "Shares of the airline fell sharply after the strike was announced.",
        "The museum is closed for renovation until March.",
        "Tickets for the concert sold out within an hour.",
        "The mayor resigned after the corruption scandal.",
        "Scientists discovered a new species of frog in the rainforest.",
    ]
    emb = embed_texts(texts)
    assert emb.shape == (10, DIM) and emb.dtype == np.float32
    marks = find_near_duplicates(emb, tfidf_matrix(texts))
    assert [(d.index, d.of_index) for d in marks] == [(3, 0)]
    assert marks[0].representation == "sbert"
    assert marks[0].sbert_score > 0.7 and marks[0].tfidf_score <= 0.7
    assert float(emb[1] @ emb[2]) < 0.7  # an unrelated pair stays apart
