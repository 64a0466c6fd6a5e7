"""``chronocept classical-model DTT RLS``: Cooke's classical model on an EXCALIBUR study, with no
database — each expert's calibration, information (seeds and all items) and weight, the
significance level α and the decision maker (:mod:`annotation.quality.classical_dm`), so that the
tool can be checked against published studies (SPEC §15).

The quantile levels are the ``.dtt`` header's (``QU=``), 5 50 95 when it names none;
``--quantiles`` that contradict the header are refused. A file that cannot be read or used is one
line on stderr and exit status 2. Below 10 seed items the scores are shown as "—" with the rule
(:data:`annotation.publishable.NEEDS`); ``--json`` still carries the numbers, with
``"withheld"`` saying why they should not be read as findings.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from cli.output import InputError

#: The levels when neither the file's header nor ``--quantiles`` names any.
DEFAULT_PERCENTAGES: tuple[float, ...] = (5.0, 50.0, 95.0)


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


def _levels(header: tuple[float, ...] | None, asked: list[float] | None, dtt: str) -> tuple[float, ...]:
    if asked is None:
        return header if header is not None else tuple(p / 100.0 for p in DEFAULT_PERCENTAGES)
    levels = tuple(p / 100.0 for p in asked)
    if header is not None and not np.allclose(levels, header):
        raise InputError(f"{dtt} holds the quantiles {' '.join(f'{100 * q:g}' for q in header)}, "
                         f"not --quantiles {' '.join(f'{p:g}' for p in asked)}")
    return levels


def run_classical_model(args: argparse.Namespace) -> dict:
    """Read the study and run the model; the result as the ``--json`` document."""
    from annotation.corpus.excalibur import parse_dtt_header, read_excalibur  # on use (LAZY)
    from annotation.quality.classical_dm import classical_model

    dtt_text, rls_text = _read(args.dtt), _read(args.rls)
    try:
        first = next((line for line in dtt_text.splitlines() if line.strip()), "")
        header = parse_dtt_header(first, args.dtt) if first.lstrip().startswith("*") else None
        levels = _levels(header, args.quantiles, args.dtt)
        study = read_excalibur(dtt_text, rls_text, args.dtt, args.rls, n_quantiles=len(levels))
        missing = np.argwhere(np.isnan(study.assessments).any(axis=2))
        if missing.size:
            e, i = missing[0]
            raise InputError(f"{args.dtt}: expert {study.expert_ids[e]!r} gave no value for item "
                             f"{study.item_ids[i]!r}; the model needs every expert's quantiles on every item")
        weights = args.weights
        user = getattr(args, "user_weights", None)
        if user is not None:
            if len(user) != len(study.expert_ids):
                raise InputError(f"--user-weights gives {len(user)} weights for {len(study.expert_ids)} experts "
                                 f"({', '.join(map(str, study.expert_ids))})")
            weights = user
        if args.alpha is not None and weights != "global":
            raise InputError("--alpha applies to global weights only")
        run = dict(background=list(study.backgrounds))
        result = classical_model(study.assessments, study.realisations, levels, weights=weights,
                                 alpha=args.alpha, **run)
        equal = classical_model(study.assessments, study.realisations, levels, weights="equal", **run)
        doc = _document(study, levels, result, equal, user is not None)
        if getattr(args, "robustness", False):
            doc["robustness"] = _robustness(study, levels, weights, args.alpha, run)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    return doc


def _robustness(study, levels, weights, alpha, run) -> dict:  # type: ignore[no-untyped-def]
    """The decision maker with one seed item, then one expert, left out at a time (the same
    options), each row named by the item or expert it dropped."""
    from annotation.quality.classical_robustness import robustness  # on use (LAZY)

    out = {}
    for drop, names in (("items", study.item_ids), ("experts", study.expert_ids)):
        rows = robustness(study.assessments, study.realisations, levels, drop=drop, weights=weights,
                          alpha=alpha, **run)
        out[drop] = [{"dropped": names[r.dropped], "dm_calibration": r.dm_calibration,
                      "dm_information_seed": r.dm_information_seed, "dm_information_all": r.dm_information_all,
                      "relative_information_all": r.relative_information_all} for r in rows]
    return out


def _document(study, levels, result, equal, result_is_user: bool = False) -> dict:  # type: ignore[no-untyped-def]
    from annotation.publishable import NEEDS, figure  # on use (LAZY)

    shown = figure(NEEDS["classical_model"], 1.0, n=result.n_seeds)

    def dm(res) -> dict:  # type: ignore[no-untyped-def]
        return {"calibration": res.dm_calibration, "information_seed": res.dm_information_seed,
                "information_all": res.dm_information_all,
                "quantiles": {item: row.tolist() for item, row in zip(study.item_ids, res.quantiles)}}

    return {
        "experts": [{"id": expert, "calibration": float(result.calibration[k]),
                     "information_seed": float(result.information_seed[k]),
                     "information_all": float(result.information_all[k]), "weight": float(result.weight[k])}
                    for k, expert in enumerate(study.expert_ids)],
        "alpha": result.alpha,
        "decision_maker": dm(result),
        "equal_weight_dm": dm(equal),
        "weights": "global" if result.alpha is not None else "user" if result_is_user else "equal",
        "levels": list(levels),
        "n_seeds": result.n_seeds,
        "seed_items": [item for item, seed in zip(study.item_ids, result.seeds) if seed],
        "withheld": shown.withheld,
    }


def _cell(value: float, shown: bool, digits: int = 4) -> str:
    return f"{value:.{digits}g}" if shown else "—"


def cmd_classical_model(_db: None, args: argparse.Namespace) -> str:
    doc = run_classical_model(args)
    if args.json:
        return json.dumps(doc, indent=2)
    ok = not doc["withheld"]
    lines = [f"{len(doc['experts'])} experts, {len(doc['decision_maker']['quantiles'])} items, "
             f"{doc['n_seeds']} seeds; quantiles {' '.join(f'{100 * q:g}' for q in doc['levels'])}"
             + ("" if ok else f" — scores withheld: {doc['withheld']} (n = {doc['n_seeds']})"),
             f"  {'expert':<12} {'calibration':>12} {'info seeds':>11} {'info all':>9} {'weight':>8}"]
    for e in doc["experts"]:
        lines.append(f"  {e['id']:<12} {_cell(e['calibration'], ok):>12} {e['information_seed']:>11.4f} "
                     f"{e['information_all']:>9.4f} {_cell(e['weight'], ok, 3):>8}")
    alpha = doc["alpha"]
    lines.append(f"significance level α: {_cell(alpha, ok) if alpha is not None else 'n/a (' + doc['weights'] + ' weights)'}")
    for label, key in (("decision maker", "decision_maker"), ("equal-weight DM", "equal_weight_dm")):
        d = doc[key]
        lines.append(f"  {label:<16} calibration {_cell(d['calibration'], ok)}, information seeds "
                     f"{d['information_seed']:.4f}, all {d['information_all']:.4f}")
    for drop, rows in doc.get("robustness", {}).items():
        lines.append(f"robustness, one {drop[:-1]} left out: the DM's calibration, information (seeds), "
                     "and its relative information to the full DM (all items)")
        lines += [f"  {str(r['dropped']):<16} {_cell(r['dm_calibration'], ok):>12} {r['dm_information_seed']:>8.4f} "
                  f"{r['relative_information_all']:>8.4f}" for r in rows]
    return "\n".join(lines)


def add_command(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """The command's parser."""
    p = sub.add_parser("classical-model", help="Cooke's classical model on an EXCALIBUR study "
                                               "(.dtt and .rls): calibration, information, weights, DM")
    p.add_argument("dtt", help="the assessments (EXCALIBUR .dtt)")
    p.add_argument("rls", help="the realisations (EXCALIBUR .rls); a missing value marks a target item")
    p.add_argument("--quantiles", nargs="+", type=float, metavar="PCT",
                   help="the quantile levels in percent (default: the .dtt header's, else 5 50 95)")
    p.add_argument("--weights", choices=("global", "equal"), default="global",
                   help="global (performance) weights, the default, or equal weights")
    p.add_argument("--user-weights", nargs="+", type=float, metavar="W",
                   help="the decision maker with your weights, one per expert in the .dtt's order "
                        "(normalised; the equal-weight DM stays beside it)")
    p.add_argument("--alpha", type=float, help="significance level of the global weights "
                                               "(default: optimised for the decision maker)")
    p.add_argument("--robustness", action="store_true",
                   help="also rerun the model with each seed item, then each expert, left out")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_classical_model, needs_db=False)
