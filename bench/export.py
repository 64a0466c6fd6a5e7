"""Export benchmark (SPEC section 10: export of 100k samples ≤ 15 s, database read included).

Generates ``--n`` gold samples (seeded; 80% benchmark 1, 20% benchmark 2) with English-like
texts of about 25 tokens (15–35), cut into 1–4 segments whose axes follow a realistic skew
(Main on ~95% of samples, Intention ~20%, Opinion ~10%, the rest a few per cent; 10% of
segments carry two axes, as after a union resolution), and ``--per-sample`` individual
annotations each (5 curve points, parameters, a timestamp) as :class:`ExportAnnotation` values.

Times (wall clock and this process's CPU time, which other load on a shared machine disturbs
less) the pure part, :func:`annotation.export.export_hf_dataset` (stratified splits, formatting,
statistics, card, writing, atomic move), ``--repeat`` times into fresh folders, and prints the
median against the budget left for it once the database read is counted, plus the file sizes
and the time to zip the folder (the download, not part of the budget).

    python bench/export.py [--n 100000] [--per-sample 2] [--seed 7] [--repeat 3] [--base 1.1] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.axes import AXIS_NAMES  # noqa: E402
from annotation.export import (  # noqa: E402
    ExportAnnotation,
    ExportMeta,
    ExportSettings,
    GoldSample,
    export_hf_dataset,
    zip_export,
)
from annotation.content import AnnotationContent
from annotation.segmentation import tokenize  # noqa: E402

TARGET_TOTAL_S = 15.0
#: What the pure part may take so that the whole export (with the database read) stays in budget.
TARGET_PURE_S = 8.0
AXIS_FREQUENCY = {"main": 0.95, "intention": 0.20, "opinion": 0.10, "static": 0.06, "generic": 0.05,
                  "hypothetical": 0.04, "negation": 0.03, "recurrent": 0.03}
WORDS = ("the bakery on street is closed for renovation this week and owner plans to reopen by June "
         "with a new menu council will vote next Tuesday on budget every Friday market opens at "
         "8:15 residents think it's too expensive if rain continues match might be postponed "
         "school does not offer lunch anymore company co-op said 3.5 million people").split()
START = datetime(2026, 9, 7, 8, 0, tzinfo=timezone.utc)


def _text(rng: random.Random) -> str:
    n_words = rng.randint(14, 32)
    words = [rng.choice(WORDS) for _ in range(n_words)]
    words[0] = words[0].capitalize()
    comma = rng.randrange(3, n_words - 3)
    return " ".join(words[:comma]) + ", " + " ".join(words[comma:]) + "."


def _boundaries(rng: random.Random, n_tokens: int) -> tuple[int, ...]:
    n_segments = rng.randint(1, min(4, n_tokens))
    return (0, *sorted(rng.sample(range(1, n_tokens), n_segments - 1)))


def _segment_axes(rng: random.Random, n_segments: int) -> tuple[tuple[str, ...], ...]:
    used = [name for name, share in AXIS_FREQUENCY.items() if rng.random() < share] or ["main"]
    segments: list[list[str]] = [[] for _ in range(n_segments)]
    for i, name in enumerate(used):
        segments[i % n_segments if i < n_segments else rng.randrange(n_segments)].append(name)
    for j in range(n_segments):
        if not segments[j]:
            segments[j].append(rng.choice(used))
        elif rng.random() < 0.1:
            segments[j].append(rng.choice(AXIS_NAMES))
    return tuple(tuple(sorted(set(names), key=AXIS_NAMES.index)) for names in segments)


def generate(n: int, per_sample: int, seed: int) -> tuple[list[GoldSample], list[ExportAnnotation]]:
    rng = random.Random(seed)
    samples, annotations = [], []
    for i in range(n):
        benchmark = 1 if rng.random() < 0.8 else 2
        text = _text(rng)
        n_tokens = len(tokenize(text))
        boundaries = _boundaries(rng, n_tokens)
        axes = _segment_axes(rng, len(boundaries))
        xi, omega, alpha = rng.uniform(20, 150), rng.uniform(3, 30), rng.uniform(-3, 3)
        sample_id = f"B{benchmark}-{i:06d}"
        samples.append(GoldSample(sample_id, benchmark, text, boundaries, axes, xi, omega, alpha))
        for k in range(per_sample):
            points = tuple((xi + dx + rng.gauss(0, 1), y) for dx, y in
                           ((0, 1.0), (-omega, 0.5), (omega, 0.5), (-2 * omega, 0.1), (2 * omega, 0.1)))
            content = AnnotationContent(
                boundaries=boundaries, segment_axes=tuple(a[0] for a in axes), points=points,
                xi=xi + rng.gauss(0, 2), omega=omega * rng.uniform(0.9, 1.1), alpha=alpha + rng.gauss(0, 0.3),
                scale=1.0, rmse=0.02,
            )
            when = START + timedelta(minutes=rng.randrange(60 * 24 * 84))
            annotations.append(ExportAnnotation(sample_id, f"ann{(i + 7 * k) % 20:02d}", content, when))
    return samples, annotations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--per-sample", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--base", type=float, default=1.1)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    t0 = time.perf_counter()
    samples, annotations = generate(args.n, args.per_sample, args.seed)
    print(f"generated {len(samples)} samples and {len(annotations)} annotations "
          f"in {time.perf_counter() - t0:.1f} s (not timed)")
    settings = ExportSettings(base=args.base, seed=args.seed)
    meta = ExportMeta(1, "Bench project", "lead", START)
    agreement = {"icc_xi": 0.93, "icc_omega": 0.91, "icc_alpha": 0.88, "jaccard": 0.81, "pk": 0.12}

    with tempfile.TemporaryDirectory() as tmp:
        times, cpu_times = [], []
        for run in range(args.repeat):
            out = Path(tmp) / f"export-{run}"
            profiler = cProfile.Profile() if args.profile and run == 0 else None
            start, cpu_start = time.perf_counter(), time.process_time()
            if profiler:
                profiler.enable()
            export_hf_dataset(out, samples, annotations, settings, meta=meta, agreement=agreement)
            if profiler:
                profiler.disable()
            times.append(time.perf_counter() - start)
            cpu_times.append(time.process_time() - cpu_start)
            print(f"run {run + 1}: {times[-1]:.2f} s wall, {cpu_times[-1]:.2f} s CPU")
            if profiler:
                pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
        median = statistics.median(times)
        sizes = {str(p.relative_to(out)): p.stat().st_size for p in sorted(out.rglob("*")) if p.is_file()}
        start = time.perf_counter()
        archive = zip_export(out)
        zip_s = time.perf_counter() - start

    print(f"\nexport_hf_dataset, {len(samples)} samples + {len(annotations)} annotations: "
          f"median {median:.2f} s wall over {len(times)} runs (min {min(times):.2f} s; "
          f"median CPU time {statistics.median(cpu_times):.2f} s) — "
          f"pure-part target ≤ {TARGET_PURE_S:.0f} s, whole export ≤ {TARGET_TOTAL_S:.0f} s: "
          f"{'OK' if median <= TARGET_PURE_S else 'OVER'}")
    for name, size in sizes.items():
        print(f"  {name:28s} {size / 2**20:8.2f} MiB")
    print(f"  {'total':28s} {sum(sizes.values()) / 2**20:8.2f} MiB")
    print(f"zip_export: {len(archive) / 2**20:.2f} MiB in {zip_s:.2f} s (download; not in the budget)")


if __name__ == "__main__":
    main()
