"""De-duplication benchmark (SPEC section 10: 20k texts within 1.3× the time of embedding them
alone, peak memory ≤ 2 GB; section 7: must scale to 100k texts without an N×N matrix).

Generates short news-like sentences from templates and word lists (seeded), with planted
near-copies (one word changed, punctuation, case, a prefix) and paraphrases (synonyms swapped,
the attribution moved to the front), and measures, each in a fresh subprocess so that peak
memory (``ru_maxrss``) belongs to one phase alone:

* ``embed`` — SBERT embedding of the N texts alone (``embed_texts``);
* ``full`` — the whole de-duplication: embedding + TF-IDF + blocked search
  (``find_near_duplicates``); its time over the embedding time is the ratio of SPEC section 10;
* ``scale`` — the blocked search on 100k texts: TF-IDF of 100k generated texts and synthetic
  384-dimensional unit vectors (random, with the planted duplicates placed close to their
  originals) instead of SBERT, whose 100k embeddings would take most of an hour on a laptop CPU.

The model is loaded and warmed up before the clock starts in both ``embed`` and ``full``.

    python bench/dedup.py [--n 20000] [--scale 100000] [--seed 7] [--block-size 1024]
    python bench/dedup.py --scale 0          # skip the 100k run
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.corpus.duplicates import find_near_duplicates, tfidf_matrix  # noqa: E402

RATIO_TARGET = 1.3
PEAK_TARGET_MB = 2048.0
DIM = 384

# ----------------------------------------------------------------------------- the corpus

CITIES = (
    "Lisbon Oslo Denver Nairobi Osaka Leeds Porto Quebec Dakar Perth Tulsa Graz Lyon Cork "
    "Bergen Malmo Turin Austin Halifax Kyoto Accra Seville Gdansk Utrecht Ghent Tampere "
    "Boise Fresno Hobart Cairns Durban Mombasa Pune Surat Busan Davao Cebu Tartu Riga Split "
    "Bilbao Krakow Leipzig Geneva Aarhus Bordeaux Naples Dublin Tbilisi Lagos Kampala Quito "
    "Lima Cusco Recife Rosario Mendoza Tijuana Oaxaca Regina Calgary Omaha Tucson Memphis "
    "Raleigh Spokane Tampa Reno Fargo Yokohama Sendai Incheon Chennai Jaipur Kochi Colombo"
).split()
ORGS = (
    "city council|regional government|transport authority|health ministry|teachers' union|"
    "central bank|port authority|university|energy regulator|football club|water utility|"
    "school board|airline|hospital trust|housing agency|police department|tourism office|"
    "parliament|electricity company|national railway|chamber of commerce|fire service|"
    "planning committee|farmers' association|opera house|public broadcaster|zoo|"
    "statistics office|court of appeal|environment agency"
).split("|")
FIRST = ("Maria Jonas Aiko Luis Grace Pieter Sofia Omar Elena Kwame Hannah Ravi Chloe Tomasz "
         "Fatima Lucas Ingrid Daniel Mei Samuel Nadia Yusuf Clara Mateo Priya Olga Kenji "
         "Amara Felix Leila").split()
LAST = ("Okafor Berg Tanaka Ferreira Mensah Vries Rossi Haddad Petrova Asante Keller Menon "
        "Martin Nowak Zahra Silva Holm Cohen Chen Adeyemi Novak Lindqvist Moreau Castillo "
        "Iyer Sato Kowalski Brennan Dubois Achebe").split()
ROLES = ("mayor", "spokesperson", "chief executive", "director", "minister", "chair",
         "head coach", "treasurer", "president", "chief engineer", "deputy mayor", "auditor",
         "press officer", "union leader", "councillor", "governor", "analyst", "economist")
PROJECTS = (
    "the new bridge|a tram line|the stadium renovation|a housing scheme|the budget|a tax on "
    "sugary drinks|the airport expansion|a four-day school week|the harbour cleanup|a "
    "recycling program|the hospital wing|free public transport|a ban on diesel cars|the "
    "summer festival|a hiring freeze|the merger|new parking rules|the wind farm|a rent cap|"
    "the museum extension|a curfew for bars|the water pipeline|a solar subsidy|the marathon|"
    "a cycling lane network|the night bus service|a pension reform|the film festival|a "
    "plastic bag levy|the science park|a minimum wage rise|the ferry link|a tree planting "
    "drive|the jazz week|a school meals program|the ring road|a flood barrier|the data centre"
).split("|")
ACTIONS = ("approved", "rejected", "postponed", "announced", "cancelled", "suspended",
           "confirmed", "expanded", "reviewed", "proposed", "defended", "criticised",
           "funded", "scaled back")
WHEN = ("on Monday", "on Tuesday", "on Wednesday", "on Thursday", "on Friday", "last week",
        "this morning", "late on Sunday", "earlier today", "at the weekend", "on Saturday",
        "last night", "overnight", "in January", "in April", "in October")
REASONS = ("citing rising costs", "after months of talks", "amid protests", "in a narrow vote",
           "despite objections from residents", "after a safety review", "to cut emissions",
           "following a court ruling", "under pressure from businesses", "for the second time",
           "after an audit found errors", "to attract tourists", "as inflation eased",
           "after a petition gathered thousands of signatures", "ahead of local elections",
           "because of staff shortages", "after a fatal accident", "to save money")
EVENTS = ("a storm", "a power cut", "a strike", "a fire", "flooding", "a cyber attack",
          "a heatwave", "a landslide", "a water main burst", "a rail strike", "an earthquake",
          "a gas leak", "a bridge collapse", "heavy snowfall", "a chemical spill", "a blackout")
STATES = ("evacuated", "stranded", "left without power", "injured", "rescued", "relocated",
          "treated in hospital", "left without water")
FUTURE = ("reopen", "close", "resume", "be rebuilt", "be inspected", "be expanded",
          "be sold", "be renamed", "be demolished", "move to a new site")
PLACES = ("the main library", "the central station", "the old harbour", "the city zoo",
          "the swimming pool", "the airport terminal", "the town hall", "the market hall",
          "the ice rink", "the botanical garden", "the concert hall", "the children's hospital",
          "the fish market", "the cable car", "the sports centre", "the art gallery")
GROUPS = ("passengers", "students", "patients", "tourists", "workers", "residents", "fans",
          "hikers", "commuters", "pupils", "shoppers", "festival goers", "miners", "sailors")
COMPANIES = ("Nordwind", "Altamira Foods", "Bluepeak Telecom", "Ironbridge Steel", "Solara",
             "Kestrel Airlines", "Marlow Bank", "Verdant Farms", "Orbis Media", "Halcyon Pharma",
             "Quarry Lane Books", "Tidewater Shipping", "Copperleaf Games", "Granite Insurance")
BIZ_ACTIONS = ("open", "close", "sell", "build", "expand", "shut down", "relocate", "automate",
               "modernise", "buy")
BIZ_OBJECTS = ("a factory", "its headquarters", "two stores", "a research lab", "a call centre",
               "its warehouse", "a data centre", "a training academy", "a brewery", "a hotel",
               "its printing plant", "a solar park")
DURATIONS = ("next month", "in two weeks", "by the end of the year", "in the spring",
             "after the summer", "within days", "next year", "in early March", "in 2027",
             "before Christmas", "in the autumn", "by June")

#: paraphrase vocabulary: word or phrase → a wording with the same meaning
SYNONYMS = {
    "approved": "gave the green light to", "rejected": "voted down", "postponed": "delayed",
    "announced": "unveiled", "cancelled": "scrapped", "suspended": "put on hold",
    "confirmed": "made official", "expanded": "extended", "reviewed": "re-examined",
    "proposed": "put forward", "evacuated": "moved to safety", "stranded": "stuck",
    "injured": "hurt", "rescued": "saved", "reopen": "open again", "close": "shut",
    "resume": "restart", "said": "stated", "next month": "in the coming month",
    "a storm": "a severe storm", "a strike": "a walkout", "a fire": "a blaze",
    "earlier today": "today", "this morning": "early today",
}


def _pick(rng: np.random.Generator, options) -> str:
    return options[int(rng.integers(len(options)))]


def _base_sentence(rng: np.random.Generator) -> tuple[str, str]:
    """One news-like sentence as (clause, attribution); the attribution may be empty."""
    kind = int(rng.choice(4, p=(0.4, 0.2, 0.2, 0.2)))
    city = _pick(rng, CITIES)
    org = f"the {_pick(rng, ORGS)}"
    source = f"{_pick(rng, FIRST)} {_pick(rng, LAST)}, the {_pick(rng, ROLES)}, said"
    if kind == 0:
        clause = (f"{org.capitalize()} of {city} {_pick(rng, ACTIONS)} {_pick(rng, PROJECTS)} "
                  f"{_pick(rng, WHEN)} {_pick(rng, REASONS)}")
        return clause, source if rng.random() < 0.5 else ""
    if kind == 1:
        count = int(rng.integers(12, 4800))
        clause = (f"{count} {_pick(rng, GROUPS)} were {_pick(rng, STATES)} in {city} after "
                  f"{_pick(rng, EVENTS)} {_pick(rng, WHEN)}")
        return clause, f"{org} said"
    if kind == 2:
        clause = (f"{_pick(rng, PLACES).capitalize()} in {city} will {_pick(rng, FUTURE)} "
                  f"{_pick(rng, DURATIONS)} {_pick(rng, REASONS)}")
        return clause, source
    clause = (f"{_pick(rng, COMPANIES)} will {_pick(rng, BIZ_ACTIONS)} {_pick(rng, BIZ_OBJECTS)} "
              f"in {city} {_pick(rng, DURATIONS)} {_pick(rng, REASONS)}")
    return clause, source if rng.random() < 0.6 else f"{org} said"


def _render(clause: str, attribution: str) -> str:
    return f"{clause}, {attribution}." if attribution else f"{clause}."


def _paraphrase(clause: str, attribution: str, rng: np.random.Generator) -> str:
    """Synonyms swapped in, and the attribution moved to the front ("X said that …")."""
    words = clause
    for word, other in SYNONYMS.items():
        if f" {word} " in f" {words} " and rng.random() < 0.8:
            words = f" {words} ".replace(f" {word} ", f" {other} ", 1).strip()
    if attribution:
        said = attribution.replace(" said", " stated") if rng.random() < 0.5 else attribution
        return f"{said} that {words[0].lower()}{words[1:]}."
    return f"{words}." if rng.random() < 0.5 else f"Reports say {words[0].lower()}{words[1:]}."


def _near_copy(text: str, rng: np.random.Generator) -> str:
    """The same text with one small edit: a word changed, punctuation, case or a prefix."""
    kind = int(rng.integers(4))
    if kind == 0:
        words = text.split()
        k = int(rng.integers(1, len(words)))
        words[k] = _pick(rng, ("the", "its", "new", "local", "major", "key"))
        return " ".join(words)
    if kind == 1:
        return text.replace(",", "").rstrip(".") + "!"
    if kind == 2:
        return text.upper() if rng.random() < 0.5 else text.lower()
    return _pick(rng, ("UPDATE: ", "Breaking: ", "Report: ")) + text


def make_corpus(n: int, seed: int, dup_rate: float = 0.08
                ) -> tuple[list[str], dict[int, tuple[int, str]]]:
    """``n`` texts and the planted duplicates: position → (position of its original, kind),
    kind "copy" or "paraphrase". About ``dup_rate`` of the texts are planted, half each kind,
    each placed after its original."""
    rng = np.random.default_rng(seed)
    texts: list[str] = []
    parts: list[tuple[str, str]] = []
    planted: dict[int, tuple[int, str]] = {}
    while len(texts) < n:
        if len(texts) > 10 and rng.random() < dup_rate:
            orig = int(rng.integers(len(texts)))
            while orig in planted:  # duplicate an original, so the expected pair is clear
                orig = int(rng.integers(len(texts)))
            if rng.random() < 0.5:
                texts.append(_near_copy(texts[orig], rng))
                planted[len(texts) - 1] = (orig, "copy")
            else:
                texts.append(_paraphrase(*parts[orig], rng))
                planted[len(texts) - 1] = (orig, "paraphrase")
            parts.append(parts[orig])
            continue
        clause, attribution = _base_sentence(rng)
        texts.append(_render(clause, attribution))
        parts.append((clause, attribution))
    return texts, planted


def synthetic_embeddings(n: int, planted: dict[int, tuple[int, str]], seed: int) -> np.ndarray:
    """Random unit vectors (pairwise cosines ≈ N(0, 1/384): never near 0.7), with each planted
    duplicate placed at cosine ≈ 0.9 to its original, as SBERT places a paraphrase."""
    rng = np.random.default_rng(seed + 1)
    emb = rng.standard_normal((n, DIM), dtype=np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    for pos, (orig, _) in sorted(planted.items()):  # originals come first, already final
        emb[pos] = emb[orig] + 0.45 * emb[pos]  # cosine ≈ 1 / sqrt(1 + 0.45²) ≈ 0.91
        emb[pos] /= np.linalg.norm(emb[pos])
    return emb


# ----------------------------------------------------------------------------- phases

def _peak_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _found(marks, planted) -> dict[str, float]:
    """Share of planted duplicates marked (as a duplicate of anything), per kind, and how many
    marks are not planted ones (pairs the templates produced by chance)."""
    marked = {m.index for m in marks}
    out: dict[str, float] = {}
    for kind in ("copy", "paraphrase"):
        positions = [p for p, (_, k) in planted.items() if k == kind]
        out[f"found_{kind}"] = sum(p in marked for p in positions) / max(len(positions), 1)
    out["unplanted_marks"] = len(marked - set(planted))
    return out


def phase_embed(args) -> dict:
    from annotation.corpus.embeddings import embed_texts, load_sbert

    texts, _ = make_corpus(args.n, args.seed)
    model = load_sbert()
    embed_texts(texts[:256], model=model)  # warm-up: first calls allocate
    t0 = time.perf_counter()
    embed_texts(texts, model=model)
    return {"embed_s": time.perf_counter() - t0, "peak_mb": _peak_mb()}


def phase_full(args) -> dict:
    from annotation.corpus.embeddings import embed_texts, load_sbert

    texts, planted = make_corpus(args.n, args.seed)
    model = load_sbert()
    embed_texts(texts[:256], model=model)
    t0 = time.perf_counter()
    emb = embed_texts(texts, model=model)
    t1 = time.perf_counter()
    tfidf = tfidf_matrix(texts)
    t2 = time.perf_counter()
    marks = find_near_duplicates(emb, tfidf, block_size=args.block_size)
    t3 = time.perf_counter()
    # the search's worst case: (nearly) every text kept, so every row meets all earlier ones
    worst = find_near_duplicates(synthetic_embeddings(args.n, planted, args.seed), tfidf,
                                 block_size=args.block_size)
    t4 = time.perf_counter()
    by_rep = {rep: sum(m.representation == rep for m in marks)
              for rep in ("sbert", "tfidf", "both")}
    return {"total_s": t3 - t0, "embed_s": t1 - t0, "tfidf_s": t2 - t1, "search_s": t3 - t2,
            "search_worst_s": t4 - t3, "kept_worst": args.n - len(worst),
            "kept": args.n - len(marks), "pairs": len(marks), "by_representation": by_rep,
            "planted": len(planted),
            **_found(marks, planted), "peak_mb": _peak_mb()}


def phase_scale(args) -> dict:
    t0 = time.perf_counter()
    texts, planted = make_corpus(args.scale, args.seed)
    emb = synthetic_embeddings(args.scale, planted, args.seed)
    t1 = time.perf_counter()
    tfidf = tfidf_matrix(texts)
    t2 = time.perf_counter()
    marks = find_near_duplicates(emb, tfidf, block_size=args.block_size)
    t3 = time.perf_counter()
    return {"generate_s": t1 - t0, "tfidf_s": t2 - t1, "search_s": t3 - t2, "pairs": len(marks),
            "planted": len(planted), **_found(marks, planted), "peak_mb": _peak_mb(),
            "nxn_would_take_mb": 4.0 * args.scale * args.scale / 2**20}


PHASES = {"embed": phase_embed, "full": phase_full, "scale": phase_scale}


def _run_phase(name: str, args) -> dict:
    """Run one phase in a fresh interpreter, so its peak memory is its own."""
    cmd = [sys.executable, __file__, "--phase", name, "--n", str(args.n), "--scale",
           str(args.scale), "--seed", str(args.seed), "--block-size", str(args.block_size)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"phase {name} failed (exit {done.returncode})")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20_000, help="texts embedded and de-duplicated")
    parser.add_argument("--scale", type=int, default=100_000,
                        help="texts for the blocked-search scale run (0 skips it)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--block-size", type=int, default=1024)
    parser.add_argument("--phase", choices=sorted(PHASES), help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.phase:
        print(json.dumps(PHASES[args.phase](args)))
        return

    print(f"de-duplication benchmark: {args.n} texts, block size {args.block_size}, "
          f"seed {args.seed}")
    embed = _run_phase("embed", args)
    full = _run_phase("full", args)
    ratio = full["total_s"] / embed["embed_s"]
    # the same ratio inside the one full run: immune to the two runs' embedding speeds differing
    inner = full["total_s"] / full["embed_s"]
    worst = (full["embed_s"] + full["tfidf_s"] + full["search_worst_s"]) / full["embed_s"]
    print(f"  embedding alone          {embed['embed_s']:8.1f} s   peak {embed['peak_mb']:7.0f} MB"
          f"   ({args.n / embed['embed_s']:.0f} texts/s)")
    print(f"  full de-duplication      {full['total_s']:8.1f} s   peak {full['peak_mb']:7.0f} MB")
    print(f"    of which embedding     {full['embed_s']:8.1f} s")
    print(f"    of which TF-IDF        {full['tfidf_s']:8.1f} s")
    print(f"    of which search        {full['search_s']:8.1f} s   ({full['kept']} texts kept)")
    print(f"  ratio full / embedding   {ratio:8.2f}     (target ≤ {RATIO_TARGET}) "
          f"{'OK' if ratio <= RATIO_TARGET else 'MISSED'}")
    print(f"    within the full run    {inner:8.3f}     (embedding + TF-IDF + search) / embedding")
    print(f"    worst case             {worst:8.3f}     search with {full['kept_worst']} texts "
          f"kept (synthetic embeddings): {full['search_worst_s']:.1f} s")
    print(f"  peak memory              {full['peak_mb']:8.0f} MB  (target ≤ {PEAK_TARGET_MB:.0f}) "
          f"{'OK' if full['peak_mb'] <= PEAK_TARGET_MB else 'MISSED'}")
    print(f"  pairs found {full['pairs']} (by representation {full['by_representation']}); "
          f"planted {full['planted']}: copies found {full['found_copy']:.1%}, paraphrases found "
          f"{full['found_paraphrase']:.1%}; marks beyond the planted ones "
          f"{full['unplanted_marks']}")
    if args.scale > 0:
        scale = _run_phase("scale", args)
        print(f"scale: blocked search on {args.scale} texts (TF-IDF + synthetic 384-d embeddings)")
        print(f"  TF-IDF {scale['tfidf_s']:.1f} s, search {scale['search_s']:.1f} s, "
              f"peak {scale['peak_mb']:.0f} MB (one float32 N×N matrix alone would be "
              f"{scale['nxn_would_take_mb']:.0f} MB)")
        print(f"  pairs found {scale['pairs']}; planted {scale['planted']}: copies found "
              f"{scale['found_copy']:.1%}, paraphrases found {scale['found_paraphrase']:.1%}; "
              f"marks beyond the planted ones {scale['unplanted_marks']}")


if __name__ == "__main__":
    main()
