"""Per-annotator activity figures for the lead's dashboard: output per day, time per sample,
flag rates and agreement with partners — the signs of fatigue or drift. Pure: data in, data out.

Definitions (each figure over the submissions in the chosen period):

* **submitted per day** — submitted annotations per calendar day (the project's time zone),
  warm-up included (it is work done); ``warmup`` counts those separately;
* **time per sample** — median and mean of the time spent on each submitted annotation
  (``seconds_spent``: active time, idle gaps capped by the queue), in seconds;
* **annotator flag rate** — share of the annotator's submissions that carry an annotator flag;
* **automatic flag rate** — share of the annotator's *complete* production samples (k submitted
  annotations) that got an automatic flag (segmentation mismatch, Pk, parameter deviation):
  flags concern a pair, so a high rate is a sign only next to the partners' rates;
* **agreement with partners** — the per-pair figures of the agreement report (Jaccard, kappa,
  Pk, ICC(1,1) per parameter where the pair has enough samples), and per annotator their mean
  over the annotator's pairs weighted by the pair's number of samples;
* **drafts** — drafts in progress now (not limited to the period).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from annotation.agreement import PairAgreement

#: Per-pair figures of the agreement report shown on the dashboard, in display order.
PAIR_FIGURES: tuple[str, ...] = ("jaccard", "kappa", "pk", "icc_xi", "icc_omega", "icc_alpha")

SUMMARY_COLUMNS: tuple[str, ...] = (
    "annotator", "submitted", "warmup", "active_days", "per_active_day", "median_seconds",
    "mean_seconds", "annotator_flag_rate", "complete_samples", "auto_flag_rate", "drafts",
    "partners", *PAIR_FIGURES,
)
DAILY_COLUMNS: tuple[str, ...] = ("day", "annotator", "submitted", "median_seconds", "mean_seconds")
PARTNER_COLUMNS: tuple[str, ...] = ("annotator", "partner", "n_samples", *PAIR_FIGURES)


@dataclass(frozen=True)
class Submission:
    """One submitted annotation as the dashboard reads it."""

    annotator: str
    sample_id: int
    day: date
    seconds: float
    annotator_flagged: bool
    warmup: bool = False


def daily_activity(submissions: Iterable[Submission]) -> pd.DataFrame:
    """One row per (day, annotator) with submissions: count, median and mean seconds."""
    groups: dict[tuple[date, str], list[float]] = defaultdict(list)
    for sub in submissions:
        groups[(sub.day, sub.annotator)].append(float(sub.seconds))
    rows = [(day, name, len(v), float(np.median(v)), float(np.mean(v)))
            for (day, name), v in sorted(groups.items())]
    return pd.DataFrame(rows, columns=list(DAILY_COLUMNS))


def partner_table(pairs: Sequence[PairAgreement]) -> pd.DataFrame:
    """Each annotator pair twice, once from each side, so a table filtered on ``annotator``
    lists all of that person's partners."""
    rows = []
    for pair in pairs:
        a, b = pair.annotators
        values = [pair.figure(f) for f in PAIR_FIGURES]
        rows.append((a, b, pair.n_samples, *values))
        rows.append((b, a, pair.n_samples, *values))
    frame = pd.DataFrame(rows, columns=list(PARTNER_COLUMNS))
    for f in PAIR_FIGURES:
        frame[f] = pd.to_numeric(frame[f], errors="coerce").astype(float)
    return frame.sort_values(["annotator", "partner"], ignore_index=True)


def partner_means(pairs: Sequence[PairAgreement]) -> dict[str, dict[str, float | None]]:
    """Per annotator: number of partners and each pair figure's mean over their pairs, weighted
    by the pairs' sample counts (None where no pair has the figure)."""
    sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    partners: dict[str, set[str]] = defaultdict(set)
    for pair in pairs:
        a, b = pair.annotators
        partners[a].add(b)
        partners[b].add(a)
        for f in PAIR_FIGURES:
            value = pair.figure(f)
            if value is None or not np.isfinite(value):
                continue
            for person in (a, b):
                acc = sums[person][f]
                acc[0] += value * pair.n_samples
                acc[1] += pair.n_samples
    out: dict[str, dict[str, float | None]] = {}
    for person in partners:
        figures: dict[str, float | None] = {"partners": float(len(partners[person]))}
        for f in PAIR_FIGURES:
            total, weight = sums[person][f] if f in sums[person] else (0.0, 0.0)
            figures[f] = total / weight if weight else None
        out[person] = figures
    return out


def annotator_summary(submissions: Sequence[Submission], *, drafts: Mapping[str, int] | None = None,
                      complete_samples: Iterable[int] = (), auto_flagged_samples: Iterable[int] = (),
                      pairs: Sequence[PairAgreement] = ()) -> pd.DataFrame:
    """One row per annotator (columns :data:`SUMMARY_COLUMNS`, see module docstring).

    ``complete_samples``: production samples with k submitted annotations;
    ``auto_flagged_samples``: samples that got an automatic flag. Annotators with drafts but no
    submission in the period are listed too.
    """
    drafts = dict(drafts or {})
    complete = set(complete_samples)
    flagged = set(auto_flagged_samples)
    means = partner_means(pairs)
    by_person: dict[str, list[Submission]] = defaultdict(list)
    for sub in submissions:
        by_person[sub.annotator].append(sub)
    rows = []
    for name in sorted(set(by_person) | {n for n, c in drafts.items() if c} | set(means)):
        subs = by_person.get(name, [])
        seconds = [float(x.seconds) for x in subs]
        days = {x.day for x in subs}
        done = {x.sample_id for x in subs if not x.warmup and x.sample_id in complete}
        pair = means.get(name, {})
        rows.append({
            "annotator": name,
            "submitted": len(subs),
            "warmup": sum(1 for x in subs if x.warmup),
            "active_days": len(days),
            "per_active_day": len(subs) / len(days) if days else np.nan,
            "median_seconds": float(np.median(seconds)) if seconds else np.nan,
            "mean_seconds": float(np.mean(seconds)) if seconds else np.nan,
            "annotator_flag_rate": (sum(1 for x in subs if x.annotator_flagged) / len(subs)
                                    if subs else np.nan),
            "complete_samples": len(done),
            "auto_flag_rate": len(done & flagged) / len(done) if done else np.nan,
            "drafts": int(drafts.get(name, 0)),
            "partners": int(pair.get("partners") or 0),
            **{f: (np.nan if pair.get(f) is None else pair[f]) for f in PAIR_FIGURES},
        })
    frame = pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))
    for column in ("per_active_day", "median_seconds", "mean_seconds", "annotator_flag_rate",
                   "auto_flag_rate", *PAIR_FIGURES):
        frame[column] = frame[column].astype(float)
    return frame


__all__ = [
    "DAILY_COLUMNS",
    "PAIR_FIGURES",
    "PARTNER_COLUMNS",
    "SUMMARY_COLUMNS",
    "Submission",
    "annotator_summary",
    "daily_activity",
    "partner_means",
    "partner_table",
]
