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
  Pk, ICC(1,1) per parameter), each through the one rule of :mod:`annotation.publishable`
  (:data:`PAIR_FIGURE_NEEDS`): shown with the number of samples the pair shares, or withheld
  ("—" and the rule) below the figure's minimum — 30 for an ICC, 10 for Jaccard, kappa and Pk.
  Per annotator, each figure's mean over the pairs where it is shown, weighted by the pairs'
  shared samples, through the same rule with n = those samples (:func:`partner_means`). The
  breakdowns are not bootstrapped, so these figures carry no interval;
* **drafts** — drafts in progress now (not limited to the period).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import date
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from annotation.agreement import PairAgreement
from annotation.agreement.published import FIGURE_NEEDS
from annotation.publishable import NEEDS, Figure, Needs, figure

#: Per-pair figures of the agreement report shown on the dashboard, in display order.
PAIR_FIGURES: tuple[str, ...] = ("jaccard", "kappa", "pk", "icc_xi", "icc_omega", "icc_alpha")
#: The rule each pair figure is read against: the headline figure's (:data:`NEEDS`), without
#: an interval (a pair's or an annotator's figure is not bootstrapped).
PAIR_FIGURE_NEEDS: Mapping[str, Needs] = {
    name: replace(FIGURE_NEEDS.get(name) or NEEDS[name], interval=False) for name in PAIR_FIGURES}

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
    """One row per (day, annotator) with submissions: count, median and mean seconds.

    >>> day = date(2026, 11, 2)
    >>> row = daily_activity([Submission("ann", 1, day, 60.0, False), Submission("ann", 2, day, 180.0, True)]).iloc[0]
    >>> row.annotator, int(row.submitted), float(row.median_seconds)
    ('ann', 2, 120.0)
    """
    groups: dict[tuple[date, str], list[float]] = defaultdict(list)
    for sub in submissions:
        groups[(sub.day, sub.annotator)].append(float(sub.seconds))
    rows = [(day, name, len(v), float(np.median(v)), float(np.mean(v)))
            for (day, name), v in sorted(groups.items())]
    return pd.DataFrame(rows, columns=list(DAILY_COLUMNS))


def pair_rules() -> str:
    """The rules of the pair figures in words, one per kind of figure (what a page's caption
    and the CLI state; the minimums come from :data:`NEEDS`, never copied).

    >>> print(*pair_rules().split("; "), sep=chr(10))
    Jaccard needs ≥ 10 samples with axis labels
    Cohen's κ needs ≥ 10 samples with axis labels
    Pk needs ≥ 10 samples with two segmentations
    ICC(1,1) needs ≥ 30 samples with every curve
    """
    rules = {f"{needs.name} {needs.rule}": None for needs in PAIR_FIGURE_NEEDS.values()}
    return "; ".join(rules)


def pair_figure(pair: PairAgreement, name: str) -> Figure:
    """Pair figure ``name`` through its rule, n = the samples the two annotators share.

    Examples:
        >>> from types import MappingProxyType
        >>> twelve = PairAgreement(("ann", "bob"), 12, MappingProxyType({"jaccard": 0.8, "icc_xi": 0.9}))
        >>> pair_figure(twelve, "jaccard").text()
        '0.800 (n = 12)'
        >>> pair_figure(twelve, "icc_xi").text()
        '— needs ≥ 30 samples with every curve (n = 12)'
        >>> pair_figure(PairAgreement(("ann", "bob"), 12, MappingProxyType({"pk": None})), "pk").text()
        '— not defined on their shared samples (n = 12)'
        >>> pair_figure(twelve, "pk").text()   # the project's measures do not include Pk
        '— not measured in this project (n = 12)'
    """
    return figure(PAIR_FIGURE_NEEDS[name], pair.figure(name), n=pair.n_samples,
                  undefined="not defined on their shared samples" if name in pair.figures else
                  "not measured in this project")


def pair_figures(pair: PairAgreement) -> dict[str, Figure]:
    """Each of :data:`PAIR_FIGURES` of ``pair`` through its rule (:func:`pair_figure`).

    >>> from types import MappingProxyType
    >>> figures = pair_figures(PairAgreement(("ann", "bob"), 9, MappingProxyType({"kappa": 0.7})))
    >>> list(figures) == list(PAIR_FIGURES), figures["kappa"].withheld
    (True, 'needs ≥ 10 samples with axis labels')
    """
    return {name: pair_figure(pair, name) for name in PAIR_FIGURES}


def partner_table(pairs: Sequence[PairAgreement]) -> pd.DataFrame:
    """Each annotator pair twice, once from each side, so a table filtered on ``annotator``
    lists all of that person's partners. The figures after the rule (NaN where withheld:
    :func:`pair_figure` says why).

    >>> from types import MappingProxyType
    >>> table = partner_table([PairAgreement(("ann", "bob"), 12, MappingProxyType({"jaccard": 0.8, "pk": 0.1}))])
    >>> table[["annotator", "partner", "n_samples", "jaccard"]].values.tolist()
    [['ann', 'bob', 12, 0.8], ['bob', 'ann', 12, 0.8]]
    """
    rows = []
    for pair in pairs:
        a, b = pair.annotators
        values = [f.value for f in pair_figures(pair).values()]
        rows.append((a, b, pair.n_samples, *values))
        rows.append((b, a, pair.n_samples, *values))
    frame = pd.DataFrame(rows, columns=list(PARTNER_COLUMNS))
    for f in PAIR_FIGURES:
        frame[f] = pd.to_numeric(frame[f], errors="coerce").astype(float)
    return frame.sort_values(["annotator", "partner"], ignore_index=True)


def partner_counts(pairs: Sequence[PairAgreement]) -> dict[str, int]:
    """Per annotator, how many partners they share samples with.

    >>> from types import MappingProxyType
    >>> partner_counts([PairAgreement(("ann", "bob"), 3, MappingProxyType({})),
    ...                 PairAgreement(("ann", "cy"), 1, MappingProxyType({}))])
    {'ann': 2, 'bob': 1, 'cy': 1}
    """
    partners: dict[str, set[str]] = defaultdict(set)
    for pair in pairs:
        a, b = pair.annotators
        partners[a].add(b)
        partners[b].add(a)
    return {person: len(others) for person, others in partners.items()}


def partner_means(pairs: Sequence[PairAgreement]) -> dict[str, dict[str, Figure]]:
    """Per annotator, each pair figure's mean over their pairs where it is shown
    (:func:`pair_figure`), weighted by the pairs' shared samples, through the same rule with
    n = the samples of those pairs. Where no pair shows it, withheld with n = every sample the
    annotator shares: a pair below the minimum does not count, however many such pairs add up.

    Examples:
        ann shares 40 samples with bob (Jaccard 0.9, ICC ξ 0.8) and 12 with cy (Jaccard 0.5;
        its ICC ξ 0.2 is withheld, 12 < 30): the Jaccard mean is (0.9·40 + 0.5·12) / 52, the ICC
        is bob's alone.

        >>> from types import MappingProxyType
        >>> pairs = [PairAgreement(("ann", "bob"), 40, MappingProxyType({"jaccard": 0.9, "icc_xi": 0.8})),
        ...          PairAgreement(("ann", "cy"), 12, MappingProxyType({"jaccard": 0.5, "icc_xi": 0.2}))]
        >>> means = partner_means(pairs)
        >>> means["ann"]["jaccard"].text(), means["ann"]["icc_xi"].text()
        ('0.808 (n = 52)', '0.800 (n = 40)')
        >>> means["cy"]["icc_xi"].text()
        '— needs ≥ 30 samples with every curve (n = 12)'
    """
    shown: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    shared: dict[str, int] = defaultdict(int)
    measured: dict[str, set[str]] = defaultdict(set)
    for pair in pairs:
        figures = pair_figures(pair)
        for person in pair.annotators:
            shared[person] += pair.n_samples
            measured[person].update(pair.figures)
            for name, fig in figures.items():
                if fig.value is not None:
                    acc = shown[person][name]
                    acc[0] += fig.value * pair.n_samples
                    acc[1] += pair.n_samples
    out: dict[str, dict[str, Figure]] = {}
    for person, total in shared.items():
        out[person] = {}
        for name in PAIR_FIGURES:
            needs = PAIR_FIGURE_NEEDS[name]
            weighted, n = shown[person][name] if name in shown[person] else (0.0, 0.0)
            why = (f"no pair with a partner shows it: each {needs.rule}" if name in measured[person]
                   else "not measured in this project")
            out[person][name] = (figure(needs, weighted / n, n=int(n)) if n else
                                 figure(needs, None, n=total, undefined=why))
    return out


def annotator_summary(submissions: Sequence[Submission], *, drafts: Mapping[str, int] | None = None,
                      complete_samples: Iterable[int] = (), auto_flagged_samples: Iterable[int] = (),
                      pairs: Sequence[PairAgreement] = ()) -> pd.DataFrame:
    """One row per annotator (columns :data:`SUMMARY_COLUMNS`, see module docstring); the
    agreement columns hold :func:`partner_means` after the rule (NaN where withheld).

    ``complete_samples``: production samples with k submitted annotations;
    ``auto_flagged_samples``: samples that got an automatic flag. Annotators with drafts but no
    submission in the period are listed too.

    >>> day = date(2026, 11, 2)
    >>> row = annotator_summary([Submission("ann", 1, day, 60.0, True)], drafts={"bob": 1}).iloc[0]
    >>> row.annotator, int(row.submitted), float(row.annotator_flag_rate), int(row.partners)
    ('ann', 1, 1.0, 0)
    """
    drafts = dict(drafts or {})
    complete = set(complete_samples)
    flagged = set(auto_flagged_samples)
    means = partner_means(pairs)
    partners = partner_counts(pairs)
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
            "partners": partners.get(name, 0),
            **{f: (np.nan if f not in pair or pair[f].value is None else pair[f].value) for f in PAIR_FIGURES},
        })
    frame = pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))
    for column in ("per_active_day", "median_seconds", "mean_seconds", "annotator_flag_rate",
                   "auto_flag_rate", *PAIR_FIGURES):
        frame[column] = frame[column].astype(float)
    return frame


__all__ = [
    "DAILY_COLUMNS",
    "PAIR_FIGURES",
    "PAIR_FIGURE_NEEDS",
    "PARTNER_COLUMNS",
    "SUMMARY_COLUMNS",
    "Submission",
    "annotator_summary",
    "daily_activity",
    "pair_figure",
    "pair_figures",
    "pair_rules",
    "partner_counts",
    "partner_means",
    "partner_table",
]
