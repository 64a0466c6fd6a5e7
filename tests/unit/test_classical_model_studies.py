"""``chronocept classical-model --json`` on two published studies of the TU Delft expert judgment
data base (tests/data/classical_model/README.md), against a second, deliberately plain
implementation of the classical model written here from Cooke (1991, ch. 12) — loops,
``scipy.stats.chi2``, ``numpy.interp``, nothing of the app's modules — and against the figures
ANDURYL publishes for the tobacco study."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chi2

from cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "classical_model"
STUDIES = ("tobacco", "biol_agents")


def _is_number(token):
    try:
        float(token)
        return True
    except ValueError:
        return False


def read_study(stem):
    """A plain reading of the two files: header levels, then per line the scale word followed by
    the numbers; −1000 ≤ value ≤ −990 means no value."""
    lines = [line for line in (DATA / f"{stem}.dtt").read_text().splitlines() if line.strip()]
    levels = [float(w) / 100 for w in lines[0].split("QU=")[1].split()]
    experts, items, scales, values = [], [], {}, {}
    for line in lines[1:]:
        t = line.split()
        k = next(i for i in range(4, len(t)) if t[i].lower() in ("uni", "log")
                 and all(_is_number(w) for w in t[i + 1:i + 1 + len(levels)]))
        expert, item = t[1], " ".join(t[3:k])
        if expert not in experts:
            experts.append(expert)
        if item not in items:
            items.append(item)
        scales[item] = t[k].lower()
        values[expert, item] = [float(w) for w in t[k + 1:k + 1 + len(levels)]]
    real = {}
    for line in (DATA / f"{stem}.rls").read_text().splitlines():
        t = line.split()
        if not t:
            continue
        k = next(i for i in range(2, len(t)) if _is_number(t[i]) and t[i + 1].lower() in ("uni", "log"))
        v = float(t[k])
        if not -1000 <= v <= -990:
            real[" ".join(t[1:k])] = v
    return levels, experts, items, scales, values, real


def plain_model(stem):
    levels, experts, items, scales, values, real = read_study(stem)
    p = [b - a for a, b in zip([0.0] + levels, levels + [1.0])]
    seeds = [i for i in items if i in real]
    n = len(seeds)

    def tr(item, v):
        return math.log(v) if scales[item] == "log" else v

    ranges = {}
    for item in items:
        vals = [tr(item, v) for e in experts for v in values[e, item]]
        if item in real:
            vals.append(tr(item, real[item]))
        lo, hi = min(vals), max(vals)
        ranges[item] = (lo - 0.1 * (hi - lo), hi + 0.1 * (hi - lo))

    def calib(quantiles):   # quantiles: item -> list, in the items' units
        counts = [0] * (len(levels) + 1)
        for item in seeds:
            counts[sum(1 for q in quantiles[item] if q < real[item])] += 1
        stat = 2 * n * sum(c / n * math.log(c / n / pk) for c, pk in zip(counts, p) if c > 0)
        return chi2.sf(stat, len(levels))

    def info(quantiles, item):
        lo, hi = ranges[item]
        edges = [lo] + [tr(item, q) for q in quantiles[item]] + [hi]
        return sum(pk * math.log(pk / ((b - a) / (hi - lo))) for pk, a, b in zip(p, edges, edges[1:]))

    def scores(quantiles):
        per_item = {item: info(quantiles, item) for item in items}
        return (calib(quantiles), sum(per_item[i] for i in seeds) / n, sum(per_item.values()) / len(items))

    table = {e: scores({i: values[e, i] for i in items}) for e in experts}

    def pool(weights):
        dm = {}
        for item in items:
            lo, hi = ranges[item]
            cdfs = [([lo] + [tr(item, q) for q in values[e, item]] + [hi], w) for e, w in zip(experts, weights)]
            knots = sorted({x for xs, _ in cdfs for x in xs})
            f = [sum(w * np.interp(x, xs, [0.0] + levels + [1.0]) for xs, w in cdfs) for x in knots]
            out = []
            for level in levels:
                k = next(k for k, fk in enumerate(f) if fk >= level - 1e-12)
                x = knots[k] if abs(f[k] - level) <= 1e-12 else \
                    knots[k - 1] + (level - f[k - 1]) * (knots[k] - knots[k - 1]) / (f[k] - f[k - 1])
                out.append(math.exp(x) if scales[item] == "log" else x)
            dm[item] = out
        return dm

    best = None
    for cut in sorted({0.0, *(table[e][0] for e in experts)}):
        raw = [table[e][0] * table[e][1] * (table[e][0] >= cut) for e in experts]
        if sum(raw) == 0:
            continue
        weights = [r / sum(raw) for r in raw]
        dm = pool(weights)
        s = scores(dm)
        if best is None or s[0] * s[1] > best[3][0] * best[3][1]:
            best = (cut, weights, dm, s)
    return experts, table, best, pool([1 / len(experts)] * len(experts))


def run_cli(capsys, stem):
    assert main(["classical-model", str(DATA / f"{stem}.dtt"), str(DATA / f"{stem}.rls"), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("stem", STUDIES)
def test_cli_json_equals_the_plain_implementation(capsys, stem):
    doc = run_cli(capsys, stem)
    experts, table, (alpha, weights, dm, dm_scores), equal = plain_model(stem)
    close = dict(rel=1e-6, abs=1e-6)
    assert [e["id"] for e in doc["experts"]] == experts
    for row, expert, weight in zip(doc["experts"], experts, weights):
        cal, info_seed, info_all = table[expert]
        assert row["calibration"] == pytest.approx(cal, **close)
        assert row["information_seed"] == pytest.approx(info_seed, **close)
        assert row["information_all"] == pytest.approx(info_all, **close)
        assert row["weight"] == pytest.approx(weight, **close)
    assert doc["alpha"] == pytest.approx(alpha, **close)
    assert doc["decision_maker"]["calibration"] == pytest.approx(dm_scores[0], **close)
    assert doc["decision_maker"]["information_seed"] == pytest.approx(dm_scores[1], **close)
    assert doc["decision_maker"]["information_all"] == pytest.approx(dm_scores[2], **close)
    assert doc["decision_maker"]["quantiles"].keys() == dm.keys()
    for item, quantiles in dm.items():
        assert doc["decision_maker"]["quantiles"][item] == pytest.approx(quantiles, **close)
        assert doc["equal_weight_dm"]["quantiles"][item] == pytest.approx(equal[item], **close)


#: ANDURYL's published scores of the tobacco study (5 quantiles, 10 seeds, uniform background,
#: 10 % overshoot): notebooks/Example Anduryl with scripting.ipynb of github.com/grongen/anduryl
#: (commit 3bf8bc4), its experts table after the global-weights DM with optimised α — calibration,
#: information on the seeds ("Info. score real."), on all items ("Info. score total").
TOBACCO_PUBLISHED = {
    "Ex1": (0.036982, 0.929125, 0.821255), "Ex2": (0.171575, 1.002679, 0.705990),
    "Ex3": (0.001053, 0.996867, 0.669885), "Ex4": (0.023658, 0.818449, 0.697621),
    "Ex5": (0.439946, 0.896439, 1.165807), "Ex6": (0.077960, 1.468409, 1.078725),
    "Ex7": (0.687587, 1.062177, 0.943491),
}


def test_tobacco_matches_the_published_scores(capsys):
    doc = run_cli(capsys, "tobacco")
    for row in doc["experts"]:
        cal, info_seed, info_all = TOBACCO_PUBLISHED[row["id"]]
        assert round(row["calibration"], 6) == cal
        assert round(row["information_seed"], 6) == info_seed
        assert round(row["information_all"], 6) == info_all
    # the optimised global-weights DM ("GL opt") is Ex7 alone: calibration 0.687587, information
    # 0.943491 (all items) and 1.062177 (seeds)
    assert [row["weight"] for row in doc["experts"]] == [0.0] * 6 + [1.0]
    dm = doc["decision_maker"]
    assert (round(dm["calibration"], 6), round(dm["information_all"], 6), round(dm["information_seed"], 6)) \
        == (0.687587, 0.943491, 1.062177)


def test_cli_text_and_bad_files(capsys, tmp_path):
    assert main(["classical-model", str(DATA / "tobacco.dtt"), str(DATA / "tobacco.rls")]) == 0
    out = capsys.readouterr().out
    assert "Ex7" in out and "significance level α: 0.6876" in out
    broken = tmp_path / "broken.dtt"
    broken.write_text("* NQ= 3 QU= 5 50 95\n 1 A 1 x UNI 1 2 3\n 1 A 2 y UNI 1 2\n")
    assert main(["classical-model", str(broken), str(DATA / "tobacco.rls")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "broken.dtt, line 3" in err
    assert main(["classical-model", str(tmp_path / "none.dtt"), str(DATA / "tobacco.rls")]) == 2
    assert "cannot read" in capsys.readouterr().err
    few = tmp_path / "few.rls"   # three seeds only: the scores are shown as "—"
    lines = (DATA / "tobacco.rls").read_text().splitlines()
    few.write_text("\n".join(lines[:3] + [" ".join(line.split()[:2] + ["-9.995E+0002", "UNI"]) for line in lines[3:]]))
    assert main(["classical-model", str(DATA / "tobacco.dtt"), str(few)]) == 0
    out = capsys.readouterr().out
    assert "needs ≥ 10 seed items" in out and "—" in out


def test_cli_robustness_leaves_out_each_seed_and_each_expert(capsys):
    assert main(["classical-model", str(DATA / "tobacco.dtt"), str(DATA / "tobacco.rls"), "--json",
                 "--robustness"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = doc["robustness"]
    assert [r["dropped"] for r in rows["items"]] == doc["seed_items"]
    assert [r["dropped"] for r in rows["experts"]] == [e["id"] for e in doc["experts"]]
    # an expert with no weight changes nothing; the one the DM rests on changes it
    full = doc["decision_maker"]["calibration"]
    for expert, row in zip(doc["experts"], rows["experts"]):
        if expert["weight"] == 0:
            assert abs(row["dm_calibration"] - full) < 1e-12 and row["relative_information_all"] < 0.05
        else:
            assert row["relative_information_all"] > 0.5
    assert main(["classical-model", str(DATA / "tobacco.dtt"), str(DATA / "tobacco.rls"), "--robustness"]) == 0
    assert "one expert left out" in capsys.readouterr().out


def test_cli_user_weights_make_the_decision_maker(capsys):
    args = ["classical-model", str(DATA / "tobacco.dtt"), str(DATA / "tobacco.rls"), "--json"]
    assert main([*args, "--user-weights", "0", "0", "0", "0", "0", "0", "1"]) == 0
    user = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    chosen = json.loads(capsys.readouterr().out)   # the optimised DM rests on Ex7 alone
    assert user["weights"] == "user" and user["alpha"] is None
    assert [e["weight"] for e in user["experts"]] == [0, 0, 0, 0, 0, 0, 1]
    for item, row in chosen["decision_maker"]["quantiles"].items():
        assert user["decision_maker"]["quantiles"][item] == pytest.approx(row)
    assert main([*args, "--user-weights", "1", "2"]) == 2
    assert "2 weights for 7 experts" in capsys.readouterr().err
